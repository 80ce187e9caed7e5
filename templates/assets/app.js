// skillcat catalog: progressive enhancement for the pages. Plain JavaScript,
// no dependencies, nothing inline (the pages run under a strict CSP).
//
// Every page: a copy button on each code block (examples, schemas). The
// home pages' search and type filter are in search.js.
(function () {
  "use strict";

  var script = document.currentScript;
  var root = new URL("../", script ? script.src : location.href);

  // announce reads a short message out to screen readers.
  var announcer;
  function announce(msg) {
    if (!announcer) {
      announcer = document.createElement("div");
      announcer.className = "visually-hidden";
      announcer.setAttribute("role", "status");
      document.body.appendChild(announcer);
    }
    announcer.textContent = "";
    window.setTimeout(function () { announcer.textContent = msg; }, 50);
  }

  // ---- Copy buttons -------------------------------------------------------

  function copyText(text) {
    if (navigator.clipboard && window.isSecureContext) {
      return navigator.clipboard.writeText(text);
    }
    return Promise.reject(new Error("clipboard unavailable"));
  }

  function selectContents(el) {
    var range = document.createRange();
    range.selectNodeContents(el);
    var sel = window.getSelection();
    sel.removeAllRanges();
    sel.addRange(range);
  }

  Array.prototype.forEach.call(document.querySelectorAll("figure.codeblock"), function (fig) {
    var cap = fig.querySelector("figcaption");
    var code = fig.querySelector("pre code");
    if (!cap || !code) return;
    var title = cap.querySelector(".codeblock-title");
    var button = document.createElement("button");
    button.type = "button";
    button.className = "copy";
    button.textContent = "Copy";
    button.setAttribute("aria-label", "Copy " + (title ? title.textContent : "code"));
    var timer;
    button.addEventListener("click", function () {
      copyText(code.textContent).then(function () {
        button.textContent = "Copied";
        button.setAttribute("data-state", "done");
        announce("Copied to the clipboard");
      }, function () {
        selectContents(code);
        button.textContent = "Press Ctrl+C";
        announce("Text selected: press Control C to copy");
      });
      window.clearTimeout(timer);
      timer = window.setTimeout(function () {
        button.textContent = "Copy";
        button.removeAttribute("data-state");
      }, 2000);
    });
    cap.appendChild(button);
  });
})();

// skillcat catalog: progressive enhancement for the pages. Plain JavaScript,
// no dependencies, nothing inline (the pages run under a strict CSP).
//
// Home page: search as you type over name, summary, tags and provider, from
// the search index (search.json), and a type filter; both live in the URL
// (?q=…&type=…), so a search can be shared and survives a reload. Without
// JavaScript the page lists every skill and the type filter is plain links
// to the type pages. The index is fetched when it is first needed (a query
// in the URL, or the search box in use), so browsing costs no extra
// download; until it arrives the same fields are read from the cards.
//
// Every page: a copy button on each code block (examples, schemas).
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

  // ---- Home page: search and type filter ----------------------------------

  var form = document.getElementById("search");
  var input = document.getElementById("q");
  var list = document.getElementById("skills");
  var filters = document.getElementById("filters");
  if (!form || !input || !list || !filters || !document.body.classList.contains("page-home")) return;

  var status = document.getElementById("status");
  var empty = document.getElementById("empty");
  var clear = document.getElementById("clear");
  var cards = Array.prototype.slice.call(list.querySelectorAll(".card"));
  var total = cards.length;

  // normalize folds case and strips accents, so "cafe" finds "Café".
  function normalize(s) {
    s = String(s || "").toLowerCase();
    return s.normalize ? s.normalize("NFKD").replace(/[\u0300-\u036f]/g, "") : s;
  }

  // The fields searched, as one string: from the index when it is there.
  function searchText(name, summary, provider, tags) {
    return normalize([name, summary, provider, tags.join(" ")].join("\n"));
  }
  function cardText(c) {
    var text = function (sel) {
      var e = c.querySelector(sel);
      return e ? e.textContent : "";
    };
    var tags = Array.prototype.map.call(c.querySelectorAll(".tags a"), function (a) { return a.textContent; });
    return searchText(text(".card-title"), text(".card-summary"), text(".card-provider"), tags);
  }
  var haystack = []; // filled on first need, from the index or the cards
  var byID = {};
  cards.forEach(function (c, i) { byID[c.getAttribute("data-id")] = i; });

  // The type links become toggle buttons.
  var buttons = [];
  Array.prototype.forEach.call(filters.querySelectorAll("a.filter"), function (a) {
    var b = document.createElement("button");
    b.type = "button";
    b.className = "filter";
    b.setAttribute("data-type", a.getAttribute("data-type") || "");
    b.innerHTML = a.innerHTML;
    a.parentNode.replaceChild(b, a);
    buttons.push(b);
  });
  var types = buttons.map(function (b) { return b.getAttribute("data-type"); });

  var params = new URLSearchParams(location.search);
  var type = params.get("type") || "";
  if (types.indexOf(type) < 0) type = "";
  input.value = params.get("q") || "";
  form.hidden = false;

  function terms() {
    return normalize(input.value).split(/\s+/).filter(Boolean);
  }

  function matches(i, words) {
    if (!words.length) return true;
    var text = haystack[i] || (haystack[i] = cardText(cards[i]));
    for (var k = 0; k < words.length; k++) {
      if (text.indexOf(words[k]) < 0) return false;
    }
    return true;
  }

  function plural(n) { return n === 1 ? "skill" : "skills"; }

  function apply(updateURL) {
    var words = terms();
    var perType = {};
    var matched = 0;
    var shown = 0;
    cards.forEach(function (c, i) {
      var t = c.getAttribute("data-type");
      var hit = matches(i, words);
      if (hit) {
        matched++;
        perType[t] = (perType[t] || 0) + 1;
      }
      var show = hit && (!type || t === type);
      if (show) shown++;
      if (c.hidden === show) c.hidden = !show;
    });
    buttons.forEach(function (b) {
      var t = b.getAttribute("data-type");
      b.setAttribute("aria-pressed", String(t === type));
      var count = b.querySelector(".count");
      if (count) count.textContent = String(t ? perType[t] || 0 : matched);
    });
    var label = type ? " " + (filters.querySelector('[data-type="' + type + '"]').firstChild.textContent.trim()) : "";
    var msg;
    if (!words.length && !type) msg = total + " " + plural(total);
    else if (shown === 0) msg = "No" + label + " skills match" + (words.length ? " “" + input.value.trim() + "”" : "");
    else msg = "Showing " + shown + label + " " + plural(shown) + " of " + total + (words.length ? " for “" + input.value.trim() + "”" : "");
    if (status && status.textContent !== msg) status.textContent = msg;
    if (empty) empty.hidden = shown !== 0;
    if (updateURL) {
      var p = new URLSearchParams();
      var q = input.value.trim();
      if (q) p.set("q", q);
      if (type) p.set("type", type);
      var qs = p.toString();
      history.replaceState(null, "", location.pathname + (qs ? "?" + qs : "") + location.hash);
    }
  }

  var requested = false;
  function loadIndex() {
    if (requested) return;
    requested = true;
    fetch(new URL("search.json", root).href, { credentials: "same-origin" })
      .then(function (r) {
        if (!r.ok) throw new Error("search.json: HTTP " + r.status);
        return r.json();
      })
      .then(function (index) {
        (index.skills || []).forEach(function (e) {
          var i = byID[e.id];
          if (i === undefined) return;
          haystack[i] = searchText(e.name, e.summary, e.provider, e.tags || []);
        });
        document.documentElement.setAttribute("data-search", "ready");
        apply(false);
      })
      .catch(function () {
        // Keep searching the cards' own text.
        document.documentElement.setAttribute("data-search", "cards");
      });
  }
  input.addEventListener("focus", loadIndex);
  input.addEventListener("pointerenter", loadIndex);

  var pending = 0;
  input.addEventListener("input", function () {
    loadIndex();
    // Large catalogs: filter once per frame, not once per key.
    if (pending) return;
    pending = window.requestAnimationFrame(function () {
      pending = 0;
      apply(true);
    });
  });
  form.addEventListener("submit", function (ev) {
    ev.preventDefault();
    apply(true);
  });
  buttons.forEach(function (b) {
    b.addEventListener("click", function () {
      var t = b.getAttribute("data-type");
      type = t === type ? "" : t;
      apply(true);
    });
  });
  if (clear) {
    clear.addEventListener("click", function () {
      input.value = "";
      type = "";
      apply(true);
      input.focus();
    });
  }
  // A tag on a card searches for that tag, without leaving the page.
  list.addEventListener("click", function (ev) {
    var a = ev.target.closest ? ev.target.closest(".tags a") : null;
    if (!a || ev.button !== 0 || ev.metaKey || ev.ctrlKey || ev.shiftKey || ev.altKey) return;
    ev.preventDefault();
    input.value = a.textContent;
    apply(true);
    input.focus();
  });
  // "/" jumps to the search box, as on many sites.
  document.addEventListener("keydown", function (ev) {
    if (ev.key !== "/" || ev.ctrlKey || ev.metaKey || ev.altKey) return;
    var t = ev.target;
    if (t && (t.isContentEditable || /^(INPUT|TEXTAREA|SELECT)$/.test(t.tagName))) return;
    ev.preventDefault();
    input.focus();
  });

  document.documentElement.setAttribute("data-search", "cards");
  apply(false);
  if (input.value) loadIndex();
})();

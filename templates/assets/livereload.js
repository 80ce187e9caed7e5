// Live reload for skillcat serve: reloads the page when the site is rebuilt,
// and shows a link to the warnings of the build when it had any. Only served
// in serve mode; never part of a build's output.
(function () {
  "use strict";
  var es = new EventSource("/_skillcat/events");
  es.addEventListener("reload", function () { location.reload(); });
  fetch("/_skillcat/status", { cache: "no-store" }).then(function (r) { return r.json(); }).then(function (st) {
    if (!st.warnings) { return; }
    var a = document.createElement("a");
    a.href = "/_skillcat/problems";
    a.id = "skillcat-warnings";
    a.textContent = st.warnings + (st.warnings === 1 ? " warning" : " warnings") + " in this build: show";
    a.style.cssText = "position:fixed;right:1rem;bottom:1rem;z-index:1000;background:#6b5000;color:#fff;padding:.5rem .75rem;border-radius:6px;font:14px/1.4 system-ui,sans-serif;text-decoration:none;box-shadow:0 2px 6px rgba(0,0,0,.3)";
    document.body.appendChild(a);
  }, function () {});
})();

// Search and type filter for the home page, with the state in the URL.
(function () {
  "use strict";
  var input = document.getElementById("q");
  var list = document.getElementById("skill-list");
  if (!input || !list) return;
  var cards = Array.prototype.slice.call(list.querySelectorAll(".skill-card"));
  var count = document.getElementById("result-count");
  var data = {};
  fetch("search.json").then(function (r) { return r.json(); }).then(function (entries) {
    entries.forEach(function (e) {
      data[e.id] = [e.name, e.summary, e.provider, e.id].concat(e.tags).join(" ").toLowerCase();
    });
    apply();
  });
  var params = new URLSearchParams(location.search);
  var type = params.get("type") || "";
  input.value = params.get("q") || "";
  var buttons = Array.prototype.slice.call(document.querySelectorAll(".filter"));
  buttons.forEach(function (b) {
    b.setAttribute("role", "button");
    b.addEventListener("click", function (ev) {
      ev.preventDefault();
      type = b.getAttribute("data-type");
      apply(true);
    });
  });
  input.addEventListener("input", function () { apply(true); });
  function apply(push) {
    var words = input.value.toLowerCase().split(/\s+/).filter(Boolean);
    var shown = 0;
    cards.forEach(function (c) {
      var text = data[c.getAttribute("data-id")] || c.textContent.toLowerCase();
      var ok = (!type || c.getAttribute("data-type") === type) &&
        words.every(function (w) { return text.indexOf(w) >= 0; });
      c.hidden = !ok;
      if (ok) shown++;
    });
    buttons.forEach(function (b) { b.setAttribute("aria-pressed", String(b.getAttribute("data-type") === type)); });
    if (count) count.textContent = shown + " of " + cards.length + " skills shown";
    if (push) {
      var p = new URLSearchParams();
      if (input.value) p.set("q", input.value);
      if (type) p.set("type", type);
      var qs = p.toString();
      history.replaceState(null, "", qs ? "?" + qs : location.pathname);
    }
  }
  apply(false);
})();

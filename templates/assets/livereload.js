// Live reload for skillcat serve: reloads the page when the site is rebuilt.
// Only served in serve mode; never part of a build's output.
(function () {
  "use strict";
  var es = new EventSource("/_skillcat/events");
  es.addEventListener("reload", function () { location.reload(); });
})();

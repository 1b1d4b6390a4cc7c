// Live updates: the server sends the page's main part again, rendered and
// escaped on the server, each time the ledger moves. Open <details> stay
// open across an update.
(function () {
  "use strict";
  var me = document.currentScript;
  var status = document.getElementById("live");
  var es = new EventSource(me.dataset.events);
  es.addEventListener("page", function (e) {
    var main = document.getElementById("main");
    var open = [];
    main.querySelectorAll("details[open][id]").forEach(function (d) { open.push(d.id); });
    main.innerHTML = e.data;
    open.forEach(function (id) { var d = document.getElementById(id); if (d) { d.open = true; } });
    document.body.dataset.updates = String(Number(document.body.dataset.updates || 0) + 1);
    status.textContent = "live · updated " + new Date().toLocaleTimeString();
  });
  es.onopen = function () { status.textContent = "live"; };
  es.onerror = function () { status.textContent = "disconnected: reload to try again"; };
})();

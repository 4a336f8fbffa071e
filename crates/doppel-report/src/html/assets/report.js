// doppel's HTML report: sort and filter the cluster table, open a cluster,
// jump to a pair's diff. It works on the page alone, loading and storing nothing.
"use strict";
(function () {
  var table = document.getElementById("clusters");
  if (!table) { return; }
  var filter = document.getElementById("filter");
  var kind = document.getElementById("kind");
  var shown = document.getElementById("shown");
  function clusters() { return Array.prototype.slice.call(table.tBodies); }

  function setOpen(body, open) {
    var button = body.querySelector("button.expand");
    var detail = body.querySelector("tr.detail");
    if (!button || !detail) { return; }
    button.setAttribute("aria-expanded", open ? "true" : "false");
    detail.hidden = !open;
  }

  table.addEventListener("click", function (event) {
    var button = event.target.closest("button.expand");
    if (!button) { return; }
    var body = button.closest("tbody");
    setOpen(body, button.getAttribute("aria-expanded") !== "true");
  });

  document.getElementById("expand-all").addEventListener("click", function () {
    clusters().forEach(function (body) { if (!body.hidden) { setOpen(body, true); } });
  });
  document.getElementById("collapse-all").addEventListener("click", function () {
    clusters().forEach(function (body) { setOpen(body, false); });
  });

  // Sorting: numbers (missing values last either way) or text, ties by id.
  table.tHead.addEventListener("click", function (event) {
    var button = event.target.closest("th button");
    if (!button) { return; }
    var th = button.closest("th");
    var key = th.dataset.key;
    var numeric = th.dataset.type === "number";
    var order = th.getAttribute("aria-sort") === "ascending" ? "descending" : "ascending";
    Array.prototype.forEach.call(table.tHead.querySelectorAll("th"), function (other) {
      other.removeAttribute("aria-sort");
    });
    th.setAttribute("aria-sort", order);
    var sign = order === "ascending" ? 1 : -1;
    var sorted = clusters().sort(function (x, y) {
      var a = x.dataset[key], b = y.dataset[key], c = 0;
      if (numeric) {
        var u = a === undefined || a === "" ? NaN : parseFloat(a);
        var v = b === undefined || b === "" ? NaN : parseFloat(b);
        if (isNaN(u) !== isNaN(v)) { return isNaN(u) ? 1 : -1; }
        c = isNaN(u) ? 0 : sign * (u - v);
      } else {
        c = sign * (a || "").localeCompare(b || "");
      }
      return c || parseFloat(x.dataset.id) - parseFloat(y.dataset.id);
    });
    sorted.forEach(function (body) { table.appendChild(body); });
  });

  // Filtering: every word typed must be in the cluster's paths,
  // algorithms or verdicts; the menu narrows further.
  function matchesKind(body) {
    switch (kind.value) {
      case "verdict": return body.dataset.verdicts !== "";
      case "no-verdict": return body.dataset.verdicts === "";
      case "disagree": return body.dataset.disagree === "true";
      default: return true;
    }
  }
  function applyFilter() {
    var words = filter.value.toLowerCase().split(/\s+/).filter(Boolean);
    var all = clusters(), count = 0;
    all.forEach(function (body) {
      var text = body.dataset.text;
      var ok = matchesKind(body) && words.every(function (w) { return text.indexOf(w) >= 0; });
      body.hidden = !ok;
      if (ok) { count += 1; }
    });
    shown.textContent = count + " of " + all.length + (all.length === 1 ? " cluster" : " clusters");
  }
  filter.addEventListener("input", applyFilter);
  kind.addEventListener("change", applyFilter);

  // A link to a pair (#pair-3-1) or a cluster opens it, wherever it is.
  function openTarget() {
    var id = decodeURIComponent(location.hash.slice(1));
    var target = id && document.getElementById(id);
    if (!target) { return; }
    var body = target.closest("tbody.cluster");
    if (body) { body.hidden = false; setOpen(body, true); }
    var details = target.querySelector("details");
    if (details) { details.open = true; }
    target.scrollIntoView();
  }
  window.addEventListener("hashchange", openTarget);
  openTarget();
})();

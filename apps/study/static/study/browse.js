// Card browser keyboard: "/" focuses the search box; j/k or Down/Up move between results;
// Enter opens the selected card (the result is a link). After htmx swaps new results in, the
// selection starts again at the first one.
(function () {
  "use strict";

  function typing(event) {
    var el = event.target;
    return el && (el.isContentEditable || /^(INPUT|TEXTAREA|SELECT)$/.test(el.tagName));
  }

  function links() {
    return Array.prototype.slice.call(document.querySelectorAll("#results .browse-link"));
  }

  function move(step) {
    var all = links();
    if (!all.length) return false;
    var at = all.indexOf(document.activeElement);
    var next = at < 0 ? (step > 0 ? 0 : all.length - 1) : Math.max(0, Math.min(all.length - 1, at + step));
    all[next].focus();
    return true;
  }

  document.addEventListener("keydown", function (event) {
    if (event.ctrlKey || event.metaKey || event.altKey) return;
    var search = document.getElementById("id_q");
    var handled = false;
    if (event.key === "/" && !typing(event)) {
      if (search) { search.focus(); search.select(); handled = true; }
    } else if (event.key === "ArrowDown" && event.target === search) {
      handled = move(1);
    } else if (typing(event)) {
      return;
    } else if (event.key === "j" || event.key === "ArrowDown") {
      handled = move(1);
    } else if (event.key === "k" || event.key === "ArrowUp") {
      handled = move(-1);
    }
    if (handled) event.preventDefault();
  });
})();

// Card browser keyboard: "/" focuses the search box; j/k or Down/Up move between results;
// Enter opens the selected card (the result is a link). x chooses the card in focus, a every card
// on the page (again: none); with cards chosen, s suspends, u unsuspends, f forgets them, r goes to
// the "due in" box (Enter reschedules), t to the tag box, m to the deck to move to (your own cards).
// After htmx swaps new results in, the selection starts again at the first one.
(function () {
  "use strict";

  function typing(event) {
    var el = event.target;
    return el && (el.isContentEditable || /^(INPUT|TEXTAREA|SELECT)$/.test(el.tagName));
  }

  function links() {
    return Array.prototype.slice.call(document.querySelectorAll("#results .browse-link"));
  }

  function boxes() {
    return Array.prototype.slice.call(document.querySelectorAll("#results input[name=cards]"));
  }

  function move(step) {
    var all = links();
    if (!all.length) return false;
    var at = all.indexOf(document.activeElement);
    var next = at < 0 ? (step > 0 ? 0 : all.length - 1) : Math.max(0, Math.min(all.length - 1, at + step));
    all[next].focus();
    return true;
  }

  // The count of chosen cards, the chosen rows marked, and the actions enabled only with some.
  function update() {
    var chosen = boxes().filter(function (b) { return b.checked; });
    var count = document.getElementById("bulk-count");
    if (count) count.textContent = chosen.length + " chosen";
    boxes().forEach(function (b) {
      var row = b.closest("tr");
      if (row) row.classList.toggle("is-selected", b.checked);
    });
    document.querySelectorAll("#bulk-form .bulk-bar button").forEach(function (button) {
      button.disabled = chosen.length === 0;
    });
    var all = document.getElementById("pick-all");
    if (all) {
      all.checked = chosen.length > 0 && chosen.length === boxes().length;
      all.indeterminate = chosen.length > 0 && chosen.length < boxes().length;
    }
    return chosen.length;
  }

  function toggleFocused() {
    var row = document.activeElement && document.activeElement.closest && document.activeElement.closest("tr");
    var box = row && row.querySelector("input[name=cards]");
    if (!box) return false;
    box.checked = !box.checked;
    update();
    return true;
  }

  function chooseAll() {
    var all = boxes();
    if (!all.length) return false;
    var every = all.every(function (b) { return b.checked; });
    all.forEach(function (b) { b.checked = !every; });
    update();
    return true;
  }

  function press(id) {
    var button = document.getElementById(id);
    if (!button || button.disabled) return false;
    if (window.htmx) window.htmx.process(button.form || button);
    button.click();
    return true;
  }

  function focusField(id) {
    var field = document.getElementById(id);
    if (!field || update() === 0) return false;
    field.focus();
    if (field.select) field.select();
    return true;
  }

  // A column header sorts the results only (htmx swaps #results): the form's "Sort by" is set to
  // the same sort, so that the next Search keeps it.
  document.body.addEventListener("htmx:afterSwap", function (event) {
    var results = document.getElementById("results");
    var select = document.getElementById("id_sort");
    if (!results || !select || !results.hasAttribute("data-sort")) return;
    var sort = results.getAttribute("data-sort");
    if (Array.prototype.some.call(select.options, function (o) { return o.value === sort; })) {
      select.value = sort;
    }
  });

  document.addEventListener("change", function (event) {
    if (event.target.id === "pick-all") {
      var on = event.target.checked;
      boxes().forEach(function (b) { b.checked = on; });
    }
    if (event.target.closest && event.target.closest("#results")) update();
  });

  // Enter in the "due in" box reschedules, in the tag box tags (not the form's first button).
  document.addEventListener("keydown", function (event) {
    if (event.key !== "Enter") return;
    var ids = { "bulk-days": "bulk-reschedule", "bulk-tag": "bulk-tagged" };
    if (ids[event.target.id]) {
      event.preventDefault();
      press(ids[event.target.id]);
    }
  });

  document.addEventListener("keydown", function (event) {
    if (event.ctrlKey || event.metaKey || event.altKey) return;
    var search = document.getElementById("id_q");
    var handled = false;
    if (event.key === "/" && !typing(event)) {
      if (search) { search.focus(); search.select(); handled = true; }
    } else if (event.key === "ArrowDown" && event.target === search) {
      handled = move(1);
    } else if (typing(event) && event.target.name !== "cards") {
      return;
    } else if (event.key === "j" || event.key === "ArrowDown") {
      handled = move(1);
    } else if (event.key === "k" || event.key === "ArrowUp") {
      handled = move(-1);
    } else if (event.key === "x") {
      handled = toggleFocused();
    } else if (event.key === "a") {
      handled = chooseAll();
    } else if (event.key === "s") {
      handled = press("bulk-suspend");
    } else if (event.key === "u") {
      handled = press("bulk-unsuspend");
    } else if (event.key === "f") {
      handled = press("bulk-forget");
    } else if (event.key === "r") {
      handled = focusField("bulk-days");
    } else if (event.key === "t") {
      handled = focusField("bulk-tag");
    } else if (event.key === "m") {
      handled = focusField("bulk-deck");
    }
    if (handled) event.preventDefault();
  });

  document.body.addEventListener("htmx:afterSwap", function (event) {
    if (event.detail.target && event.detail.target.id === "results") update();
  });
  update();
})();

// Loaded on every page (base.html). Form behaviour declared in the markup, so no page needs an inline handler (the CSP forbids them):
// data-confirm="Question?" on a <form> asks before it is sent; data-autosubmit on a <select>
// sends its form as soon as the choice changes (a <noscript> button covers browsers without JS).
(function () {
  "use strict";

  document.addEventListener("submit", function (event) {
    var message = event.target.getAttribute("data-confirm");
    if (message && !window.confirm(message)) event.preventDefault();
  });

  document.addEventListener("change", function (event) {
    var el = event.target;
    if (el.hasAttribute && el.hasAttribute("data-autosubmit") && el.form) el.form.requestSubmit();
  });

  // The card editor's image upload: its answer names the Markdown that shows the image, which
  // goes where the author last wrote (the back when they wrote nowhere yet), and the preview
  // follows.
  var lastBox = null;
  document.addEventListener("focusin", function (event) {
    var el = event.target;
    if (el.tagName === "TEXTAREA" && el.closest("#card-form")) lastBox = el;
  });
  document.body.addEventListener("htmx:afterSwap", function (event) {
    var target = event.detail.target;
    if (!target || target.id !== "media-added") return;
    var added = target.querySelector("[data-snippet]");
    var form = target.closest("form");
    var box = lastBox && document.body.contains(lastBox) ? lastBox : form && form.querySelector("textarea[name=back]");
    if (!added || !box) return;
    var snippet = added.getAttribute("data-snippet");
    var at = typeof box.selectionStart === "number" ? box.selectionStart : box.value.length;
    var before = box.value.slice(0, at);
    var glue = before && !/\s$/.test(before) ? " " : "";
    box.value = before + glue + snippet + box.value.slice(at);
    box.dispatchEvent(new Event("change", { bubbles: true }));
    var file = form.querySelector("input[type=file][data-media-insert]");
    if (file) file.value = "";
  });
})();

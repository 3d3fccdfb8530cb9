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
})();

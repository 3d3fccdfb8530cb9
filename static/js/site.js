// Loaded on every page, in <head>: marks <html class="js"> at once (so CSS may fold the phone menu
// without hiding it from browsers that run no script) and wires the "Menu" button of the header.
(function () {
  "use strict";
  document.documentElement.classList.add("js");

  document.addEventListener("click", function (event) {
    var toggle = event.target.closest && event.target.closest(".nav-toggle");
    if (!toggle) return;
    var nav = document.getElementById("site-nav");
    var open = !nav.classList.contains("nav-open");
    nav.classList.toggle("nav-open", open);
    toggle.setAttribute("aria-expanded", open ? "true" : "false");
  });

  document.addEventListener("keydown", function (event) {
    var nav = document.getElementById("site-nav");
    if (event.key === "Escape" && nav && nav.classList.contains("nav-open")) {
      nav.classList.remove("nav-open");
      var toggle = nav.querySelector(".nav-toggle");
      toggle.setAttribute("aria-expanded", "false");
      toggle.focus();
    }
  });
})();

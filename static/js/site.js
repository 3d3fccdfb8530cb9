// Loaded on every page, in <head>: marks <html class="js"> at once (so CSS may fold the phone menu
// without hiding it from browsers that run no script), wires the "Menu" button of the header and
// opens a lesson's card a link points at.
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

  // A link to one card of a lesson (#card-ray-actor, e.g. "Learn it from" after a quiz) opens
  // that card's answer and brings it into view; CSS highlights it with :target.
  function openTarget() {
    var id = decodeURIComponent(window.location.hash.slice(1));
    var target = id && document.getElementById(id);
    if (!target || !target.classList.contains("flashcard")) return;
    var details = target.querySelector("details");
    if (details) details.open = true;
    target.scrollIntoView({ block: "center" });
  }
  document.addEventListener("DOMContentLoaded", openTarget);
  window.addEventListener("hashchange", openTarget);
})();

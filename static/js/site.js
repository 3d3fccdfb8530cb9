// Loaded on every page, in <head>: marks <html class="js"> at once (so CSS may fold the phone menu
// without hiding it from browsers that run no script), wires the "Menu" button of the header and
// opens a lesson's card a link points at, and lets the keyboard reach what scrolls sideways.
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

  // A region that scrolls sideways (a wide table, a long line of code) must be reachable by
  // keyboard to be scrolled (WCAG 2.1.1): one that overflows gets tabindex=0, and a name from
  // its caption or the heading before it, so a screen reader says what it is.
  function focusableScrollers(root) {
    var regions = (root || document).querySelectorAll(".table-scroll, pre");
    for (var i = 0; i < regions.length; i++) {
      var region = regions[i];
      if (region.hasAttribute("tabindex") || region.scrollWidth <= region.clientWidth + 1) continue;
      region.setAttribute("tabindex", "0");
      if (region.tagName === "PRE" || region.hasAttribute("aria-label")) continue;
      var caption = region.querySelector("caption");
      var heading = region.closest("section") && region.closest("section").querySelector("h2, h3");
      var name = (caption || heading || {}).textContent;
      region.setAttribute("role", "region");
      region.setAttribute("aria-label", (name ? name.trim() + ", " : "") + "scrolls sideways");
    }
  }
  document.addEventListener("DOMContentLoaded", function () { focusableScrollers(); });
  document.addEventListener("htmx:afterSettle", function (event) { focusableScrollers(event.target); });
  window.addEventListener("resize", function () { focusableScrollers(); });
})();

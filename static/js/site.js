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
  // Logging out deletes what the review page keeps on this device (Clear-Site-Data), the grades
  // given offline and not yet sent among it. So a logout first counts them; on the review page,
  // online, it sends them; any still waiting are named, and the learner chooses. Offline, a
  // logout cannot reach the server at all, and says so rather than leave for the browser's error.
  function waitingOnDevice() {
    var idb = window.indexedDB;
    // Without databases() the store cannot be looked for without making it: do not ask.
    if (!idb || !idb.databases) return Promise.resolve(0);
    return idb.databases().then(function (dbs) {
      if (!dbs.some(function (d) { return d.name === "raydeck-device"; })) return 0;
      return new Promise(function (resolve) {
        var open = idb.open("raydeck-device");
        open.onerror = function () { resolve(0); };
        open.onsuccess = function () {
          var db = open.result;
          if (!db.objectStoreNames.contains("outbox")) { db.close(); resolve(0); return; }
          var all = db.transaction("outbox").objectStore("outbox").getAll();
          all.onsuccess = function () {
            db.close();
            resolve(all.result.filter(function (r) { return !r.refused; }).length);
          };
          all.onerror = function () { db.close(); resolve(0); };
        };
      });
    }, function () { return 0; });
  }
  function sendFirst() {
    var sync = window.RayDeckSync;
    if (!sync || !navigator.onLine) return Promise.resolve();
    var patience = new Promise(function (resolve) { setTimeout(resolve, 8000); });
    return Promise.race([sync.drain().catch(function () {}), patience]);
  }
  function reviews(n) {
    return n + " review" + (n === 1 ? "" : "s") + " given on this device";
  }
  document.addEventListener("submit", function (event) {
    var form = event.target;
    if (!form.hasAttribute || !form.hasAttribute("data-logout")) return;
    event.preventDefault();
    var button = form.querySelector("button");
    button.disabled = true;
    waitingOnDevice().then(function (n) {
      if (!navigator.onLine) {  // the server ends the session: offline nothing would happen
        window.alert("You are offline, and logging out needs the server: try again once " +
          "online." + (n ? " The " + reviews(n) + " stay on it until they are sent." : ""));
        return false;
      }
      return (n ? sendFirst().then(waitingOnDevice) : Promise.resolve(0)).then(function (left) {
        return !left || window.confirm(
          reviews(left) + (left === 1 ? " has" : " have") + " not reached the server yet. " +
          "Logging out deletes " + (left === 1 ? "it" : "them") + " from this device. Cancel " +
          "to keep " + (left === 1 ? "it" : "them") + " and try again later, or OK to log " +
          "out anyway.");
      });
    }).then(function (go) {
      button.disabled = false;
      if (go) HTMLFormElement.prototype.submit.call(form);
    });
  });

  document.addEventListener("DOMContentLoaded", function () { focusableScrollers(); });
  document.addEventListener("htmx:afterSettle", function (event) { focusableScrollers(event.target); });
  window.addEventListener("resize", function () { focusableScrollers(); });
})();

// The installable review (issue 32): registers the service worker (/sw.js, scope "/": it keeps
// the review page and its static files for offline use), shows "Install" only when the browser
// offers it (beforeinstallprompt), and keeps this page and what it loads in the worker's cache
// while online, so the page opens offline too.
(function (root) {
  "use strict";

  var SHELL = "raydeck-shell-v1";
  var install = document.getElementById("install-app");
  var offered = null;

  root.addEventListener("beforeinstallprompt", function (event) {
    event.preventDefault();
    offered = event;
    if (install) install.hidden = false;
  });
  if (install) {
    install.addEventListener("click", function () {
      if (!offered) return;
      offered.prompt();
      offered.userChoice.then(function () { offered = null; install.hidden = true; });
    });
  }
  root.addEventListener("appinstalled", function () { if (install) install.hidden = true; });

  function keepShell() {
    if (!root.caches || !root.navigator.onLine || !document.getElementById("review-front")) return;
    var urls = [location.pathname];
    document.querySelectorAll("script[src], link[rel=stylesheet], link[rel=icon], " +
      "link[rel=manifest]").forEach(function (el) {
      var url = new URL(el.src || el.href, location.href);
      if (url.origin === location.origin) urls.push(url.pathname + url.search);
    });
    root.caches.open(SHELL).then(function (cache) {
      return Promise.all(urls.map(function (url) {
        return cache.match(url).then(function (hit) {
          // Once each: the worker keeps the page fresh as it is fetched (sw.js).
          return hit ? null : cache.add(url);
        });
      }));
    }).catch(function () { /* a full disk or a lost connection: next time */ });
  }

  root.addEventListener("raydeck:wiped", keepShell);  // another learner's cache was dropped

  if ("serviceWorker" in root.navigator) {
    root.navigator.serviceWorker.register("/sw.js", { scope: "/" }).then(function () {
      return root.navigator.serviceWorker.ready;
    }).then(keepShell).catch(function () { /* no worker (a private window): online only */ });
  }
})(window);

// RayDeck's service worker (issue 32), served at /sw.js (scope "/") by
// apps/study/device_api.service_worker. It serves the review page and the static files from its
// cache when the network is away: a review page is fetched from the network first (and kept
// when it shows a card), static files from the cache first. Nothing else is touched: the API
// (the pack, the grades) always goes to the network; the pack lives in IndexedDB. Logging out
// clears this cache (Clear-Site-Data on the logout response).
"use strict";

var SHELL = "raydeck-shell-v1";
var STATIC = "__STATIC__";

self.addEventListener("install", function () { self.skipWaiting(); });
self.addEventListener("activate", function (event) {
  event.waitUntil(caches.keys().then(function (keys) {
    return Promise.all(keys.filter(function (k) { return k !== SHELL; })
      .map(function (k) { return caches.delete(k); }));
  }).then(function () { return self.clients.claim(); }));
});

function reviewPage(url) {
  return url.pathname.indexOf("/study/review/") === 0 && url.pathname.indexOf("/undo") < 0 &&
    url.pathname.indexOf("more-new-cards") < 0;
}

function shows(response) {
  return response.clone().text().then(function (html) {
    return html.indexOf('id="review-front"') >= 0;
  });
}

self.addEventListener("fetch", function (event) {
  var request = event.request;
  if (request.method !== "GET") return;
  var url = new URL(request.url);
  if (url.origin !== self.location.origin) return;
  if (request.mode === "navigate" && reviewPage(url)) {
    event.respondWith(fetch(request).then(function (response) {
      if (response.ok && !response.redirected) {
        shows(response).then(function (card) {
          if (card) caches.open(SHELL).then(function (c) { c.put(url.pathname, response.clone()); });
        });
      }
      return response.clone();
    }).catch(function () {
      return caches.open(SHELL).then(function (cache) {
        return cache.match(url.pathname).then(function (hit) {
          return hit || cache.match(url.pathname, { ignoreSearch: true }) ||
            new Response("<!doctype html><title>Offline</title><p>offline: open the review " +
              "page once online to keep it on this device.</p>",
            { status: 503, headers: { "Content-Type": "text/html; charset=utf-8" } });
        });
      });
    }));
    return;
  }
  if (url.pathname.indexOf(STATIC) === 0) {
    // A hashed name (the manifest storage's, in production) never changes: the cache first.
    // An unhashed one (DEBUG) may: the network first, the cache when it is away.
    var hashed = /\.[0-9a-f]{12}\.[a-z0-9]+$/.test(url.pathname);
    event.respondWith(caches.open(SHELL).then(function (cache) {
      var network = fetch(request).then(function (response) {
        if (response.ok) cache.put(request, response.clone());
        return response;
      });
      if (!hashed) return network.catch(function () { return cache.match(request); });
      return cache.match(request).then(function (hit) { return hit || network; });
    }));
  }
});

// The review page's store on the device (issue 32), plain IndexedDB: the pack (the learner's
// cards and states for today and tomorrow, and the day's limits) and the outbox (each grade
// given on this device and not yet accepted by the server, in the order given). One database
// per browser profile; the pack names its user, and a page of another user wipes it first.
(function (root) {
  "use strict";

  var NAME = "raydeck-device";
  var VERSION = 1;
  var opening = null;

  function request(req) {
    return new Promise(function (resolve, reject) {
      req.onsuccess = function () { resolve(req.result); };
      req.onerror = function () { reject(req.error); };
    });
  }

  function done(tx) {
    return new Promise(function (resolve, reject) {
      tx.oncomplete = function () { resolve(); };
      tx.onerror = tx.onabort = function () { reject(tx.error); };
    });
  }

  function open() {
    if (opening) return opening;
    opening = new Promise(function (resolve, reject) {
      if (!root.indexedDB) { reject(new Error("no IndexedDB")); return; }
      var req = root.indexedDB.open(NAME, VERSION);
      req.onupgradeneeded = function () {
        var db = req.result;
        db.createObjectStore("meta");
        db.createObjectStore("cards", { keyPath: "card" });
        db.createObjectStore("outbox", { keyPath: "seq", autoIncrement: true });
      };
      req.onsuccess = function () {
        var db = req.result;
        // Another tab upgrading, or the site's data cleared: let go so it can proceed.
        db.onversionchange = function () { db.close(); opening = null; };
        resolve(db);
      };
      req.onerror = function () { opening = null; reject(req.error); };
      req.onblocked = function () { opening = null; reject(new Error("IndexedDB blocked")); };
    });
    return opening;
  }

  function all(store) {
    return open().then(function (db) {
      return request(db.transaction(store).objectStore(store).getAll());
    });
  }

  // { meta, cards: [in queue order], outbox: [in the order given] }
  function load() {
    return open().then(function (db) {
      var tx = db.transaction(["meta", "cards", "outbox"]);
      return Promise.all([
        request(tx.objectStore("meta").get("pack")),
        request(tx.objectStore("cards").getAll()),
        request(tx.objectStore("outbox").getAll()),
      ]);
    }).then(function (got) {
      var cards = got[1].sort(function (a, b) { return a.order - b.order; });
      return { meta: got[0] || null, cards: cards, outbox: got[2] };
    });
  }

  // Replace the pack (meta and cards); the outbox is left alone.
  function savePack(meta, cards) {
    return open().then(function (db) {
      var tx = db.transaction(["meta", "cards"], "readwrite");
      tx.objectStore("meta").put(meta, "pack");
      var store = tx.objectStore("cards");
      store.clear();
      cards.forEach(function (card) { store.put(card); });
      return done(tx);
    });
  }

  // One grade: the card's new state, the day's counters and the review to send, together.
  function saveGrade(meta, card, review) {
    return open().then(function (db) {
      var tx = db.transaction(["meta", "cards", "outbox"], "readwrite");
      tx.objectStore("meta").put(meta, "pack");
      tx.objectStore("cards").put(card);
      var req = tx.objectStore("outbox").add(review);
      return done(tx).then(function () { review.seq = req.result; return review; });
    });
  }

  function putCard(card) {
    return open().then(function (db) {
      var tx = db.transaction("cards", "readwrite");
      tx.objectStore("cards").put(card);
      return done(tx);
    });
  }

  function putReview(review) {
    return open().then(function (db) {
      var tx = db.transaction("outbox", "readwrite");
      tx.objectStore("outbox").put(review);
      return done(tx);
    });
  }

  function removeReview(seq) {
    return open().then(function (db) {
      var tx = db.transaction("outbox", "readwrite");
      tx.objectStore("outbox").delete(seq);
      return done(tx);
    });
  }

  // Everything of this device's learner: the pack, the outbox and the cached pages.
  function wipe() {
    var caches = root.caches ? root.caches.keys().then(function (keys) {
      return Promise.all(keys.map(function (k) { return root.caches.delete(k); }));
    }) : Promise.resolve();
    return open().then(function (db) {
      var tx = db.transaction(["meta", "cards", "outbox"], "readwrite");
      ["meta", "cards", "outbox"].forEach(function (s) { tx.objectStore(s).clear(); });
      return done(tx);
    }).then(function () { return caches; }).then(function () {
      root.dispatchEvent(new Event("raydeck:wiped"));  // install.js keeps this page again
    });
  }

  root.RayDeckStore = {
    load: load, all: all, savePack: savePack, saveGrade: saveGrade, putCard: putCard,
    putReview: putReview, removeReview: removeReview, wipe: wipe,
  };
})(window);

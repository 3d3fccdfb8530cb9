// The device's sync (issue 32, offline-contract.md section 3): the grades waiting in the outbox
// go to POST /api/reviews/ one by one, in the order they were given, each with its client_id,
// its moment (reviewed_at), the state it was graded from (based_on) and its duration. 200/201
// removes it; 400/409 keeps it, marked refused with the server's message shown; a network error,
// 5xx or a lost session stops the round, and it is tried again later (the `online` event, the
// page's load, a timer, the next grade): the same client_id makes a repeat harmless.
(function (root) {
  "use strict";

  var Store = root.RayDeckStore;
  var RETRY_MS = 15000;
  var running = null;
  var timer = null;
  var listeners = [];
  var status = { waiting: 0, refused: [], offline: !root.navigator.onLine, sending: false };

  function csrfToken() {
    var match = /(?:^|;\s*)csrftoken=([^;]+)/.exec(document.cookie);
    if (match) return decodeURIComponent(match[1]);
    try {
      return JSON.parse(document.body.getAttribute("hx-headers") || "{}")["X-CSRFToken"] || "";
    } catch (e) { return ""; }
  }

  function tell() {
    listeners.forEach(function (fn) { fn(status); });
  }

  function count(outbox) {
    status.waiting = outbox.filter(function (r) { return !r.refused; }).length;
    status.refused = outbox.filter(function (r) { return r.refused; });
    tell();
  }

  function message(body, fallback) {
    if (!body || typeof body !== "object") return fallback;
    var first = body.reviewed_at || body.based_on || body.card || body.grade || body.error ||
      body.detail || body.non_field_errors;
    if (Array.isArray(first)) first = first.join(" ");
    return typeof first === "string" && first ? first : fallback;
  }

  function send(review) {
    var body = {
      card: review.card, grade: review.grade, client_id: review.client_id,
      duration_ms: review.duration_ms, reviewed_at: review.reviewed_at,
      based_on: review.based_on,
    };
    return root.fetch(status.url, {
      method: "POST", credentials: "same-origin", cache: "no-store",
      headers: { "Content-Type": "application/json", "X-CSRFToken": csrfToken(),
        "Accept": "application/json" },
      body: JSON.stringify(body),
    }).then(function (response) {
      return response.json().catch(function () { return null; }).then(function (json) {
        return { code: response.status, body: json };
      });
    });
  }

  // One round: every waiting review in order, until one cannot be sent now.
  function round(hooks) {
    return Store.all("outbox").then(function (outbox) {
      outbox.sort(function (a, b) { return a.seq - b.seq; });
      count(outbox);
      var waiting = outbox.filter(function (r) { return !r.refused && r.user === status.user; });
      var i = 0;
      status.sending = waiting.length > 0;
      function next() {
        if (i >= waiting.length) return true;
        var review = waiting[i++];
        return send(review).then(function (answer) {
          status.offline = false;
          if (answer.code === 200 || answer.code === 201) {
            status.problem = "";
            return Store.removeReview(review.seq).then(function () {
              if (hooks.accepted) hooks.accepted(review, answer.body || {});
              return next();
            });
          }
          if (answer.code === 400 || answer.code === 409) {
            review.refused = message(answer.body, "The server refused this review.");
            return Store.putReview(review).then(function () {
              if (hooks.refused) hooks.refused(review);
              return next();
            });
          }
          // Kept on the device and sent again later; the server's own sentence says why (a 503
          // while the database restarts says so, and that a retried review counts once).
          status.problem = answer.code === 403 || answer.code === 401
            ? "Log in again to send the reviews waiting on this device."
            : message(answer.body, "The server could not take it just now.");
          return false;  // 5xx, 429, a lost session: later
        }, function () {
          status.offline = true;
          return false;
        });
      }
      return next();
    }).then(function (finished) {
      status.sending = false;
      return Store.all("outbox").then(function (outbox) {
        count(outbox);
        if (!finished) later();
        return finished;
      });
    });
  }

  function later() {
    if (timer) return;
    timer = root.setTimeout(function () { timer = null; sync(); }, RETRY_MS);
  }

  var hooks = {};

  // The page's own background requests (the sync's rounds, the pack) take turns, and never run
  // beside a request the learner started (an htmx swap of the review): one request of this
  // page at a time reaches the server, in the order they were made.
  var users = 0, quiet = [], lane = Promise.resolve(), busy = 0;
  function userIdle() {
    return users === 0 ? Promise.resolve() : new Promise(function (r) { quiet.push(r); });
  }
  function background(task) {
    var run = lane.then(userIdle).then(function () {
      busy += 1;
      return task();
    });
    lane = run.catch(function () {}).then(function () { busy -= 1; });
    return run;
  }
  function idle() {
    return busy === 0 ? Promise.resolve() : lane.then(function () { return idle(); });
  }
  document.addEventListener("htmx:beforeRequest", function () { users += 1; });
  document.addEventListener("htmx:afterRequest", function () {
    users = Math.max(0, users - 1);
    if (users === 0) quiet.splice(0).forEach(function (r) { r(); });
  });

  // Start a round (or join the one running); resolves true when nothing waits any more.
  function sync() {
    if (!status.url) return Promise.resolve(false);
    if (running) {
      return running.then(function () { return status.waiting === 0 ? true : sync(); });
    }
    running = background(function () { return round(hooks); }).catch(function () { later(); return false; }).then(function (ok) {
      running = null;
      return ok;
    });
    return running;
  }

  // Resolves once every waiting review has been sent (or could not be: false).
  function drain() {
    return sync().then(function (ok) {
      return ok && status.waiting === 0 ? true : (status.waiting === 0);
    });
  }

  function start(options) {
    status.url = options.url;
    status.user = options.user;
    hooks = options.hooks || {};
    if (options.onChange) listeners.push(options.onChange);
    root.addEventListener("online", function () { status.offline = false; tell(); sync(); });
    root.addEventListener("offline", function () { status.offline = true; tell(); });
    root.setInterval(function () { if (status.waiting) sync(); }, RETRY_MS * 2);
    return sync();
  }

  root.RayDeckSync = {
    start: start, sync: sync, drain: drain, status: status, count: count,
    pending: function () { return status.waiting; }, RETRY_MS: RETRY_MS,
    background: background, idle: idle, busy: function () { return busy > 0; },
  };
})(window);

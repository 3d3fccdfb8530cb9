// The review page reviews from its own queue (issue 32). The device keeps a pack (GET
// /api/study/device-pack/: today's queue and tomorrow's due cards with their states) in
// IndexedDB; a grade shows the next card at once, computed here with SM-2 (sm2.js) and the
// queue's rules (re-drills first, then due cards most overdue first, then new cards, within the
// day's limits; the card just graded and its note's siblings are kept off the next card), and
// the grade goes to the outbox, sent in the background (review-sync.js). Offline the page goes
// on from the pack. What needs the server falls back to the htmx path once the outbox is empty:
// undo, suspend, edit, a card with a typed answer, a leech, the end of the session, interview
// mode and "review these" sets. Without JavaScript, or without IndexedDB, the page is unchanged.
(function (root) {
  "use strict";

  var SM2 = root.RayDeckSM2, Store = root.RayDeckStore, Sync = root.RayDeckSync;
  var Render = root.RayDeckRender;
  var page = document.querySelector(".review-page[data-pack-url]");
  if (!page || !SM2 || !Store || !Sync || !root.indexedDB || !root.crypto.randomUUID) return;

  var SIBLING_WINDOW = 3;
  var user = +page.getAttribute("data-user");
  var deck = page.getAttribute("data-deck") || "";
  var own = page.getAttribute("data-client-queue") === "1";
  var meta = null, records = {}, ready = false, saving = Promise.resolve(), done = null;
  var banner = document.getElementById("offline-banner");
  var told = document.getElementById("sync-notice");

  function zone() { return meta.time_zone; }
  function today(now) { return SM2.localDay(now, zone()); }

  // Each record's state parsed once (and its local due and review days), until it changes.
  var parsed = {};
  function stateOf(record) {
    if (!record.state) return null;
    var hit = parsed[record.card];
    if (!hit || hit.json !== record.state) {
      var state = SM2.fromJson(record.state);
      hit = parsed[record.card] = { json: record.state, state: state,
        dueDay: state.due_at === null ? null : SM2.localDay(state.due_at, zone()),
        lastDay: state.last_reviewed_at === null ? null : SM2.localDay(state.last_reviewed_at, zone()) };
    }
    return hit.state;
  }

  // A new local day: no new cards from the pack (it holds today's), a full review budget.
  function roll(now) {
    if (meta.day === today(now)) return;
    meta.day = today(now);
    meta.new_left = 0;
    meta.due_left = meta.reviews_per_day;
    meta.notes = [];
  }

  function kindOf(record, state, now, day) {
    // Never reviewed (no state, or a state row kept from a suspension): a new card.
    if (!state || state.last_reviewed_at === null) return "new";
    var hit = parsed[record.card];
    day = day || today(now);
    if (!hit || hit.state !== state) return SM2.isDue(state, now, zone()) ? "due" : null;
    if (hit.dueDay !== null && hit.dueDay > day) return null;
    var againToday = hit.dueDay === day && (state.needs_redrill || hit.lastDay === day);
    return againToday ? "redrill" : "due";
  }

  function byDue(a, b) { return a.state.due_at - b.state.due_at || a.record.card - b.record.card; }

  // The queue now, as apps/study/queue.py builds it; `avoid`: the record just graded.
  function queue(now, avoid) {
    roll(now);
    var lists = { redrill: [], due: [], new: [] }, day = today(now);
    meta.order.forEach(function (id) {
      var record = records[id];
      if (!record || (deck && record.deck !== deck)) return;
      var state = stateOf(record);
      var kind = kindOf(record, state, now, day);
      if (kind === "new" && record.note && meta.notes.indexOf(record.note) >= 0) return;
      if (kind) lists[kind].push({ record: record, state: state, kind: kind });
    });
    lists.redrill.sort(byDue);
    lists.due.sort(byDue);
    var items = lists.redrill.concat(lists.due.slice(0, Math.max(0, meta.due_left)),
      lists.new.slice(0, Math.max(0, meta.new_left)));
    var counts = { redrill: lists.redrill.length, due: Math.min(lists.due.length, meta.due_left),
      new: Math.min(lists.new.length, meta.new_left) };
    if (avoid && items.length > 1) {
      items = items.filter(function (i) { return i.record.card !== avoid.card; })
        .concat(items.filter(function (i) { return i.record.card === avoid.card; }));
      if (avoid.note) {
        for (var n = 0; n < Math.min(items.length, 1 + SIBLING_WINDOW); n++) {
          if (items[n].record.note !== avoid.note) {
            items.unshift(items.splice(n, 1)[0]);
            break;
          }
        }
      }
    }
    return { items: items, counts: counts };
  }

  function view(q, notice) {
    return { done: done, remaining: q.items.length, counts: q.counts, notice: notice || "" };
  }

  function show(q, now, notice) {
    if (!q.items.length) { Render.empty(view(q)); return; }
    Render.card(q.items[0], now, zone(), view(q, notice));
    announce();
  }

  function announce() {
    var status = document.getElementById("review-status");
    var text = document.getElementById("review").getAttribute("data-announce");
    if (status && text) {
      status.textContent = "";
      root.setTimeout(function () { status.textContent = text; }, 30);
    }
  }

  function painted() {
    root.requestAnimationFrame(function () {
      performance.mark("raydeck-painted");
      try { performance.measure("raydeck-next-card", "raydeck-grade", "raydeck-painted"); }
      catch (e) { /* no grade mark: a grade by a click the key handler did not see */ }
    });
  }

  // A grade on the page: true when it was taken here (the next card is shown already).
  function grade(form, value) {
    var now = Date.now();
    var record = records[form.elements.card.value];
    if (!ready || !own || !record || form.elements.for_interview) return false;
    var before = stateOf(record);
    var after = SM2.review(before || SM2.newState(now), value, now);
    if (before && before.last_reviewed_at === null) before = null;  // new: based_on null
    var kind = kindOf(record, before, now) || "due";
    var online = !Sync.status.offline;
    var threshold = meta.leech_threshold;
    var lapsed = threshold > 0 && (before ? before.lapses : 0) < threshold &&
      after.lapses >= threshold;
    var saved = { state: record.state, based: record.based };
    roll(now);
    var counters = { new_left: meta.new_left, due_left: meta.due_left, notes: meta.notes };
    record.state = SM2.toJson(after);
    if (kind === "new") meta.new_left -= 1;
    else if (kind === "due") meta.due_left -= 1;
    if (record.note && meta.notes.indexOf(record.note) < 0) meta.notes = meta.notes.concat([record.note]);
    var q = queue(now, record);
    var next = q.items[0];
    var needsServer = lapsed || !next || next.record.type_answer;
    if (online && needsServer) {  // the htmx path, once the outbox is empty
      record.state = saved.state;
      meta.new_left = counters.new_left;
      meta.due_left = counters.due_left;
      meta.notes = counters.notes;
      return false;
    }
    done = (done === null ? +form.elements.done.value || 0 : done) + 1;
    var shown = +form.elements.shown_at.value;
    var review = {
      user: user, card: record.card, grade: value, client_id: form.elements.client_id.value,
      reviewed_at: new Date(now).toISOString(),
      based_on: before ? (record.based || SM2.toJson(before).last_reviewed_at) : null,
      duration_ms: shown && now >= shown ? Math.min(now - shown, 86400000 - 1) : null,
      front: Render.truncate(Render.plain(record.front_html), 60), before: saved, kind: kind,
    };
    record.based = null;
    show(q, now);
    painted();
    Sync.status.waiting += 1;
    update(Sync.status);
    saving = saving.then(function () { return Store.saveGrade(meta, record, review); })
      .then(function () { banner && update(Sync.status); Sync.sync(); },
        function () { tell("This grade could not be stored on the device; reload the page."); });
    return true;
  }

  // Offline Z: the latest grade still on the device is taken back here.
  function undoHere() {
    return saving.then(function () { return Store.all("outbox"); }).then(function (outbox) {
      var last = outbox.filter(function (r) { return !r.refused; })
        .sort(function (a, b) { return b.seq - a.seq; })[0];
      if (!last) { tell("Nothing to undo on this device."); return; }
      var record = records[last.card];
      return Store.removeReview(last.seq).then(function () {
        if (record) {
          record.state = last.before.state;
          record.based = last.before.based;
          if (last.kind === "new") meta.new_left += 1;
          else if (last.kind === "due") meta.due_left += 1;
          return Store.putCard(record);
        }
      }).then(function () {
        done = Math.max(0, (done || 1) - 1);
        var now = Date.now();
        var q = queue(now, null);
        var again = q.items.filter(function (i) { return i.record.card === last.card; })[0];
        if (again) q.items = [again].concat(q.items.filter(function (i) { return i !== again; }));
        show(q, now, "Undid grade " + last.grade + " on this card; grade it again.");
        Sync.count(outbox.filter(function (r) { return r.seq !== last.seq; }));
      });
    });
  }

  function tell(text, keep) {
    if (!told) return;
    var p = document.createElement("p");
    p.textContent = text;
    if (!keep) told.replaceChildren();
    told.appendChild(p);
    told.setAttribute("role", "alert");  // only once there is something to say
    told.hidden = false;
  }

  function update(status) {
    if (!banner) return;
    var n = status.waiting;
    var words = n + " review" + (n === 1 ? "" : "s") + " waiting";
    var why = n && status.problem ? " " + status.problem : "";
    banner.textContent = status.offline ? "offline: " + words
      : n ? words + (why ? ", sent again shortly." + why : ", sending\u2026") : "";
    banner.hidden = !status.offline && !n;
    page.setAttribute("data-waiting", String(n));
    page.setAttribute("data-refused", String(status.refused.length));
    var list = document.getElementById("sync-refused");
    if (!list) return;
    list.replaceChildren();
    status.refused.forEach(function (review) {
      var li = document.createElement("li");
      li.textContent = "Not recorded: \u201c" + review.front + "\u201d (grade " + review.grade +
        ", " + new Date(review.reviewed_at).toLocaleString() + "): " + review.refused + " ";
      var drop = document.createElement("button");
      drop.type = "button";
      drop.className = "btn btn-small";
      drop.textContent = "Discard it";
      drop.addEventListener("click", function () {
        Store.removeReview(review.seq).then(function () { return Store.all("outbox"); })
          .then(Sync.count);
      });
      li.appendChild(drop);
      list.appendChild(li);
    });
    list.hidden = !status.refused.length;
  }

  function restore(review) {
    var record = records[review.card];
    if (record && record.state && record.state.last_reviewed_at === review.reviewed_at) {
      record.state = review.before.state;
      record.based = review.before.based;
      Store.putCard(record);
    }
  }

  var stale = false;
  var hooks = {
    accepted: function (review, body) {
      var record = records[review.card];
      if (record && record.state && record.state.last_reviewed_at === review.reviewed_at) {
        record.based = body.reviewed_at || null;
        Store.putCard(record);
      }
      if (body.conflict) {
        stale = true;
        tell("\u201c" + review.front + "\u201d: " + body.conflict.message, true);
      }
    },
    refused: function (review) {
      restore(review);
      stale = true;
      tell("Not recorded: \u201c" + review.front + "\u201d: " + review.refused, true);
    },
  };

  // The pack from the server, with this device's own grades still waiting laid over it.
  function refresh() {
    return Sync.background(fetchPack);
  }

  // Bumped by every htmx request (a grade, an undo, a suspend the server makes): a pack asked for
  // before one may miss what it changed, and is dropped (the swap's own refresh follows).
  // While such a request of the review fragment runs, the records may miss what it changes (a
  // grade sent the htmx way): the page grades the htmx way too until the swap's refresh lands.
  var generation = 0, readyBefore = null;
  document.addEventListener("htmx:beforeRequest", function (event) {
    generation += 1;
    if (event.detail.elt.closest && event.detail.elt.closest("#review")) {
      if (readyBefore === null) readyBefore = ready;
      ready = false;
    }
  });
  document.addEventListener("htmx:afterRequest", function (event) {
    if (readyBefore !== null && !event.detail.successful) ready = readyBefore;  // nothing changed
    readyBefore = null;
  });

  function fetchPack() {
    var asked = generation;
    return root.fetch(page.getAttribute("data-pack-url"), {
      credentials: "same-origin", cache: "no-store", headers: { Accept: "application/json" },
    }).then(function (response) {
      if (!response.ok) throw new Error("pack " + response.status);
      return response.json();
    }).then(function (pack) {
      return saving.then(function () { return Store.load(); }).then(function (local) {
        if (pack.user !== user) throw new Error("pack of another user");
        if (asked !== generation) throw new Error("pack older than a request since");
        var mine = {};
        local.outbox.forEach(function (r) { if (!r.refused) mine[r.card] = true; });
        var kept = {};
        local.cards.forEach(function (c) { kept[c.card] = c; });
        var now = Date.now();
        meta = {
          user: pack.user, generated_at: pack.generated_at, hold_days: pack.hold_days,
          time_zone: pack.time_zone, reviews_per_day: pack.limits.reviews_per_day,
          leech_threshold: pack.limits.leech_threshold, new_left: pack.limits.new,
          due_left: pack.limits.due, notes: [], order: [],
        };
        meta.day = SM2.localDay(now, pack.time_zone);
        records = {};
        var cards = pack.cards.map(function (c, i) {
          var record = mine[c.card] && kept[c.card] ? kept[c.card] : c;
          record.order = i;
          if (record === c) record.based = c.state ? c.state.last_reviewed_at : null;
          records[c.card] = record;
          meta.order.push(c.card);
          return record;
        });
        ready = true;
        stale = false;
        return Store.savePack(meta, cards);
      });
    });
  }

  // The stored pack, if it is this learner's and young enough; another learner's is wiped.
  function loadStored() {
    return Store.load().then(function (local) {
      if (local.meta && local.meta.user !== user) {
        return Store.wipe().then(function () { return false; });
      }
      if (!local.meta) return false;
      var age = Date.now() - Date.parse(local.meta.generated_at);
      if (age > local.meta.hold_days * 86400000) return false;  // too old to grade from
      meta = local.meta;
      records = {};
      local.cards.forEach(function (c) { records[c.card] = c; });
      Sync.count(local.outbox);
      return true;
    });
  }

  document.addEventListener("keydown", function (event) {
    if (/^[1-4]$/.test(event.key) || (event.shiftKey && /^Digit[0-5]$/.test(event.code))) {
      performance.clearMarks("raydeck-grade");
      performance.mark("raydeck-grade");
    }
  }, true);
  document.addEventListener("pointerdown", function (event) {
    if (event.target.closest && event.target.closest(".grade-form button")) {
      performance.clearMarks("raydeck-grade");
      performance.mark("raydeck-grade");
    }
  }, true);

  document.addEventListener("submit", function (event) {
    var form = event.target;
    var button = event.submitter;
    if (form.classList.contains("grade-form") && button && button.name === "grade") {
      if (grade(form, +button.value)) {
        event.preventDefault();
        event.stopImmediatePropagation();
      }
    } else if (form.querySelector("#undo") && Sync.status.offline && ready) {
      event.preventDefault();
      event.stopImmediatePropagation();
      undoHere();
    } else if (!form.hasAttribute("hx-post") && form.closest(".review-page") && !Sync.status.offline &&
               (Sync.busy() || Sync.status.waiting) && form.dataset.held !== "1") {
      // A plain form (unsuspend, learn more) leaves the page: first the grades and the pack.
      event.preventDefault();
      event.stopImmediatePropagation();
      saving.then(Sync.drain).then(Sync.idle).then(function () {
        form.dataset.held = "1";
        form.requestSubmit(button || undefined);
      });
    }
  }, true);

  // A request of the review fragment (the htmx path) waits for the grades given here, so the
  // server sees them in order; offline it is refused with a word.
  document.body.addEventListener("htmx:confirm", function (event) {
    var inReview = event.detail.elt.closest && event.detail.elt.closest("#review, #typed-form");
    if (!inReview || (Sync.status.waiting === 0 && !Sync.busy())) return;
    event.preventDefault();
    if (Sync.status.offline) {
      tell("offline: that needs the server. Your grades are kept on this device.");
      return;
    }
    saving.then(Sync.drain).then(Sync.idle).then(function () { event.detail.issueRequest(true); });
  });
  document.body.addEventListener("htmx:afterSwap", function (event) {
    if (event.detail.target && event.detail.target.id === "review") {
      painted();  // the htmx round trip's next card, measured alike (bench/review_paint.py)
      done = null;
      if (own) refresh().catch(function () { ready = meta !== null; /* offline: the stored pack */ });
    }
  });

  function startSync() {
    return Sync.start({
      url: page.getAttribute("data-reviews-url"), user: user, hooks: hooks,
      onChange: function (status) {
        update(status);
        if (stale && !status.sending && status.waiting === 0 && !status.offline) {
          stale = false;
          refresh().catch(function () { stale = true; });
        }
      },
    });
  }

  // First the device's store is made this learner's (another's pack and grades are wiped),
  // then the sync starts, then the pack is fetched afresh.
  loadStored().then(function (stored) {
    startSync();
    if (!own) return;
    return refresh().catch(function () {
      if (!stored) return;
      // Offline (or the server away): go on from the stored pack; the cached page's card may
      // be one graded since, so the device's own next card replaces it.
      ready = true;
      Sync.status.offline = true;
      update(Sync.status);
      if (own) show(queue(Date.now(), null), Date.now());
    });
  }).catch(function () { /* no IndexedDB (a private window): the htmx page as it was */ });

  root.RayDeckQueue = {
    ready: function () { return ready; }, queue: function () { return queue(Date.now()); },
    refresh: refresh,
  };
})(window);

// The review page's card, drawn from the device's queue (issue 32): the server's review fragment
// (study/review.html) is kept and its parts are filled in for the next card, so the page looks
// and reads as after an htmx swap: front and back, the buttons' intervals and ease changes from
// SM-2 (static/js/sm2.js), "Why is this card here?", the progress and the day's counts.
(function (root) {
  "use strict";

  var SM2 = root.RayDeckSM2;
  var BUTTONS = { 1: 1, 2: 3, 3: 4, 4: 5 };  // key: grade (Again, Hard, Good, Easy)
  var MONTHS = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov",
    "Dec"];

  function $(id) { return document.getElementById(id); }

  function plain(html) {
    var box = document.createElement("div");
    box.innerHTML = html || "";
    return (box.textContent || "").split(/\s+/).filter(Boolean).join(" ");
  }

  function truncate(text, n) {
    return text.length > n ? text.slice(0, n - 1) + "\u2026" : text;
  }

  var formats = {};
  function localParts(ms, zone) {
    var parts = {};
    formats[zone] = formats[zone] || new Intl.DateTimeFormat("en-GB", {
      timeZone: zone, year: "numeric", month: "numeric", day: "numeric", hour: "2-digit",
      minute: "2-digit", hourCycle: "h23",
    });
    formats[zone].formatToParts(new Date(ms)).forEach(function (p) { parts[p.type] = p.value; });
    return parts;
  }

  function day(ms, zone) {
    var p = localParts(ms, zone);
    return +p.day + " " + MONTHS[+p.month - 1] + " " + p.year;
  }

  function dayTime(ms, zone) {
    var p = localParts(ms, zone);
    return day(ms, zone) + " " + p.hour + ":" + p.minute;
  }

  // The sentence of apps/study/review_context.py's _why.
  function why(kind, state, zone) {
    if (kind === "new") {
      return "New card: you have not studied it yet; it counts towards today's new cards.";
    }
    if (state.needs_redrill) {
      return "Re-drill: you graded it 3 today. Good or Easy clears it and schedules it " +
        state.interval_days + " days after that review; a lower grade keeps it here today.";
    }
    if (kind === "redrill") {
      return "Again today: you graded it below 3 earlier today, so it starts over (n = 0).";
    }
    var days = state.interval_days;
    return "Due: an interval of " + days + " day" + (days !== 1 ? "s" : "") +
      " made it due on " + day(state.due_at, zone) + ".";
  }

  function setText(el, text) { if (el) el.textContent = text; }

  function retarget(el, attr, from, to) {
    var value = el && el.getAttribute(attr);
    if (value) el.setAttribute(attr, value.replace("/" + from + "/", "/" + to + "/"));
  }

  function counts(c) {
    var review = $("review");
    setText(review.querySelector('.review-counts [title="again today"]'), c.redrill + " again");
    setText(review.querySelector('.review-counts [title="due reviews"]'), c.due + " due");
    setText(review.querySelector('.review-counts [title="new cards"]'), c.new + " new");
  }

  function progress(done, remaining) {
    var bar = document.querySelector("#review .review-progress progress");
    if (!bar) return;
    bar.value = done;
    bar.max = Math.max(1, done + remaining);
    bar.textContent = done + " of " + (done + remaining);
  }

  function clearNotices() {
    document.querySelectorAll("#review > .review-notice").forEach(function (n) { n.remove(); });
  }

  function notice(text) {
    clearNotices();
    if (!text) return;
    var box = document.createElement("div");
    box.className = "review-notice";
    box.setAttribute("role", "alert");
    var p = document.createElement("p");
    p.textContent = text;
    box.appendChild(p);
    var at = document.querySelector("#review .review-progress");
    if (at) at.after(box);
  }

  // Show `item` ({record, kind, state}) at `now`: true when the page could draw it.
  function card(item, now, zone, view) {
    var article = $("review-card");
    var form = article && article.querySelector(".grade-form");
    if (!form || !$("review-front")) return false;
    var record = item.record;
    var state = item.state || SM2.newState(now);
    var old = article.getAttribute("data-card");
    article.setAttribute("data-card", record.card);
    article.setAttribute("data-kind", item.kind);
    var label = item.kind === "new" ? "new" : item.kind === "redrill" ? "again today" : "review";
    setText(article.querySelector(".eyebrow"), record.section + " \u00b7 " + label);
    var front = $("review-front");
    front.className = "review-front" + (record.cloze ? " cloze-front" : "");
    front.innerHTML = record.front_html;
    ["typed-form"].forEach(function (id) { if ($(id)) $(id).remove(); });
    var back = $("review-back");
    back.innerHTML = record.back_html + (record.why_html
      ? '<div class="card-why"><strong>Why it matters:</strong> ' + record.why_html + "</div>"
      : "");
    $("review-answer").open = false;
    form.elements.card.value = record.card;
    form.elements.client_id.value = root.crypto.randomUUID();
    form.elements.shown_at.value = String(Date.now());
    form.elements.done.value = String(view.done);
    if (form.elements.for_interview) form.elements.for_interview.remove();
    var days = SM2.preview(state, now, zone);
    var eases = SM2.previewEase(state, now);
    form.querySelectorAll(".grade-buttons button").forEach(function (button) {
      var g = BUTTONS[button.getAttribute("data-key")];
      button.querySelector(".grade-interval").innerHTML =
        '<span class="visually-hidden">next in </span>' + SM2.formatDays(days[g]);
      setText(button.querySelector(".grade-ease"), SM2.formatEaseChange(eases[g]));
    });
    form.querySelectorAll("[data-grade]").forEach(function (button) {
      var g = +button.getAttribute("data-grade");
      button.querySelector("small").textContent = SM2.formatDays(days[g]);
    });
    var whyBox = article.querySelector(".why-here");
    if (whyBox) {
      whyBox.open = false;
      setText(whyBox.querySelector("p"), why(item.kind, state, zone));
      var dd = whyBox.querySelectorAll("dd");
      setText(dd[0], String(state.repetitions));
      setText(dd[1], SM2.formatEase(state.ease));
      setText(dd[2], state.interval_days + " d");
      setText(dd[3], item.state ? dayTime(state.due_at, zone) : "now (new)");
      setText(dd[4], state.last_grade === null ? "\u2014" : String(state.last_grade));
      setText(dd[5], String(state.lapses));
      if (dd[6] && !state.needs_redrill) dd[6].parentNode.remove();
    }
    document.querySelectorAll(".review-tools form, #edit-card").forEach(function (el) {
      ["action", "hx-post", "href", "hx-get"].forEach(function (a) { retarget(el, a, old, record.card); });
      el.querySelectorAll && el.querySelectorAll('input[name="done"]').forEach(function (i) {
        i.value = String(view.done);
      });
      if (root.htmx) root.htmx.process(el);
    });
    if ($("leech-notice")) $("leech-notice").remove();
    clearNotices();
    if (view.notice) notice(view.notice);
    counts(view.counts);
    progress(view.done, view.remaining);
    var total = view.done + view.remaining;
    $("review").setAttribute("data-announce", (view.notice ? view.notice + " " : "") + "Card " +
      (view.done + 1) + " of " + total + ": " + truncate(plain(record.front_html), 80));
    article.focus({ preventScroll: false });
    return true;
  }

  // Nothing more on the device (offline, or every card graded while the server is away).
  function empty(view) {
    var article = $("review-card");
    if (!article) return;
    article.removeAttribute("data-card");
    article.innerHTML = '<h2 id="summary-title">Nothing more on this device</h2>' +
      "<p>You graded every card this device holds for today. The grades are sent when the " +
      "connection is back; reload then for the rest of your queue.</p>";
    article.setAttribute("aria-labelledby", "summary-title");
    var tools = document.querySelector("#review .review-tools");
    if (tools) tools.hidden = true;
    counts(view.counts);
    progress(view.done, 0);
    article.focus();
  }

  root.RayDeckRender = { card: card, empty: empty, notice: notice, plain: plain,
    truncate: truncate };
})(window);

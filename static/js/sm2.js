// SM-2 exactly as apps/study/scheduler.py (DESIGN.md "SM-2, exactly"), for the review page's own
// queue (issue 32): the buttons' labels, and the grades given offline. The easiness is an integer
// number of hundredths (250 is 2.50), so ceil(I x EF) is exact as with Python's Decimal; moments
// are milliseconds since the epoch (UTC). tests/e2e/test_sm2_js.py runs this file in Chromium over
// generated vectors and compares it with the Python scheduler.
(function (root) {
  "use strict";

  var DAY_MS = 86400000;
  var INITIAL_EASE = 250;
  var MIN_EASE = 130;
  var MAX_INTERVAL_DAYS = 36500;
  var GRADES = [0, 1, 2, 3, 4, 5];

  function newState(now) {
    return {
      repetitions: 0, ease: INITIAL_EASE, interval_days: 0, due_at: now, needs_redrill: false,
      redrill_anchor: null, lapses: 0, last_grade: null, last_reviewed_at: null,
    };
  }

  function copy(state, changes) {
    var out = {};
    Object.keys(state).forEach(function (k) { out[k] = state[k]; });
    Object.keys(changes).forEach(function (k) { out[k] = changes[k]; });
    return out;
  }

  function checkGrade(grade) {
    if (typeof grade !== "number" || !Number.isInteger(grade) || grade < 0 || grade > 5) {
      throw new RangeError("grade must be 0 to 5, got " + grade);
    }
    return grade;
  }

  function nextEase(ease, grade) {
    var miss = 5 - grade;
    return Math.max(MIN_EASE, ease + 10 - miss * (8 + miss * 2));
  }

  function nextInterval(repetitions, interval, ease) {
    if (repetitions === 1) return 1;
    if (repetitions === 2) return 6;
    var hundredths = interval * ease;  // an integer well below 2^53
    var grown = (hundredths - (hundredths % 100)) / 100 + (hundredths % 100 ? 1 : 0);
    return Math.min(MAX_INTERVAL_DAYS, grown);
  }

  function review(state, grade, now) {
    grade = checkGrade(grade);
    if (state.needs_redrill) {
      if (grade >= 4) {
        var anchor = state.redrill_anchor !== null ? state.redrill_anchor : now;
        return copy(state, {
          needs_redrill: false, redrill_anchor: null, due_at: anchor + state.interval_days * DAY_MS,
          last_grade: grade, last_reviewed_at: now,
        });
      }
      return copy(state, { due_at: now, last_grade: grade, last_reviewed_at: now });
    }
    if (grade >= 3) {
      var repetitions = state.repetitions + 1;
      var ease = nextEase(state.ease, grade);
      var interval = nextInterval(repetitions, state.interval_days, ease);
      var redrill = grade === 3;
      return copy(state, {
        repetitions: repetitions, ease: ease, interval_days: interval, needs_redrill: redrill,
        redrill_anchor: redrill ? now : null, due_at: redrill ? now : now + interval * DAY_MS,
        last_grade: grade, last_reviewed_at: now,
      });
    }
    return copy(state, {
      repetitions: 0, interval_days: 0, lapses: state.lapses + (state.repetitions > 0 ? 1 : 0),
      needs_redrill: false, redrill_anchor: null, due_at: now, last_grade: grade,
      last_reviewed_at: now,
    });
  }

  // The learner's local calendar day of a moment, as a day number (days since 1970-01-01).
  var formats = {};
  function localDay(moment, zone) {
    var format = formats[zone];
    if (!format) {
      format = formats[zone] = new Intl.DateTimeFormat("en-CA", {
        timeZone: zone, year: "numeric", month: "2-digit", day: "2-digit",
      });
    }
    var parts = {};
    format.formatToParts(new Date(moment)).forEach(function (p) { parts[p.type] = p.value; });
    return Date.UTC(+parts.year, +parts.month - 1, +parts.day) / DAY_MS;
  }

  function isDue(state, now, zone) {
    return state.due_at === null || localDay(state.due_at, zone) <= localDay(now, zone);
  }

  function daysUntilDue(state, now, zone) {
    if (state.due_at === null) return 0;
    return Math.max(0, localDay(state.due_at, zone) - localDay(now, zone));
  }

  function preview(state, now, zone) {
    var out = {};
    GRADES.forEach(function (g) { out[g] = daysUntilDue(review(state, g, now), now, zone); });
    return out;
  }

  function previewEase(state, now) {
    var out = {};
    GRADES.forEach(function (g) { out[g] = review(state, g, now).ease - state.ease; });
    return out;
  }

  function roundHalfEven(x) {
    var r = Math.round(x);
    return (Math.abs(x % 1) === 0.5 && r % 2 !== 0) ? r - 1 : r;
  }

  function formatDays(days) {
    if (days <= 0) return "today";
    if (days < 31) return days + "d";
    if (days < 365) return roundHalfEven(days / 30.4) + "mo";
    return (days / 365).toFixed(1) + "y";
  }

  function formatEase(hundredths) {
    return (hundredths / 100).toFixed(2);
  }

  function formatEaseChange(change) {
    if (change === 0) return "ease \u00b10";
    return "ease " + (change > 0 ? "+" : "\u2212") + formatEase(Math.abs(change));
  }

  function parseMoment(text) { return text ? Date.parse(text) : null; }
  function isoMoment(ms) { return ms === null ? null : new Date(ms).toISOString(); }

  // The API's state (ease "2.50", ISO moments) and back.
  function fromJson(data) {
    return {
      repetitions: data.repetitions, ease: Math.round(parseFloat(data.ease_factor) * 100),
      interval_days: data.interval_days, due_at: parseMoment(data.due_at),
      needs_redrill: !!data.needs_redrill, redrill_anchor: parseMoment(data.redrill_anchor),
      lapses: data.lapses || 0, last_grade: data.last_grade === undefined ? null : data.last_grade,
      last_reviewed_at: parseMoment(data.last_reviewed_at),
    };
  }

  function toJson(state) {
    return {
      repetitions: state.repetitions, ease_factor: formatEase(state.ease),
      interval_days: state.interval_days, due_at: isoMoment(state.due_at),
      needs_redrill: state.needs_redrill, redrill_anchor: isoMoment(state.redrill_anchor),
      lapses: state.lapses, last_grade: state.last_grade,
      last_reviewed_at: isoMoment(state.last_reviewed_at),
    };
  }

  root.RayDeckSM2 = {
    DAY_MS: DAY_MS, GRADES: GRADES, newState: newState, review: review, isDue: isDue,
    daysUntilDue: daysUntilDue, preview: preview, previewEase: previewEase, localDay: localDay,
    formatDays: formatDays, formatEase: formatEase, formatEaseChange: formatEaseChange,
    fromJson: fromJson, toJson: toJson,
  };
})(typeof window !== "undefined" ? window : globalThis);

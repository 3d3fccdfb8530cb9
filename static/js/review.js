// Review, cram and the interview plan's card: a tap on the card or Space shows the answer; 1-4 press Again/Hard/Good/Easy;
// Shift+0..5 sends an exact SM-2 grade; Z undoes; S suspends the card; E edits it in place (or
// suggests an edit of a lesson card), Esc leaves the editor; in cram, Right/Enter and Left move.
// A "type the answer" card takes the answer in its box first: Enter (or showing the answer) sends
// it for the comparison shown in the answer. After htmx swaps in the next card, focus moves to it
// and the live region says which card it is.
(function () {
  "use strict";

  function typing(event) {
    var el = event.target;
    return el && (el.isContentEditable || /^(INPUT|TEXTAREA|SELECT)$/.test(el.tagName));
  }

  function click(selector) {
    var el = document.querySelector(selector);
    if (el && !el.disabled) {
      // A key can beat htmx to freshly swapped content; make sure the form is wired first.
      var form = el.closest("form");
      if (form && window.htmx) window.htmx.process(form);
      el.click();
      return true;
    }
    return false;
  }

  function reveal() {
    var answer = document.getElementById("review-answer") || document.getElementById("cram-answer");
    if (!answer || answer.open) return false;
    var typed = document.getElementById("typed-form");
    if (typed && typed.dataset.sent !== "1") {
      typed.dataset.sent = "1";
      if (window.htmx) window.htmx.process(typed);
      typed.requestSubmit();
    }
    answer.open = true;
    var back = document.getElementById("review-back") || document.getElementById("cram-back");
    if (back) back.focus();
    announce(touch() ? "Answer shown. Choose Again, Hard, Good or Easy." : "Answer shown. Grade with 1 to 4.");
    return true;
  }

  function touch() {
    return window.matchMedia && window.matchMedia("(hover: none) and (pointer: coarse)").matches;
  }

  // A tap (or click) anywhere on an unrevealed card shows its answer, unless it lands on a link or
  // a control of its own.
  document.addEventListener("click", function (event) {
    var card = event.target.closest && event.target.closest("#review-card, #cram-card, #plan-card");
    if (!card || event.target.closest("a, button, summary, input, label, select, textarea")) return;
    if (reveal()) event.preventDefault();
  });

  function revealed() {
    var answer = document.getElementById("review-answer");
    return answer && answer.open;
  }

  function announce(text) {
    var status = document.getElementById("review-status");
    if (status && text) {
      status.textContent = "";
      window.setTimeout(function () { status.textContent = text; }, 30);
    }
  }

  // Enter in the typed-answer box sends it and shows the answer (the form's own submit, which
  // htmx sends, is the one request).
  document.addEventListener("submit", function (event) {
    if (event.target.id !== "typed-form") return;
    event.target.dataset.sent = "1";
    window.setTimeout(reveal, 0);
  });
  // Showing the answer by tapping "Show answer" sends the typed answer too.
  document.addEventListener("toggle", function (event) {
    if (event.target.id === "review-answer" && event.target.open) {
      var typed = document.getElementById("typed-form");
      if (typed && typed.dataset.sent !== "1") {
        typed.dataset.sent = "1";
        if (window.htmx) window.htmx.process(typed);
        typed.requestSubmit();
      }
    }
  }, true);

  document.addEventListener("keydown", function (event) {
    if (event.key === "Escape" && document.getElementById("cancel-edit")) {
      event.preventDefault();
      click("#cancel-edit");
      return;
    }
    if (event.ctrlKey || event.metaKey || event.altKey || typing(event)) return;
    var handled = false;
    var digit = /^Digit([0-9])$/.exec(event.code || "");
    if (event.key === " " || event.code === "Space") {
      // Space on a focused button is the button's own business.
      if (event.target.tagName !== "BUTTON" && event.target.tagName !== "SUMMARY") {
        handled = reveal();
      }
    } else if (digit && event.shiftKey) {
      if (revealed() || reveal()) handled = click('[data-grade="' + digit[1] + '"]');
    } else if (/^[1-4]$/.test(event.key)) {
      if (revealed()) handled = click('.grade-buttons [data-key="' + event.key + '"]');
    } else if (event.key === "z" || event.key === "Z") {
      handled = click("#undo");
    } else if (event.key === "s" || event.key === "S") {
      handled = click("#suspend");
    } else if (event.key === "e" || event.key === "E") {
      handled = click("#edit-card");
    } else if (event.key === "ArrowRight" || event.key === "Enter") {
      handled = event.key === "ArrowRight" ? click("#cram-next") : false;
    } else if (event.key === "ArrowLeft") {
      handled = click("#cram-prev");
    }
    if (handled) event.preventDefault();
  });

  document.body.addEventListener("htmx:afterSwap", function (event) {
    var root = event.detail.target;
    if (root && root.id === "review-card") {  // the editor in place of the card: write in it
      var editor = document.getElementById("card-editor");
      if (window.htmx && editor) window.htmx.process(editor);
      var first = editor && editor.querySelector("textarea");
      if (first) first.focus();
      return;
    }
    if (!root || (root.id !== "review" && root.id !== "cram" && root.id !== "plan")) return;
    var swapped = document.getElementById(root.id) || root;
    // htmx wires swapped-in forms only when the swap settles (20 ms later, longer on a slow
    // phone); a tap on Good before then would post the plain form and reload the page. Wire now.
    if (window.htmx) window.htmx.process(swapped);
    var card = document.getElementById("review-card") || document.getElementById("cram-card") ||
      document.getElementById("plan-card");
    var typedBox = document.getElementById("typed-answer");
    var editorBox = document.querySelector("#card-editor textarea");
    if (editorBox) editorBox.focus();
    else if (typedBox) typedBox.focus();
    else if (card) card.focus({ preventScroll: false });
    announce(swapped.getAttribute("data-announce"));
  });

  // A double tap or a second key press while a grade is in flight sends nothing more (the
  // server would replay the same client_id anyway).
  document.body.addEventListener("htmx:beforeRequest", function (event) {
    var form = event.detail.elt && event.detail.elt.closest && event.detail.elt.closest("form");
    // A field's own request (the editor's live preview) is not the form being sent.
    if (form && event.detail.elt !== form && !event.detail.elt.matches("button")) return;
    if (form && form.dataset.sending === "1") {
      event.preventDefault();
      return;
    }
    if (form) form.dataset.sending = "1";
  });
  document.body.addEventListener("htmx:afterRequest", function (event) {
    var form = event.detail.elt && event.detail.elt.closest && event.detail.elt.closest("form");
    if (form && event.detail.elt !== form && !event.detail.elt.matches("button")) return;
    if (form) delete form.dataset.sending;
  });

  // A "type the answer" card on a fresh page: the box takes the keys.
  var typedBox = document.getElementById("typed-answer");
  if (typedBox) typedBox.focus();
})();

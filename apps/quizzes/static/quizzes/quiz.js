// The knowledge check's page script: the submit guard and the countdown.
(function () {
  const form = document.getElementById("quiz-form");
  if (!form) return;

  // Answers autosave on every change (htmx). Once the form is submitted, a save still in flight
  // must not land: the server would find the attempt closed and answer with a client redirect,
  // which cancels the submit's own navigation. The submit carries every answer anyway.
  let submitted = false;
  form.addEventListener("submit", function () {
    submitted = true;
    htmx.trigger(form, "htmx:abort");
  });
  form.addEventListener("htmx:confirm", function (event) {
    if (submitted) event.preventDefault();
  });
  form.addEventListener("htmx:beforeOnLoad", function (event) {
    if (submitted) event.preventDefault();
  });

  // Countdown. The server keeps the real deadline (anything after it is ignored); this only shows
  // the time and submits at zero.
  const timer = document.getElementById("timer");
  if (!timer) return;
  const text = document.getElementById("timer-text");
  const end = Date.now() + Number(timer.dataset.secondsLeft) * 1000;
  let announced = false;
  function tick() {
    const left = Math.max(0, Math.round((end - Date.now()) / 1000));
    const minutes = Math.floor(left / 60);
    const seconds = String(left % 60).padStart(2, "0");
    text.textContent = minutes + ":" + seconds;
    if (left <= 60 && !announced) {
      announced = true;
      timer.setAttribute("aria-live", "assertive");
      timer.classList.add("timer-low");
    }
    if (left === 0) {
      form.requestSubmit();
      return;
    }
    setTimeout(tick, 500);
  }
  tick();
})();

// Knowledge-check countdown. The server keeps the real deadline (answers are autosaved on every
// change and anything after the deadline is ignored); this only shows the time and submits at zero.
(function () {
  const timer = document.getElementById("timer");
  const form = document.getElementById("quiz-form");
  if (!timer || !form) return;
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

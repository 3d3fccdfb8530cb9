// Sign-up: fill the hidden time_zone field with the browser's IANA zone (e.g. "Europe/Berlin"),
// so "today" and quiz deadlines follow the learner's clock from the first day. The server checks
// the name against zoneinfo and falls back to UTC.
(function () {
  "use strict";
  var zone = "";
  try {
    zone = Intl.DateTimeFormat().resolvedOptions().timeZone || "";
  } catch (e) {
    return;
  }
  document.querySelectorAll("input[data-browser-time-zone]").forEach(function (input) {
    if (!input.value) input.value = zone;
  });
  var shown = document.getElementById("time-zone-name");
  if (shown && zone) shown.textContent = zone;
})();

-- wrk script for bench/study_load.py: each wrk thread is a learner going round the review
-- loop on the review page as htmx does it: POST a grade, get the next card's fragment back,
-- read its card id and client_id, grade it, and so on. When a learner is done for the day
-- (default limits), the thread takes the next learner. Run with -t N -c N.
-- STUDY_CREDS: a file with one "<sessionid> <csrftoken>" line per learner; STUDY_DECK: deck slug.

local counter = 0

function setup(thread)
  counter = counter + 1
  thread:set("index", counter)
end

function learner(k)
  local line = lines[((k - 1) % #lines) + 1]
  session, csrf = line:match("(%S+) (%S+)")
  cookie = "sessionid=" .. session .. "; csrftoken=" .. csrf
end

function init(args)
  lines = {}
  for line in io.lines(os.getenv("STUDY_CREDS")) do
    if line ~= "" then table.insert(lines, line) end
  end
  stride = tonumber(os.getenv("STUDY_THREADS") or "1")
  current = index
  learner(current)
  path = "/study/review/" .. os.getenv("STUDY_DECK") .. "/"
  grades = {4, 5, 3, 4, 4, 1, 5, 4}
  n, empty, bad = 0, 0, 0
  card, client_id = nil, nil
end

function request()
  local headers = {["Cookie"] = cookie, ["X-CSRFToken"] = csrf, ["HX-Request"] = "true"}
  if card == nil then
    return wrk.format("GET", path, headers)
  end
  n = n + 1
  headers["Content-Type"] = "application/x-www-form-urlencoded"
  local body = "card=" .. card .. "&grade=" .. grades[(n % #grades) + 1] .. "&client_id=" ..
    client_id .. "&done=" .. (n - 1)
  return wrk.format("POST", path, headers, body)
end

function response(status, headers, body)
  if status ~= 200 then
    bad = bad + 1
  end
  card = body:match('name="card" value="(%d+)"')
  client_id = body:match('name="client_id" value="([^"]+)"')
  if card == nil then
    -- done for the day: the next request fetches the first card of the next learner
    empty = empty + 1
    current = current + stride
    learner(current)
  end
end

-- wrk script for bench/load_mix.py: a realistic mix where every wrk thread (one connection
-- each: run with -t N -c N) is a different learner. By weight:
--   review    35  POST /api/reviews/ grading the next card of the queue it last fetched
--                 (a fresh client_id each time); no card left -> it fetches the queue first
--   queue     30  GET /api/study/queue/?deck=
--   quiz       5  GET /api/quizzes/<slug>/ (starts the timed attempt), then POST answers
--   dashboard  5  GET /teams/<slug>/ as the learner's team lead (session cookie)
--   poll      20  GET /api/demo-runs/<finished>/?since=N (10), the run page's htmx poll on a
--                 running run with nothing new (204, 8) or on a finished one (286 with the
--                 final fragment, 2)
-- LOAD_WEIGHTS overrides the weights (review,queue,quiz,dashboard,poll_api,poll_204,poll_286).
-- A learner whose queue comes back empty is done for the day: the thread takes the next one.
-- LOAD_LEARNERS: "<token> <sessionid> <finished run> <running run> <team no>" per line;
-- LOAD_LEADS: "<token> <sessionid> <team slug>" per line; LOAD_QUIZZES: "<slug> <json body>".
-- Status codes are counted per endpoint and class and printed as ENDPOINT lines by done().

local counter = 0
local threads = {}

function setup(thread)
  counter = counter + 1
  thread:set("index", counter)
  table.insert(threads, thread)
end

local function read_lines(name)
  local out = {}
  for line in io.lines(os.getenv(name)) do
    if line ~= "" then table.insert(out, line) end
  end
  return out
end

local function fields(line)
  local out = {}
  for word in line:gmatch("%S+") do table.insert(out, word) end
  return out
end

local function take_learner(k)
  local f = fields(learners[((k - 1) % #learners) + 1])
  me = {token = f[1], session = f[2], done_run = f[3], live_run = f[4], team = tonumber(f[5])}
  local l = fields(leads[((me.team - 1) % #leads) + 1])
  lead = {token = l[1], session = l[2], slug = l[3]}
  cards = {}
  fetched = false
end

function init(args)
  learners = read_lines("LOAD_LEARNERS")
  leads = read_lines("LOAD_LEADS")
  quizzes = {}
  for _, line in ipairs(read_lines("LOAD_QUIZZES")) do
    local slug, body = line:match("^(%S+) (.+)$")
    table.insert(quizzes, {slug = slug, body = body})
  end
  deck = os.getenv("LOAD_DECK")
  stride = tonumber(os.getenv("LOAD_THREADS") or "1")
  math.randomseed(index * 7919 + os.time())
  current = index
  take_learner(current)
  grades = {4, 5, 3, 4, 1, 4, 5, 2, 4, 3}
  -- LOAD_WEIGHTS: review, queue, quiz, dashboard, API poll, page poll 204, page poll 286
  local weights = {}
  for w in (os.getenv("LOAD_WEIGHTS") or "35,30,5,5,10,8,2"):gmatch("%d+") do
    table.insert(weights, tonumber(w))
  end
  cut, total_weight = {}, 0
  for i, w in ipairs(weights) do
    total_weight = total_weight + w
    cut[i] = total_weight
  end
  n, serial = 0, 0
  pending = nil -- a request that must follow the last one (the quiz's answers)
  last = nil
  switched = 0
  shown = 0
end

local function api(method, path, body)
  local headers = {["Authorization"] = "Token " .. me.token, ["Accept"] = "application/json"}
  if body then headers["Content-Type"] = "application/json" end
  return wrk.format(method, path, headers, body)
end

local function page(session, path)
  local headers = {["Cookie"] = "sessionid=" .. session, ["HX-Request"] = "true"}
  return wrk.format("GET", path, headers)
end

local function uuid()
  serial = serial + 1
  return string.format("%08x-%04x-4%03x-8%03x-%012x", index, math.random(0, 65535),
    math.random(0, 4095), math.random(0, 4095), serial * 65536 + math.random(0, 65535))
end

local function queue()
  last = "queue"
  return api("GET", "/api/study/queue/?deck=" .. deck)
end

function request()
  if pending then
    local req = pending
    pending = nil
    last = "quiz_post"
    return req
  end
  local r = math.random(total_weight)
  if r <= cut[1] then
    if #cards == 0 then return queue() end
    n = n + 1
    local card = table.remove(cards, 1)
    last = "review"
    local body = string.format('{"card":%s,"grade":%d,"client_id":"%s","duration_ms":%d}',
      card, grades[(n % #grades) + 1], uuid(), 2000 + math.random(0, 8000))
    return api("POST", "/api/reviews/", body)
  elseif r <= cut[2] then
    return queue()
  elseif r <= cut[3] then
    -- the answers go once the GET's answer is in (wrk calls request() once before the run
    -- to check the script, and throws that request away)
    quiz = quizzes[math.random(#quizzes)]
    last = "quiz_get"
    return api("GET", "/api/quizzes/" .. quiz.slug .. "/")
  elseif r <= cut[4] then
    last = "dashboard"
    return page(lead.session, "/teams/" .. lead.slug .. "/")
  elseif r <= cut[5] then
    last = "poll_api"
    return api("GET", "/api/demo-runs/" .. me.done_run .. "/?since=" .. math.random(0, 40))
  elseif r <= cut[6] then
    last = "poll_204"
    return page(me.session, "/demos/runs/" .. me.live_run .. "/?seq=10&status=running")
  else
    last = "poll_286"
    return page(me.session, "/demos/runs/" .. me.done_run .. "/?seq=38&status=running")
  end
end

function response(status, headers, body)
  local kind = last
  -- flat global counters: wrk's thread:get() copies numbers, not tables, safely
  local class = math.floor(status / 100)
  if class < 2 or class > 5 then class = 6 end
  local key = "n_" .. kind .. "_" .. class
  _G[key] = (_G[key] or 0) + 1
  if kind == "quiz_get" then -- what the quiz's GET said about the attempt it started
    started = body:match('"attempt":%s*(%b{})') or body:match('"attempt":%s*(%a+)') or "?"
    if status == 200 then
      pending = api("POST", "/api/quizzes/" .. quiz.slug .. "/attempts/", quiz.body)
    end
  end
  if class >= 4 and shown < 3 then -- the first few refusals, to say why
    shown = shown + 1
    local note = kind == "quiz_post" and (" (its GET: attempt " .. started:sub(1, 160) .. ")") or ""
    io.write(string.format("REFUSED %s %d %s%s\n", kind, status,
      (body:sub(1, 300):gsub("%s+", " ")), note))
  end
  if kind == "queue" and status == 200 then
    cards = {}
    -- the queue's card entries: {"id":123,"slug":...}; counts and states have no "id"
    for id in body:gmatch('"id":%s*(%d+),%s*"slug"') do table.insert(cards, id) end
    if #cards == 0 then
      switched = switched + 1
      current = current + stride
      take_learner(current)
    end
  end
end

local KINDS = {"review", "queue", "quiz_get", "quiz_post", "dashboard", "poll_api", "poll_204",
  "poll_286"}

function done(summary, latency, requests)
  local moved = 0
  for _, thread in ipairs(threads) do moved = moved + (thread:get("switched") or 0) end
  for _, kind in ipairs(KINDS) do
    local t = {0, 0, 0, 0, 0, 0}
    for _, thread in ipairs(threads) do
      for class = 2, 6 do
        t[class] = t[class] + (thread:get("n_" .. kind .. "_" .. class) or 0)
      end
    end
    t[1] = t[2] + t[3] + t[4] + t[5] + t[6]
    io.write(string.format("ENDPOINT %s %d %d %d %d %d %d\n", kind, t[1], t[2], t[3], t[4],
      t[5], t[6]))
  end
  io.write(string.format("LEARNERS_DONE %d\n", moved))
end

-- wrk script for bench/study_load.py: GET STUDY_PATH, where "{id}" becomes a random integer in
-- [STUDY_ID_MIN, STUDY_ID_MAX]; thread i sends the API token on line i of STUDY_TOKENS (if set,
-- wrapping round), so threads are different learners.

local counter = 0

function setup(thread)
  counter = counter + 1
  thread:set("index", counter)
end

function init(args)
  template = os.getenv("STUDY_PATH")
  low = tonumber(os.getenv("STUDY_ID_MIN") or "1")
  high = tonumber(os.getenv("STUDY_ID_MAX") or "1")
  headers = {}
  local tokens = os.getenv("STUDY_TOKENS")
  if tokens and tokens ~= "" then
    local lines = {}
    for line in io.lines(tokens) do
      if line ~= "" then table.insert(lines, line) end
    end
    headers["Authorization"] = "Token " .. lines[((index - 1) % #lines) + 1]
  end
  math.randomseed(index * 7919)
end

function request()
  local path = template:gsub("{id}", tostring(math.random(low, high)))
  return wrk.format("GET", path, headers)
end

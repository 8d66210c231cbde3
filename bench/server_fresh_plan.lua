-- wrk script: POST /api/v1/plan with a config whose "samples" differs on every request (and per
-- thread), so each request misses the plan cache and is traced and planned from scratch.
-- Usage: wrk ... -s bench/server_fresh_plan.lua URL -- path/to/config.json
local thread_count = 0

function setup(thread)
  thread_count = thread_count + 1
  thread:set("thread_index", thread_count)
end

function init(args)
  local f = assert(io.open(args[1], "r"))
  config = f:read("*a")
  f:close()
  counter = thread_index * 100000000
end

function request()
  counter = counter + 1
  local body = '{"config": ' .. config .. ', "samples": ' .. counter .. '}'
  return wrk.format("POST", "/api/v1/plan", {["Content-Type"] = "application/json"}, body)
end

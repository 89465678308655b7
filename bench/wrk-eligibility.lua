-- wrk script for POST /v1/eligibility, configured by environment (wrk decides "static request or request()"
-- from the script's top level, before init(args) runs, so the mode has to be known there):
--   WRK_API_KEY=cek_... WRK_MODE=hot  WRK_MC=123456  wrk -t1 -c100 -d10s --latency -s bench/wrk-eligibility.lua URL
--   WRK_API_KEY=cek_... WRK_MODE=cold WRK_RANGE=1000000 wrk ... (same)
--   WRK_THINK_MS=10 (optional): each connection waits a random think time (exponential, this mean, whole ms: wrk's
--   unit) after every response before its next request, so the load is an offered rate (about connections ÷ mean
--   think time) rather than as much as the connections carry; wrk's latency excludes the wait.
-- hot: one fixed body; wrk pre-builds the request once, so the generator costs almost nothing per request.
-- cold: a random MC number in 1..WRK_RANGE per request, so most requests miss the service's carrier LRU.
local mode = os.getenv("WRK_MODE") or "hot"

wrk.method = "POST"
wrk.headers["content-type"] = "application/json"
local key = os.getenv("WRK_API_KEY")
if key and key ~= "" then wrk.headers["x-api-key"] = key end

if mode == "hot" then
  wrk.body = '{"mc_number":"' .. (os.getenv("WRK_MC") or "123456") .. '"}'
else
  local range = tonumber(os.getenv("WRK_RANGE") or "1000000")
  function init(args)
    -- Threads start within the same second; mix in the table address so they do not replay one sequence.
    math.randomseed(os.time() + (tonumber(tostring({}):match("0x(%x+)"), 16) or 0) % 1000003)
  end
  function request()
    return wrk.format(nil, nil, nil, '{"mc_number":"' .. math.random(1, range) .. '"}')
  end
end

local think_ms = tonumber(os.getenv("WRK_THINK_MS") or "0")
if think_ms > 0 then
  function delay()
    -- Exponential think times make the connections' requests arrive like independent callers (Poisson-like),
    -- not in lock-step bursts.
    return math.floor(-math.log(1 - math.random()) * think_ms + 0.5)
  end
end

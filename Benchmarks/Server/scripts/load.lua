-- wrk script of make bench-server: 90% GET /bookmarks?tag=…&limit=20, 10%
-- POST /bookmarks with a new url. Counts the 201s and the answers that are
-- not 2xx per thread, and prints one RESULT line at the end.
local labels = {"swift", "server", "sqlite", "linux", "web", "database", "http", "testing"}
local threads = {}

function setup(thread)
  thread:set("number", #threads + 1)
  table.insert(threads, thread)
end

function init(args)
  created = 0
  failed = 0
  sequence = 0
  math.randomseed(number * 7919 + os.time())
end

function request()
  sequence = sequence + 1
  if math.random() < 0.1 then
    local key = string.format("%d-%d-%d", number, sequence, math.random(1000000000))
    local body = string.format(
      '{"url":"https://load.example/%s","title":"Load %s","folder":"folder-%d","tags":["%s","%s"]}',
      key, key, math.random(0, 19), labels[math.random(#labels)], labels[math.random(#labels)])
    return wrk.format("POST", "/bookmarks", {["Content-Type"] = "application/json"}, body)
  end
  return wrk.format("GET", "/bookmarks?tag=" .. labels[math.random(#labels)] .. "&limit=20")
end

function response(status, headers, body)
  if status == 201 then
    created = created + 1
  elseif status < 200 or status > 299 then
    failed = failed + 1
  end
end

function done(summary, latency, requests)
  local c, f = 0, 0
  for _, thread in ipairs(threads) do
    c = c + thread:get("created")
    f = f + thread:get("failed")
  end
  local errors = summary.errors.connect + summary.errors.read + summary.errors.write + summary.errors.timeout
  io.write(string.format(
    "RESULT requests=%d seconds=%.2f rps=%.1f p50_ms=%.2f p99_ms=%.2f created=%d non2xx=%d socket_errors=%d\n",
    summary.requests, summary.duration / 1e6, summary.requests / (summary.duration / 1e6),
    latency:percentile(50) / 1000, latency:percentile(99) / 1000, c, f, errors))
end

-- wrk script of make bench-server, the mix people use:
--   70% GET /bookmarks?tag=…&limit=20
--   10% GET /bookmarks/{id} with If-None-Match (the ETag last seen for it;
--       a plain GET when none is known yet)
--   10% POST /bookmarks with a new url
--   10% PUT /bookmarks/{id} with If-Match (a replacement keeping its url)
-- Arguments after "--": the seeded row count and wrk's thread count. Each
-- thread reads and writes only the seeded ids of its own share (id % threads),
-- and never sends two requests on one id at once, so a 412 would be a real
-- lost update. Counts 201s, 304s and unexpected answers (not 2xx and not the
-- 304s asked for), and prints one RESULT line at the end.
local labels = {"swift", "server", "sqlite", "linux", "web", "database", "http", "testing"}
local threads = {}

function setup(thread)
  thread:set("number", #threads + 1)
  table.insert(threads, thread)
end

function init(args)
  created = 0
  notmodified = 0
  failed = 0
  sequence = 0
  seed = tonumber(args[1] or "10000")
  nthreads = tonumber(args[2] or "2")
  etags = {}     -- id -> the ETag last answered for it
  inflight = {}  -- id -> true while a request on it is unanswered
  math.randomseed(number * 7919 + os.time())
end

-- A seeded id of this thread's share, not in flight; nil after a few tries.
local function pick()
  for _ = 1, 4 do
    local id = math.random(0, math.floor(seed / nthreads) - 1) * nthreads + number
    if id <= seed and not inflight[id] then return id end
  end
  return nil
end

local function list()
  return wrk.format("GET", "/bookmarks?tag=" .. labels[math.random(#labels)] .. "&limit=20")
end

function request()
  sequence = sequence + 1
  local r = math.random()
  if r < 0.7 then
    return list()
  elseif r < 0.8 then
    local id = pick()
    if id == nil then return list() end
    inflight[id] = true
    if etags[id] then
      return wrk.format("GET", "/bookmarks/" .. id, {["If-None-Match"] = etags[id]})
    end
    return wrk.format("GET", "/bookmarks/" .. id)
  elseif r < 0.9 then
    local key = string.format("%d-%d-%d", number, sequence, math.random(1000000000))
    local body = string.format(
      '{"url":"https://load.example/%s","title":"Load %s","folder":"folder-%d","tags":["%s","%s"]}',
      key, key, math.random(0, 19), labels[math.random(#labels)], labels[math.random(#labels)])
    return wrk.format("POST", "/bookmarks", {["Content-Type"] = "application/json"}, body)
  else
    local id = pick()
    if id == nil then return list() end
    inflight[id] = true
    if etags[id] == nil then return wrk.format("GET", "/bookmarks/" .. id) end
    -- Seed row `id` has the url of seed index id - 1.
    local body = string.format(
      '{"url":"https://seed.example/%d","title":"Edited %d","folder":"folder-%d","tags":["%s","%s"]}',
      id - 1, sequence, math.random(0, 19), labels[math.random(#labels)], labels[math.random(#labels)])
    return wrk.format("PUT", "/bookmarks/" .. id, {["Content-Type"] = "application/json", ["If-Match"] = etags[id]}, body)
  end
end

function response(status, headers, body)
  local etag = headers["ETag"] or headers["etag"] or headers["Etag"]
  if etag == nil and status == 200 and body and string.sub(body, 1, 1) == "{" then
    -- A PUT answer carries no ETag (RFC 9110 §9.3.4): its body's id and
    -- version name the new one.
    local id, version = string.match(body, '"id":(%d+).*"version":(%d+)')
    if id then etag = '"' .. id .. '.' .. version .. '"' end
  end
  if etag then
    local id = tonumber(string.match(etag, '^"(%d+)%.'))
    if id then
      etags[id] = etag
      inflight[id] = nil
    end
  end
  if status == 201 then
    created = created + 1
  elseif status == 304 then
    notmodified = notmodified + 1
  elseif status < 200 or status > 299 then
    failed = failed + 1
  end
end

function done(summary, latency, requests)
  local c, n, f = 0, 0, 0
  for _, thread in ipairs(threads) do
    c = c + thread:get("created")
    n = n + thread:get("notmodified")
    f = f + thread:get("failed")
  end
  local errors = summary.errors.connect + summary.errors.read + summary.errors.write + summary.errors.timeout
  io.write(string.format(
    "RESULT requests=%d seconds=%.2f rps=%.1f p50_ms=%.2f p99_ms=%.2f created=%d notmodified=%d non2xx=%d socket_errors=%d\n",
    summary.requests, summary.duration / 1e6, summary.requests / (summary.duration / 1e6),
    latency:percentile(50) / 1000, latency:percentile(99) / 1000, c, n, f, errors))
end

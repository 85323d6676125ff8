-- wrk script of the crash run: only POST /bookmarks. Every 201's id and url
-- is appended to acked-<thread>.txt in $ACK_DIR and flushed at once, so the
-- list holds exactly the writes the server acknowledged before it died.
local threads = {}

function setup(thread)
  thread:set("number", #threads + 1)
  table.insert(threads, thread)
end

function init(args)
  sequence = 0
  file = io.open(os.getenv("ACK_DIR") .. "/acked-" .. number .. ".txt", "a")
end

function request()
  sequence = sequence + 1
  local key = string.format("%d-%d-%d", number, sequence, os.time())
  local body = string.format('{"url":"https://crash.example/%s","title":"Crash %s","folder":"crash","tags":["crash"]}', key, key)
  return wrk.format("POST", "/bookmarks", {["Content-Type"] = "application/json"}, body)
end

function response(status, headers, body)
  if status == 201 then
    local id = string.match(body, '"id":(%d+)')
    local url = string.match(body, '"url":"([^"]+)"')
    file:write(id .. " " .. url .. "\n")
    file:flush()
  end
end

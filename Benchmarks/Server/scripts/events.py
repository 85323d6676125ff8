#!/usr/bin/env python3
"""The /events figure of make bench-server: CLIENTS idle Server-Sent Events
clients and one writer committing COMMITS times (one POST each).

    events.py PORT PID [CLIENTS] [COMMITS]

Opens CLIENTS streams, waits for each one's snapshot, then POSTs COMMITS
bookmarks one after another while a thread drains every stream. Prints the
server's resident memory (VmRSS) before the clients, with them connected,
and after the commits; the server's CPU time during the commits; how long
the commits took; and whether every client saw the last count."""
import http.client, json, os, selectors, socket, sys, threading, time

port, pid = int(sys.argv[1]), int(sys.argv[2])
clients = int(sys.argv[3]) if len(sys.argv) > 3 else 200
commits = int(sys.argv[4]) if len(sys.argv) > 4 else 100
ticks = os.sysconf("SC_CLK_TCK")


def rss_kib():
    for line in open(f"/proc/{pid}/status"):
        if line.startswith("VmRSS:"):
            return int(line.split()[1])


def cpu_seconds():
    fields = open(f"/proc/{pid}/stat").read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / ticks


def request(method, path, body=None):
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
    headers = {"Content-Type": "application/json"} if body is not None else {}
    connection.request(method, path, body=json.dumps(body) if body is not None else None, headers=headers)
    response = connection.getresponse()
    data = response.read()
    connection.close()
    return response.status, data


start_count = json.loads(request("GET", "/bookmarks?limit=500")[1]).__len__()
rss_before = rss_kib()
streams = []
for _ in range(clients):
    s = socket.create_connection(("127.0.0.1", port), timeout=60)
    s.sendall(b"GET /events HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
    streams.append(s)
texts = {s: b"" for s in streams}
for s in streams:
    while b"event: snapshot" not in texts[s]:
        chunk = s.recv(65536)
        if not chunk:
            sys.exit("a stream closed before its snapshot")
        texts[s] += chunk
time.sleep(1)
rss_connected = rss_kib()

final = start_count + commits
done = threading.Event()


def drain():
    selector = selectors.DefaultSelector()
    for s in streams:
        s.setblocking(False)
        selector.register(s, selectors.EVENT_READ)
    while not done.is_set():
        for key, _ in selector.select(timeout=0.2):
            try:
                chunk = key.fileobj.recv(65536)
            except BlockingIOError:
                continue
            texts[key.fileobj] = (texts[key.fileobj] + chunk)[-4096:]


reader = threading.Thread(target=drain)
reader.start()
cpu_start, wall_start = cpu_seconds(), time.monotonic()
for index in range(commits):
    status, _ = request("POST", "/bookmarks", {"url": f"https://events.example/{index}-{time.time_ns()}",
                                               "title": f"E{index}", "folder": "events", "tags": ["e"]})
    if status != 201:
        sys.exit(f"POST answered {status}")
wall = time.monotonic() - wall_start
needle = f'"count":{final}'.encode()
deadline = time.monotonic() + 30
while time.monotonic() < deadline and not all(needle in t for t in texts.values()):
    time.sleep(0.05)
delivered = time.monotonic() - wall_start
cpu = cpu_seconds() - cpu_start
done.set()
reader.join()
saw = sum(1 for t in texts.values() if needle in t)
rss_after = rss_kib()
for s in streams:
    s.close()
print(f"EVENTS clients={clients} commits={commits} rss_before_kib={rss_before} rss_connected_kib={rss_connected} "
      f"rss_after_kib={rss_after} cpu_s={cpu:.2f} commits_s={wall:.2f} delivered_s={delivered:.2f} "
      f"clients_saw_last={saw}")

#!/usr/bin/env bash
# The driver of `make bench-server`:
#   Benchmarks/Server/scripts/run.sh BINARY
# For each engine (literecord, grdb, fluent) a store seeded with $SEED
# bookmarks through the engine's own POST path; then $ROUNDS rounds, the
# engines interleaved, each a copy of its seeded store served on 127.0.0.1 and
# loaded by wrk (scripts/load.lua: 70% GET by tag, 10% GET by id with
# If-None-Match, 10% POST, 10% PUT with If-Match) with $CONNECTIONS
# connections for $DURATION. On a machine with two cores or more the server
# runs on core 0 and wrk on core 1 (taskset), so the load generator never
# takes the server's CPU; the server then has one core. Before the rounds
# each engine prints its list-by-tag SQL and SQLite's plan for it. After each run GET /stats gives
# the rows stored, compared with the seed plus the 201s wrk counted (never
# fewer; at most one per connection more: the POSTs in flight when wrk stops,
# whose answers it does not count).
# Then the crash run (LiteRecord): POST only, SIGKILL mid-run, restart, and
# GET every acknowledged id. Prints a Markdown table; exits non-zero when a
# check fails.
set -euo pipefail
BIN=${1:?usage: run.sh BINARY}
HERE=$(cd "$(dirname "$0")" && pwd)
SEED=${SEED:-10000}
ROUNDS=${ROUNDS:-3}
DURATION=${DURATION:-20s}
CONNECTIONS=${CONNECTIONS:-64}
THREADS=${THREADS:-2}
ENGINES=${ENGINES:-literecord grdb fluent}
CRASH_AFTER=${CRASH_AFTER:-5}
WORK=$(mktemp -d "${TMPDIR:-/tmp}/bench-server-XXXXXX")
PIN_SERVER=""
PIN_LOAD=""
if command -v taskset >/dev/null && [ "$(nproc)" -ge 2 ]; then
    PIN_SERVER="taskset -c 0"
    PIN_LOAD="taskset -c 1"
fi
SERVER_PID=""
cleanup() {
    if [ -n "$SERVER_PID" ]; then kill -9 "$SERVER_PID" 2>/dev/null || true; fi
    rm -rf "$WORK"
}
trap cleanup EXIT

# start ENGINE STORE [extra args]: starts the server, sets SERVER_PID and PORT.
start() {
    local engine=$1 store=$2; shift 2
    $PIN_SERVER "$BIN" --engine "$engine" --port 0 --store "$store" "$@" > "$WORK/server.out" 2> "$WORK/server.err" &
    SERVER_PID=$!
    for _ in $(seq 1 1200); do
        if PORT=$(sed -n 's/^listening on 127.0.0.1:\([0-9]*\)$/\1/p' "$WORK/server.out" | head -1) && [ -n "$PORT" ]; then
            return 0
        fi
        if ! kill -0 "$SERVER_PID" 2>/dev/null; then
            echo "the $engine server exited:"; cat "$WORK/server.out" "$WORK/server.err"; exit 1
        fi
        sleep 0.1
    done
    echo "the $engine server did not start in 120 s"; exit 1
}

# stop: SIGTERM, and the exit status must be 0.
stop() {
    kill -TERM "$SERVER_PID"
    local status=0
    wait "$SERVER_PID" || status=$?
    SERVER_PID=""
    if [ "$status" -ne 0 ]; then echo "server exited with $status after SIGTERM"; cat "$WORK/server.err"; exit 1; fi
}

rows() { curl -sf "http://127.0.0.1:$PORT/stats" | python3 -c 'import json,sys; print(json.load(sys.stdin)["bookmarks"])'; }

echo "seeding $SEED bookmarks per engine"
for engine in $ENGINES; do
    start "$engine" "$WORK/$engine-seed.sqlite" --seed "$SEED"
    grep seeded "$WORK/server.out" | sed "s/^/  $engine: /"
    stop
done

echo
echo "the list by tag, per engine (the same plan in each):"
for engine in $ENGINES; do
    cp "$WORK/$engine-seed.sqlite" "$WORK/$engine-explain.sqlite"
    "$BIN" --engine "$engine" --store "$WORK/$engine-explain.sqlite" --explain | sed 's/^/  /'
done
echo

results="$WORK/results.txt"
: > "$results"
failed=0
for round in $(seq 1 "$ROUNDS"); do
    for engine in $ENGINES; do
        store="$WORK/$engine-round.sqlite"
        rm -f "$store" "$store-wal" "$store-shm"
        cp "$WORK/$engine-seed.sqlite" "$store"
        start "$engine" "$store"
        line=$($PIN_LOAD wrk -t"$THREADS" -c"$CONNECTIONS" -d"$DURATION" --latency -s "$HERE/load.lua" "http://127.0.0.1:$PORT" -- "$SEED" "$THREADS" | grep '^RESULT')
        stored=$(rows)
        stop
        created=$(sed 's/.* created=\([0-9]*\).*/\1/' <<< "$line")
        expected=$((SEED + created))
        echo "round $round $engine $line rows=$stored expected=$expected" | tee -a "$results"
        # wrk does not count the answers to the requests still in flight when
        # it stops, but the server may have committed them: at most one per
        # connection more than the 201s counted, never fewer.
        if [ "$stored" -lt "$expected" ] || [ "$stored" -gt $((expected + CONNECTIONS)) ]; then
            echo "  MISMATCH: $stored rows, expected $expected (+ at most $CONNECTIONS in flight)"; failed=1
        fi
    done
done

echo
echo "| engine | round | requests/s | p50 ms | p99 ms | unexpected non-2xx | socket errors | 201s | 304s | rows after (seed + 201s) |"
echo "| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |"
while read -r _ round engine _ rest; do
    get() { sed "s/.* $1=\([^ ]*\).*/\1/" <<< " $rest"; }
    echo "| $engine | $round | $(get rps) | $(get p50_ms) | $(get p99_ms) | $(get non2xx) | $(get socket_errors) | $(get created) | $(get notmodified) | $(get rows) ($(get expected)) |"
done < "$results"
echo
echo "| engine | median requests/s | median p50 ms | median p99 ms |"
echo "| --- | --- | --- | --- |"
for engine in $ENGINES; do
    python3 - "$results" "$engine" <<'PY'
import re, statistics, sys
rows = [dict(re.findall(r"(\w+)=([\d.]+)", line)) for line in open(sys.argv[1]) if line.split()[2] == sys.argv[2]]
median = lambda key: statistics.median(float(r[key]) for r in rows)
print(f"| {sys.argv[2]} | {median('rps'):.0f} | {median('p50_ms'):.2f} | {median('p99_ms'):.2f} |")
PY
done

if [[ " $ENGINES " == *" literecord "* ]]; then
    echo
    echo "crash run: LiteRecord, POST only, $CONNECTIONS connections, SIGKILL after $CRASH_AFTER s"
    store="$WORK/crash.sqlite"
    acks="$WORK/acks"
    mkdir -p "$acks"
    start literecord "$store"
    ( sleep "$CRASH_AFTER"; kill -9 "$SERVER_PID" ) &
    killer=$!
    ACK_DIR="$acks" wrk -t"$THREADS" -c"$CONNECTIONS" -d"$((CRASH_AFTER + 2))s" -s "$HERE/crash.lua" "http://127.0.0.1:$PORT" > "$WORK/crash-wrk.txt" 2>&1 || true
    wait "$killer" || true
    wait "$SERVER_PID" 2>/dev/null || true
    SERVER_PID=""
    start literecord "$store"
    python3 - "$acks" "$PORT" <<'PY' || failed=1
import glob, http.client, json, sys
acks = [line.split() for path in glob.glob(sys.argv[1] + "/acked-*.txt") for line in open(path) if line.strip()]
connection = http.client.HTTPConnection("127.0.0.1", int(sys.argv[2]), timeout=30)
missing = 0
for id, url in acks:
    connection.request("GET", f"/bookmarks/{id}")
    response = connection.getresponse()
    body = response.read()
    if response.status != 200 or json.loads(body)["url"] != url:
        missing += 1
connection.request("GET", "/stats")
rows = json.loads(connection.getresponse().read())["bookmarks"]
print(f"acknowledged writes (201) checked: {len(acks)}; missing or different after restart: {missing}; rows in the store: {rows}")
sys.exit(1 if missing or not acks else 0)
PY
    stop
fi
exit "$failed"

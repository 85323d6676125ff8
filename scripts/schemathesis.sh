#!/usr/bin/env bash
# Runs Schemathesis (`make schemathesis`) against the built bookmarks-server,
# as `make example-server` does:
#   scripts/schemathesis.sh PATH/TO/bookmarks-server
# The server is started on 127.0.0.1 with a port the system picks, a fresh
# temporary store and a write token (sent by Schemathesis on every request);
# Schemathesis reads the document the server publishes (GET /openapi.json) and
# runs every check in every phase (examples, coverage, fuzzing, stateful) with
# a fixed seed, a bounded number of examples per operation and a time budget.
# The server is stopped with SIGTERM and must exit 0. The exit status is
# Schemathesis's when it failed, 1 when the server did not start or stop
# cleanly, 0 otherwise.
#
# SCHEMATHESIS_SEED, SCHEMATHESIS_MAX_EXAMPLES and SCHEMATHESIS_MAX_TIME
# (seconds) change the bounds; SCHEMATHESIS_REPORT_DIR keeps the reports.
set -uo pipefail
# Paths as the caller gave them, made absolute before the cd below.
absolute() { case "$1" in "" | /*) echo "$1" ;; *) echo "$PWD/$1" ;; esac; }
binary=$(absolute "${1:-}")
report_dir=$(absolute "${SCHEMATHESIS_REPORT_DIR:-}")
cd "$(dirname "$0")/.."
root=$(pwd)

if [ -z "$binary" ] || [ ! -x "$binary" ]; then
    echo "usage: $0 PATH/TO/bookmarks-server (built: cd Examples/Bookmarks && swift build)" >&2
    exit 2
fi
schemathesis=$root/.build-tools/schemathesis/bin/schemathesis
if [ ! -x "$schemathesis" ]; then
    echo "$schemathesis is missing: run make schemathesis" >&2
    exit 2
fi

seed=${SCHEMATHESIS_SEED:-63}
max_examples=${SCHEMATHESIS_MAX_EXAMPLES:-40}
max_time=${SCHEMATHESIS_MAX_TIME:-180}

work=$(mktemp -d "${TMPDIR:-/tmp}/bookmarks-schemathesis-XXXXXX") || exit 2
server_pid=""
cleanup() {
    if [ -n "$server_pid" ] && kill -0 "$server_pid" 2>/dev/null; then
        kill -KILL "$server_pid" 2>/dev/null
        wait "$server_pid" 2>/dev/null
    fi
    rm -rf "$work"
}
trap cleanup EXIT

token="schemathesis-$(od -An -N12 -tx1 /dev/urandom | tr -d ' \n')"
# Warnings and up: a run's every request would otherwise be a line.
BOOKMARKS_TOKENS="$token" "$binary" --port 0 --store "$work/Bookmarks.sqlite" --log-level warning \
    --heartbeat 1 --shutdown-timeout 10 >"$work/server.out" 2>"$work/server.err" &
server_pid=$!

port=""
for _ in $(seq 1 300); do
    port=$(sed -n 's/^listening on 127\.0\.0\.1:\([0-9][0-9]*\)$/\1/p' "$work/server.out" | head -1)
    [ -n "$port" ] && break
    if ! kill -0 "$server_pid" 2>/dev/null; then break; fi
    sleep 0.1
done
if [ -z "$port" ]; then
    echo "[schemathesis] bookmarks-server did not start within 30 s:" >&2
    cat "$work/server.out" "$work/server.err" >&2
    exit 1
fi
echo "[schemathesis] bookmarks-server on 127.0.0.1:$port, store $work/Bookmarks.sqlite"

report_args=()
if [ -n "$report_dir" ]; then
    report_args=(--report junit,ndjson --report-dir "$report_dir")
fi

started=$(date +%s)
# One worker: with the seed, the same requests in the same order each run.
# Run in the temporary folder: Schemathesis and Hypothesis keep caches
# (.schemathesis/, .hypothesis/) in the current directory.
(cd "$work" && "$schemathesis" --config-file "$root/scripts/schemathesis.toml" run "http://127.0.0.1:$port/openapi.json" \
    --checks all --phases examples,coverage,fuzzing,stateful \
    --seed "$seed" --max-examples "$max_examples" --max-time "$max_time" \
    --workers 1 --request-timeout 10 --generation-database none \
    --header "Authorization: Bearer $token" \
    --no-color "${report_args[@]}")
status=$?
echo "[schemathesis] exit $status after $(( $(date +%s) - started )) s (seed $seed, at most $max_examples examples per operation, $max_time s)"

kill -TERM "$server_pid"
server_status=""
for _ in $(seq 1 150); do
    if ! kill -0 "$server_pid" 2>/dev/null; then
        wait "$server_pid"
        server_status=$?
        break
    fi
    sleep 0.1
done
server_pid_was=$server_pid
server_pid=""
if [ "$server_status" != "0" ]; then
    echo "[schemathesis] bookmarks-server (pid $server_pid_was) did not exit 0 within 15 s of SIGTERM (status ${server_status:-still running}):" >&2
    cat "$work/server.err" >&2
    [ -z "$server_status" ] && kill -KILL "$server_pid_was" 2>/dev/null
    [ "$status" -ne 0 ] && exit "$status"
    exit 1
fi
if [ -s "$work/server.err" ]; then
    echo "[schemathesis] the server's warnings and errors:"
    head -50 "$work/server.err"
fi
exit "$status"

#!/usr/bin/env bash
# The driver of `make bench-events`:
#   Benchmarks/Server/scripts/events.sh COMMAND...
# COMMAND starts a server of the bookmarks routes that prints
# "listening on 127.0.0.1:PORT"; "{store}" in it becomes a fresh store path
# and "{port}" 0. Then events.py: $CLIENTS /events streams (200), $COMMITS
# POSTs (100), the server's memory and CPU before and after.
set -euo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
WORK=$(mktemp -d "${TMPDIR:-/tmp}/bench-events-XXXXXX")
PID=""
cleanup() {
    if [ -n "$PID" ]; then kill -9 "$PID" 2>/dev/null || true; fi
    rm -rf "$WORK"
}
trap cleanup EXIT
args=()
for argument in "$@"; do
    argument=${argument//\{store\}/$WORK/events.sqlite}
    args+=("${argument//\{port\}/0}")
done
ulimit -n 4096 2>/dev/null || true
"${args[@]}" > "$WORK/server.out" 2> "$WORK/server.err" &
PID=$!
PORT=""
for _ in $(seq 1 600); do
    PORT=$(sed -n 's/^listening on 127.0.0.1:\([0-9]*\)$/\1/p' "$WORK/server.out" | head -1)
    [ -n "$PORT" ] && break
    kill -0 "$PID" 2>/dev/null || { cat "$WORK/server.out" "$WORK/server.err"; exit 1; }
    sleep 0.1
done
[ -n "$PORT" ] || { echo "the server did not start"; exit 1; }
python3 "$HERE/events.py" "$PORT" "$PID" "${CLIENTS:-200}" "${COMMITS:-100}"
kill -TERM "$PID"
wait "$PID" || true
PID=""

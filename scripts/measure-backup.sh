#!/usr/bin/env bash
# Measures `literecord backup` on a store of about SIZE_MB megabytes (default
# 100), the figure Docs/Deployment.md quotes. Not a test: run it by hand after
# `swift build --build-tests` (the store is written by the tests' child
# executable, LiteRecordTestChild). The store is the demo's Note entity, filled with 4 KB notes
# through Python's sqlite3 module, with its -wal beside it as a running app
# leaves it.
#
#   scripts/measure-backup.sh [SIZE_MB]
set -euo pipefail
cd "$(dirname "$0")/.."
size_mb=${1:-100}
bin="$(swift build --show-bin-path)/literecord"
child="$(swift build --show-bin-path)/LiteRecordTestChild"
[ -x "$bin" ] && [ -x "$child" ] || { echo "build literecord and the test child first (swift build --build-tests)"; exit 1; }
work=$(mktemp -d "${TMPDIR:-/tmp}/literecord-backup-speed-XXXXXX")
trap 'rm -rf "$work"' EXIT
store="$work/store.sqlite"
# One save through LiteRecord makes the store and its schema.
"$child" crash-writer "$store" --batch 1 --saves 1 >/dev/null
python3 - "$store" "$size_mb" <<'PY'
import os, sqlite3, sys
path, size_mb = sys.argv[1], int(sys.argv[2])
db = sqlite3.connect(path)
body = "x" * 4000
rows = size_mb * 1024 * 1024 // 4200
with db:
    db.executemany(
        "INSERT INTO Note (title, body, stars, createdAt) VALUES (?, ?, ?, 0)",
        (("note-%d" % i, body, i % 5) for i in range(rows)))
db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
db.close()
print("store: %d notes, %.1f MB" % (rows, os.path.getsize(path) / 1e6))
PY
"$bin" backup "$store" "$work/copy.sqlite"
"$bin" check "$work/copy.sqlite"

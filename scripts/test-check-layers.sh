#!/usr/bin/env bash
# Proves scripts/check-layers.sh on copies of the sources: the tree as it is
# passes; it fails on a probe that makes SQLite/ name RecordContext (an
# upward use not listed), on a folder missing from Docs/Layout.md's table,
# and on an exception that is no longer used. Takes a second; `make test`
# runs it.
set -uo pipefail
cd "$(dirname "$0")/.."
check="$PWD/scripts/check-layers.sh"
work=$(mktemp -d "${TMPDIR:-/tmp}/literecord-check-layers-test-XXXXXX")
trap 'rm -rf "$work"' EXIT
failures=0
fail() { echo "FAIL: $*"; failures=$((failures + 1)); }

copy() {
    mkdir -p "$work/$1/Docs" "$work/$1/scripts/lib"
    cp -R Sources "$work/$1/Sources"
    cp Docs/Layout.md "$work/$1/Docs/"
    cp scripts/lib/layer_exceptions.txt "$work/$1/scripts/lib/"
}

expect_failure() {
    output=$("$check" "$work/$1" 2>&1)
    status=$?
    if [ "$status" -eq 0 ]; then fail "$1: the check passed"; return; fi
    grep -qE "$2" <<<"$output" || fail "$1: the output does not say /$2/: $output"
    echo "[test-check-layers] $1 fails as it should: $(grep -E "$2" <<<"$output" | head -1)"
}

copy clean
"$check" "$work/clean" >/dev/null || fail "the tree as it is does not pass: $("$check" "$work/clean")"

copy upward
cat >>"$work/upward/Sources/LiteRecord/SQLite/Statement.swift" <<'SWIFT'

extension Statement {
    func probe(_ context: RecordContext) {}
}
SWIFT
expect_failure upward 'SQLite/Statement.swift: SQLite/ uses RecordContext of Context/'

copy unmapped
mkdir -p "$work/unmapped/Sources/LiteRecord/Sync"
echo 'struct SyncProbe {}' >"$work/unmapped/Sources/LiteRecord/Sync/SyncProbe.swift"
expect_failure unmapped 'Sync/ is not in Docs/Layout.md'

copy stale
echo 'SQL -> Stack: RecordStack  # a probe: no such use' >>"$work/stale/scripts/lib/layer_exceptions.txt"
expect_failure stale 'SQL -> Stack: RecordStack is no longer used'

if [ "$failures" -ne 0 ]; then echo "[test-check-layers] $failures failure(s)"; exit 1; fi
echo "[test-check-layers] ok: the check passes the tree and fails each of 3 probes"

#!/usr/bin/env bash
# Proves scripts/check-format.sh on a small copy (one folder of Sources/ and
# one of Tests/; `make test` checks the whole tree just before): the copy
# passes; a probe written against .swift-format (two-space indentation, a
# blank-line run, an unsorted import) fails, naming its file. `make test`
# runs it.
set -uo pipefail
cd "$(dirname "$0")/.."
check="$PWD/scripts/check-format.sh"
work=$(mktemp -d "${TMPDIR:-/tmp}/literecord-check-format-test-XXXXXX")
trap 'rm -rf "$work"' EXIT
failures=0
fail() { echo "FAIL: $*"; failures=$((failures + 1)); }

mkdir -p "$work/Sources/LiteRecord" "$work/Tests/LiteRecordTests"
cp -R Sources/LiteRecord/Support "$work/Sources/LiteRecord/"
cp -R Tests/LiteRecordTests/SQL "$work/Tests/LiteRecordTests/"
"$check" "$work" >/dev/null || fail "the tree as it is does not pass: $("$check" "$work" | tail -3)"

cat >"$work/Sources/LiteRecord/Support/FormatProbe.swift" <<'SWIFT'
import Foundation
import Dispatch

func formatProbe() -> Int {
  let value = 1


  return value
}
SWIFT
output=$("$check" "$work" 2>&1)
if [ $? -eq 0 ]; then
    fail "the probe passed the check"
elif ! grep -q 'Sources/LiteRecord/Support/FormatProbe.swift: [0-9]* lines would change' <<<"$output"; then
    fail "the output does not name the probe: $output"
else
    echo "[test-check-format] a misformatted file fails as it should: $(grep FormatProbe <<<"$output")"
fi

[ "$failures" -eq 0 ] || exit 1

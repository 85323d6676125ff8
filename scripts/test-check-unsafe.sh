#!/usr/bin/env bash
# Proves scripts/check-unsafe.sh on copies of the sources: the tree as it is
# passes; a probe fails it, naming the file and line, for each of the three
# ways a use can break the fence (Docs/Internals/UnsafeSwift.md):
#   1. unsafeBitCast in a file outside the construct's fence;
#   2. a fenced construct in an allowed file without an `unsafe(<rule>)` tag;
#   3. a tag naming a rule the page does not define.
# Takes a second; `make test` runs it.
set -uo pipefail
cd "$(dirname "$0")/.."
check="$PWD/scripts/check-unsafe.sh"
work=$(mktemp -d "${TMPDIR:-/tmp}/literecord-check-unsafe-test-XXXXXX")
trap 'rm -rf "$work"' EXIT
failures=0
fail() { echo "FAIL: $*"; failures=$((failures + 1)); }

# copy NAME: a fresh copy of Sources/ and the rules page under $work/NAME.
copy() {
    mkdir -p "$work/$1/Docs"
    cp -R Sources "$work/$1/Sources"
    cp -R Docs/Internals "$work/$1/Docs/Internals"
}

# expect_failure NAME PATTERN: the check fails on $work/NAME and says PATTERN.
expect_failure() {
    output=$("$check" "$work/$1" 2>&1)
    status=$?
    if [ "$status" -eq 0 ]; then fail "$1: the check passed"; return; fi
    grep -qE "$2" <<<"$output" || fail "$1: the output does not say /$2/: $output"
    echo "[test-check-unsafe] $1 fails as it should: $(grep -E "$2" <<<"$output" | head -1)"
}

copy clean
"$check" "$work/clean" >/dev/null || fail "the tree as it is does not pass: $("$check" "$work/clean")"

copy outside
cat >>"$work/outside/Sources/LiteRecord/Query/SortTranslator.swift" <<'SWIFT'

// unsafe(same-layout): a probe outside the fence.
func probeBits(_ value: Double) -> UInt64 { unsafeBitCast(value, to: UInt64.self) }
SWIFT
expect_failure outside 'Query/SortTranslator.swift:[0-9]+: unsafeBitCast outside its fence'

copy untagged
cat >>"$work/untagged/Sources/LiteRecord/Context/IdentityMap.swift" <<'SWIFT'

final class ProbeTable {
    @exclusivity(unchecked) var probe = 0
}
SWIFT
expect_failure untagged 'Context/IdentityMap.swift:[0-9]+: @exclusivity\(unchecked\) without a comment naming its rule'

copy unknown
cat >>"$work/unknown/Sources/LiteRecord/Context/IdentityMap.swift" <<'SWIFT'

final class ProbeTable {
    // unsafe(trust-me): no such rule.
    @exclusivity(unchecked) var probe = 0
}
SWIFT
expect_failure unknown 'Context/IdentityMap.swift:[0-9]+: @exclusivity\(unchecked\) without a comment naming its rule'

copy undocumented
python3 - "$work/undocumented/Docs/Internals/UnsafeSwift.md" <<'PY'
import sys
path = sys.argv[1]
text = open(path).read().replace("### `same-layout`", "### same layout (heading renamed by the probe)")
open(path, "w").write(text)
PY
expect_failure undocumented 'the rule `same-layout` has no'

if [ "$failures" -ne 0 ]; then echo "[test-check-unsafe] $failures failure(s)"; exit 1; fi
echo "[test-check-unsafe] ok: the check passes the tree and fails each of 4 probes"

#!/usr/bin/env bash
# Proves scripts/check-self-contained.sh: the repository as it is passes; a
# tree of probe files fails on each kind of citation (a note outside the
# repository by name, an issue by number, a bare "#58"), and passes on what
# the check leaves alone (another project's issue, CHANGELOG.md, a build
# folder). Takes well under a second; `make test` runs it.
set -uo pipefail
cd "$(dirname "$0")/.."
check="$PWD/scripts/check-self-contained.sh"
work=$(mktemp -d "${TMPDIR:-/tmp}/literecord-check-self-contained-test-XXXXXX")
trap 'rm -rf "$work"' EXIT
failures=0
fail() { echo "FAIL: $*"; failures=$((failures + 1)); }

"$check" >/dev/null || fail "the repository as it is does not pass: $("$check")"

# A tree whose one file holds $2 at $1: the check must fail and name it.
expect_failure() {
    local root="$work/$3"
    mkdir -p "$root/$(dirname "$1")"
    printf '%s\n' "$2" >"$root/$1"
    output=$("$check" "$root" 2>&1)
    if [ $? -eq 0 ]; then fail "$3: the check passed on $1: $2"; return; fi
    grep -qF "$1:1:" <<<"$output" || fail "$3: the output does not name $1: $output"
    echo "[test-check-self-contained] $3 fails as it should: $(head -1 <<<"$output")"
}

# A tree of files the check leaves alone: it must pass.
expect_pass() {
    local root="$work/$1"
    shift
    while [ $# -gt 0 ]; do
        mkdir -p "$root/$(dirname "$1")"
        printf '%s\n' "$2" >"$root/$1"
        shift 2
    done
    output=$("$check" "$root" 2>&1) || fail "$(basename "$root"): the check failed: $output"
}

# The names are put together so that this file does not hold them whole.
api="API"
issue="issue"
expect_failure Sources/LiteRecord/Model/Probe.swift "/// $api.md §10 loads a relationship on first access." note
expect_failure Tests/LiteRecordTests/Context/ProbeTests.swift "/// Found by the model (${issue} #58 item 9)." issue
expect_failure Docs/Probe.md "The run before #62 logged what caused it." bare
expect_failure Benchmarks/Probe/Package.swift "// The workload of Issue 31." number
expect_pass allowed \
    Sources/LiteRecord/Import/Probe.swift "// Dates as MagicalRecord read them (MagicalRecord #700, #964)." \
    Sources/LiteRecord/Context/Probe.swift "/// \`Author #3\` for a saved object." \
    CHANGELOG.md "- Relationships load on first access (#58)." \
    Examples/Probe/.build/checkouts/Dependency.swift "// ${issue} #12"

if [ "$failures" -ne 0 ]; then echo "[test-check-self-contained] $failures failure(s)"; exit 1; fi
echo "[test-check-self-contained] ok: the check passes the repository and what it leaves alone, and fails each of 4 probes"

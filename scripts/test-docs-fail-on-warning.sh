#!/usr/bin/env bash
# Proves that the documentation build fails on a DocC warning, and that
# the undocumented-symbol check fails on a public symbol without a summary:
#   1. an article with a broken symbol link, added for the run to
#      LiteRecord's catalog, must make scripts/build-docs.sh fail and be named;
#   2. a public function whose comment links to a missing symbol, added for
#      the run to LiteRecordTesting's sources, must fail the same way;
#   3. a public function with no comment at all must fail
#      scripts/check-doc-coverage.sh and be named;
#   4. with the probes removed, the build passes again.
# The plugin reads the catalog and sources where the package declares them,
# so the probes go there, and a trap removes them whatever happens. Archives
# are written to a temporary folder, never over .build/LiteRecord.doccarchive.
# `make docs-test` runs it.
set -euo pipefail
cd "$(dirname "$0")/.."
work=$(mktemp -d "${TMPDIR:-/tmp}/literecord-docs-probe-XXXXXX")
article=Sources/LiteRecord/LiteRecord.docc/DocsWarningProbe.md
source=Sources/LiteRecordTesting/DocsWarningProbe.swift
cleanup() { rm -f "$article" "$source"; rm -rf "$work"; }
trap cleanup EXIT
for probe in "$article" "$source"; do
    if [ -e "$probe" ]; then echo "error: $probe exists already; remove it first"; exit 1; fi
done

failures=0
expect_failure() { # name, log, needle, command...
    local name=$1 log=$2 needle=$3
    shift 3
    if "$@" >"$log" 2>&1; then
        echo "FAIL: $name: the build passed"; failures=$((failures + 1))
    elif ! grep -q "$needle" "$log"; then
        echo "FAIL: $name: the build failed without naming $needle:"; tail -20 "$log"; failures=$((failures + 1))
    else
        echo "ok: $name"
    fi
}

# 1. A broken symbol link in an article of the catalog.
cat >"$article" <<'EOF'
# A probe of the documentation build

Links to ``NoSuchSymbolInTheCatalog``, which does not exist.
EOF
expect_failure "broken link in a catalog article fails make docs" "$work/article.log" \
    NoSuchSymbolInTheCatalog ./scripts/build-docs.sh "$work/archive-1"
rm -f "$article"

# 2. A broken symbol link in a documentation comment.
cat >"$source" <<'EOF'
/// Links to ``NoSuchSymbolInTheSource``, which does not exist.
public func docsWarningProbe() {}
EOF
expect_failure "broken link in a documentation comment fails make docs" "$work/comment.log" \
    NoSuchSymbolInTheSource ./scripts/build-docs.sh "$work/archive-2"

# 3. A public symbol without a documentation comment.
cat >"$source" <<'EOF'
public func undocumentedDocsProbe() {}
EOF
swift build --target LiteRecordTesting >"$work/build.log" 2>&1 || { cat "$work/build.log"; exit 1; }
expect_failure "an undocumented public symbol fails the coverage check" "$work/coverage.log" \
    undocumentedDocsProbe ./scripts/check-doc-coverage.sh
rm -f "$source"

# 4. Without the probes, both pass again.
if ./scripts/build-docs.sh "$work/archive-3" >"$work/clean.log" 2>&1; then
    echo "ok: without the probes the documentation builds with no warning"
else
    echo "FAIL: the documentation fails without the probes:"; tail -20 "$work/clean.log"; failures=$((failures + 1))
fi

passed=$((4 - failures))
echo "$passed passed, $failures failed"
[ "$failures" -eq 0 ]

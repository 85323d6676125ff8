#!/usr/bin/env bash
# The library's layout rules that a compiler does not check
# (Docs/Internals/Invariants.md, "Layers call downward"):
# C (the CSQLite module) is imported only inside Sources/LiteRecord/SQLite/,
# the one layer that talks to libsqlite3; and the library's tests are shaped
# like its sources (Docs/Internals/Conventions.md, "Tests"): every file of
# Tests/LiteRecordTests lives in a folder named after the Sources/LiteRecord
# folder it tests (a subfolder of it may group one concern, as
# Context/Conflicts does), in CLI/ for Sources/LiteRecordCLI, or in one of
# the folders that cut across: Reliability/ (`make reliability`),
# Concurrency/, Support/ (shared fixtures, no suites).
set -euo pipefail
cd "$(dirname "$0")/.."
status=0
while IFS= read -r file; do
    case "$file" in
        Sources/LiteRecord/SQLite/*) ;;
        *) echo "$file imports CSQLite: C stays inside Sources/LiteRecord/SQLite/ (add what it needs to that layer)"; status=1 ;;
    esac
done < <(grep -rlE '^\s*(@_implementationOnly |internal |public |package )?import CSQLite' Sources/LiteRecord || true)
tests=Tests/LiteRecordTests
while IFS= read -r file; do
    rel=${file#"$tests"/}
    top=${rel%%/*}
    if [ "$top" = "$rel" ]; then
        echo "$file: a test file at the root of $tests; put it in the folder of the Sources/LiteRecord folder it tests"; status=1
    elif [ ! -d "Sources/LiteRecord/$top" ] && ! [[ $top =~ ^(CLI|Reliability|Concurrency|Support)$ ]]; then
        echo "$file: $tests/$top mirrors no Sources/LiteRecord folder (nor CLI, Reliability, Concurrency, Support)"; status=1
    fi
done < <(find "$tests" -name '*.swift' | sort)
if [ "$status" -eq 0 ]; then echo "[layout] ok: CSQLite is imported only in Sources/LiteRecord/SQLite/; the tests mirror Sources/LiteRecord"; fi
exit "$status"

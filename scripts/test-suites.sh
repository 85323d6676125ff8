#!/usr/bin/env bash
# Prints the test suites a Makefile target runs, as one `swift test --filter`
# pattern (names joined by `|`), derived from the test tree rather than kept
# by hand (Docs/Internals/Conventions.md, "Tests"):
#
#   scripts/test-suites.sh --folder DIR   the suites declared in files under
#                                         DIR (e.g. Tests/LiteRecordTests/Reliability)
#   scripts/test-suites.sh --tag NAME     the suites whose @Suite attribute
#                                         carries .tags(.NAME), in every test
#                                         target (e.g. threads: `make tsan`)
#
# A suite is a top-level `@Suite… struct|class|enum Name` declaration. It
# fails when nothing matches, so a renamed folder or tag cannot silently
# empty a run.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"

case ${1:-} in
    --folder) [ $# -eq 2 ] || { echo "usage: $0 --folder DIR | --tag NAME" >&2; exit 2; }
              dir=$2; [ -d "$dir" ] || dir=$root/$2
              [ -d "$dir" ] || { echo "test-suites: no folder $2" >&2; exit 1; }
              names=$(find "$dir" -name '*.swift' -print0 | xargs -0 cat |
                  sed -nE 's/^@Suite(\(.*\))?[[:space:]]+(final[[:space:]]+)?(struct|class|enum)[[:space:]]+([A-Za-z0-9_]+).*/\4/p') ;;
    --tag)    [ $# -eq 2 ] || { echo "usage: $0 --folder DIR | --tag NAME" >&2; exit 2; }
              names=$(find "$root/Tests" -name '*.swift' -print0 | xargs -0 cat |
                  sed -nE "s/^@Suite\(.*\.tags\([^)]*\.$2[,)].*\)[[:space:]]+(final[[:space:]]+)?(struct|class|enum)[[:space:]]+([A-Za-z0-9_]+).*/\3/p") ;;
    *)        echo "usage: $0 --folder DIR | --tag NAME" >&2; exit 2 ;;
esac

[ -n "$names" ] || { echo "test-suites: no suite matches $*" >&2; exit 1; }
printf '%s\n' "$names" | sort -u | paste -sd '|' -

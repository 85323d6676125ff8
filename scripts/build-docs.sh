#!/usr/bin/env bash
# Builds the DocC archive of the two public modules, LiteRecord (with the
# macros it declares) and LiteRecordTesting, into one combined archive, and
# fails on any DocC warning. `make docs` runs it.
#
# The route is swift-docc-plugin's `generate-documentation` for exactly those
# two targets: it extracts each target's own public symbol graph, so nothing of
# swift-syntax, swift-log or the LiteRecordMacros plugin module gets in (the
# old `-emit-symbol-graph` build wrote graphs for every module it compiled,
# and `docc` documented all of them). `--warnings-as-errors` makes `docc` stop
# on a warning; the log is also searched for "warning:" so that a warning the
# plugin or the build prints fails just the same.
#
#   scripts/build-docs.sh [OUTPUT]    default .build/LiteRecord.doccarchive
set -euo pipefail
cd "$(dirname "$0")/.."
output=${1:-.build/LiteRecord.doccarchive}
catalog=Sources/LiteRecord/LiteRecord.docc

# The guides in Docs/ are the catalog's articles, through symbolic links in
# the catalog's Guides/ folder: one text, read on GitHub and in the archive.
for guide in Docs/*.md; do
    link="$catalog/Guides/$(basename "$guide")"
    if [ ! -L "$link" ] || [ "$(readlink -f "$link")" != "$(readlink -f "$guide")" ]; then
        echo "error: $guide is not in the documentation catalog; add it with"
        echo "  ln -s ../../../../$guide $link"
        echo "and list it under a topic in $catalog/LiteRecord.md"
        exit 1
    fi
done

log=$(mktemp "${TMPDIR:-/tmp}/literecord-docs-XXXXXX")
trap 'rm -f "$log"' EXIT
mkdir -p "$(dirname "$output")"
set +e
swift package --allow-writing-to-directory "$(dirname "$output")" \
    generate-documentation --target LiteRecord --target LiteRecordTesting \
    --enable-experimental-combined-documentation --warnings-as-errors \
    --output-path "$output" 2>&1 | tee "$log"
status=${PIPESTATUS[0]}
set -e

warnings=$(grep -c 'warning:' "$log" || true)
errors=$(grep -c 'error:' "$log" || true)
if [ "$status" -ne 0 ] || [ "$warnings" -ne 0 ] || [ "$errors" -ne 0 ]; then
    echo "documentation FAILED: exit status $status, $warnings warning(s), $errors error(s) (see above)"
    exit 1
fi

# Exactly the two public modules, nothing of the dependencies.
modules=$(cd "$output/data/documentation" && ls -d */ | tr -d / | sort | tr '\n' ' ')
if [ "$modules" != "literecord literecordtesting " ]; then
    echo "documentation FAILED: the archive documents '$modules', not exactly 'literecord literecordtesting'"
    exit 1
fi
echo "documentation archive: $output (modules: $modules; 0 warnings)"

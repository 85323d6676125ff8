#!/usr/bin/env bash
# Fails when two tracked paths differ only in letter case: on a
# case-insensitive volume (macOS's default) they are one path, and the
# package does not build there (Sources/literecord vs Sources/LiteRecord).
set -euo pipefail
cd "$(dirname "$0")/.."
clashes=$(git ls-files | awk -F/ '{p=""; for (i=1;i<=NF;i++) {p = p (i>1?"/":"") $i; print p}}' \
    | sort -u | awk '{print tolower($0)}' | sort | uniq -d)
if [ -n "$clashes" ]; then
    echo "paths that differ only in letter case:" >&2
    echo "$clashes" >&2
    exit 1
fi
echo "path case: no two tracked paths differ only in letter case"

#!/usr/bin/env bash
# The library's layout rules that a compiler does not check
# (Docs/Internals/Invariants.md, "Layers call downward"):
# C (the CSQLite module) is imported only inside Sources/LiteRecord/SQLite/,
# the one layer that talks to libsqlite3.
set -euo pipefail
cd "$(dirname "$0")/.."
status=0
while IFS= read -r file; do
    case "$file" in
        Sources/LiteRecord/SQLite/*) ;;
        *) echo "$file imports CSQLite: C stays inside Sources/LiteRecord/SQLite/ (add what it needs to that layer)"; status=1 ;;
    esac
done < <(grep -rlE '^\s*(@_implementationOnly |internal |public |package )?import CSQLite' Sources/LiteRecord || true)
if [ "$status" -eq 0 ]; then echo "[layout] ok: CSQLite is imported only in Sources/LiteRecord/SQLite/"; fi
exit "$status"

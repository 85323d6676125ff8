#!/usr/bin/env bash
# The Swift files of the package against its formatter configuration,
# `.swift-format` (swift-format, which ships with the toolchain as
# `swift format`).
#
#   scripts/check-format.sh [ROOT]    lists the files `swift format` would
#                                     change, with a diff summary; fails if any
#                                     (ROOT: the tree to check, default the
#                                     repository; scripts/test-check-format.sh
#                                     gives it a copy with a probe)
#   scripts/check-format.sh --fix     formats them in place (`make format`)
#
# Covered: Sources/ and Tests/, except the macro tests' expansion snapshots
# (Tests/LiteRecordMacrosTests), whose multi-line string literals are the
# expected text of an expansion and are compared as written. Examples/,
# Integrations/ and Benchmarks/ are packages of their own, left alone.
#
# The configuration was chosen to match how the code is written (4-space
# indentation, existing line breaks kept, `case` at the `switch`'s level,
# `#if` bodies not indented, long lines allowed up to 180 columns, the
# rewriting rules off), so that adopting it changes as little as possible.
# `make test` runs it; scripts/test-check-format.sh shows it failing.
set -euo pipefail
mode=${1:-}
config="$(cd "$(dirname "$0")/.." && pwd)/.swift-format"
if [ -n "$mode" ] && [ "$mode" != "--fix" ]; then cd "$mode"; mode=; else cd "$(dirname "$0")/.."; fi
files=()
while IFS= read -r file; do files+=("$file"); done < <(
    find Sources Tests -name '*.swift' -not -path 'Tests/LiteRecordMacrosTests/*' | sort)
if [ "$mode" = "--fix" ]; then
    swift format format --in-place --parallel --configuration "$config" "${files[@]}"
    echo "[format] formatted ${#files[@]} files with .swift-format"
    exit 0
fi
work=$(mktemp -d "${TMPDIR:-/tmp}/literecord-format-XXXXXX")
trap 'rm -rf "$work"' EXIT
changed=0
lines=0
copies=()
for file in "${files[@]}"; do
    mkdir -p "$work/$(dirname "$file")"
    cp "$file" "$work/$file"
    copies+=("$work/$file")
done
swift format format --in-place --parallel --configuration "$config" "${copies[@]}"
for file in "${files[@]}"; do
    if ! cmp -s "$file" "$work/$file"; then
        count=$(diff "$file" "$work/$file" | grep -c '^[<>]' || true)
        echo "$file: $count lines would change"
        changed=$((changed + 1))
        lines=$((lines + count))
    fi
done
if [ "$changed" -ne 0 ]; then
    echo "[format] $changed of ${#files[@]} files would change ($lines diff lines): run \`make format\`"
    exit 1
fi
echo "[format] ok: ${#files[@]} files match .swift-format"

#!/usr/bin/env bash
# Checks the public interface of the built LiteRecord and LiteRecordTesting
# modules, read from their symbol graphs (what a user's compiler sees):
#   - no declaration uses typed throws (API.md §8: a caller's ordinary
#     `catch let error as LiteRecordError` crashed the Swift 6.3.1 compiler
#     against `throws(LiteRecordError)`).
# Run after `swift build`; `make test` runs it.
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/lib/symbol-graphs.sh
out=$(mktemp -d "${TMPDIR:-/tmp}/literecord-api-XXXXXX")
trap 'rm -rf "$out"' EXIT
extract_symbol_graphs "$out"
python3 - "$out" <<'PY'
import json, os, sys
folder = sys.argv[1]
typed = []
count = 0
for name in sorted(os.listdir(folder)):
    graph = json.load(open(os.path.join(folder, name)))
    for symbol in graph["symbols"]:
        # Members a type only inherits from the standard library are not ours.
        if "::SYNTHESIZED::" in symbol["identifier"]["precise"]:
            continue
        count += 1
        declaration = "".join(f["spelling"] for f in symbol.get("declarationFragments", []))
        if "throws(" in declaration:
            typed.append(f'{graph["module"]["name"]}: {declaration}')
if typed:
    print("Public declarations with typed throws (declare them plain `throws`, API.md §8):")
    print("\n".join(f"  {t}" for t in typed))
    sys.exit(1)
print(f"public API: {count} symbols, none with typed throws")
PY

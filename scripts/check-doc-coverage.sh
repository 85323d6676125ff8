#!/usr/bin/env bash
# Fails when a public symbol of LiteRecord or LiteRecordTesting has no
# documentation summary (Docs/Internals/Invariants.md, "Every public symbol
# is documented"). Reads the symbol graphs of the built modules, what DocC and a
# user's Quick Help see; a member that implements a documented protocol
# requirement inherits that requirement's summary and counts as documented.
# Run after `swift build`; `make test` and `make docs` run it.
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/lib/symbol-graphs.sh
out=$(mktemp -d "${TMPDIR:-/tmp}/literecord-doc-coverage-XXXXXX")
trap 'rm -rf "$out"' EXIT
extract_symbol_graphs "$out"
python3 - "$out" <<'PY'
import json, os, sys
folder = sys.argv[1]
missing = []
count = 0
for name in sorted(os.listdir(folder)):
    graph = json.load(open(os.path.join(folder, name)))
    module = graph["module"]["name"]
    for symbol in graph["symbols"]:
        # Members a type only inherits from the standard library are not ours.
        if "::SYNTHESIZED::" in symbol["identifier"]["precise"]:
            continue
        count += 1
        lines = symbol.get("docComment", {}).get("lines", [])
        summary = next((l["text"].strip() for l in lines if l["text"].strip()), "")
        if not summary:
            where = symbol.get("location", {}).get("uri", "").split("/Sources/")[-1]
            line = symbol.get("location", {}).get("position", {}).get("line", -1) + 1
            title = ".".join(symbol["pathComponents"])
            missing.append((where, line, f"{module}.{title}"))
if missing:
    print(f"{len(missing)} of {count} public symbols have no documentation summary (Docs/Internals/Invariants.md):")
    print("\n".join(f"  Sources/{where}:{line}: {title}" for where, line, title in sorted(missing)))
    sys.exit(1)
print(f"documentation: all {count} public symbols have a summary")
PY

#!/usr/bin/env bash
# Checks the public interface of the built LiteRecord and LiteRecordTesting
# modules, read from their symbol graphs (what a user's compiler sees):
#   - no declaration uses typed throws (Docs/Internals/Invariants.md,
#     "Public functions throw plain `throws`": a caller's ordinary
#     `catch let error as LiteRecordError` crashed the Swift 6.3.1 compiler
#     against `throws(LiteRecordError)`).
#   - the public interface is the one recorded in Docs/API-baseline.txt: a
#     change to a public declaration fails until the baseline is recorded
#     again (`scripts/check-public-api.sh --update`), which it refuses
#     unless CHANGELOG.md changed since the last recording, so every public
#     change is said in the changelog.
# Run after `swift build`; `make test` runs it.
set -euo pipefail
update=${1:-}
cd "$(dirname "$0")/.."
. scripts/lib/symbol-graphs.sh
out=$(mktemp -d "${TMPDIR:-/tmp}/literecord-api-XXXXXX")
trap 'rm -rf "$out"' EXIT
extract_symbol_graphs "$out"
python3 - "$out" "$update" <<'PY'
import hashlib, json, os, sys
folder, update = sys.argv[1], sys.argv[2] == "--update"
typed = []
count = 0
interface = set()
for name in sorted(os.listdir(folder)):
    graph = json.load(open(os.path.join(folder, name)))
    for symbol in graph["symbols"]:
        # Members a type only inherits from the standard library are not ours.
        if "::SYNTHESIZED::" in symbol["identifier"]["precise"]:
            continue
        count += 1
        declaration = "".join(f["spelling"] for f in symbol.get("declarationFragments", []))
        path = ".".join(symbol.get("pathComponents", []))
        interface.add(f'{graph["module"]["name"]} {path}: {" ".join(declaration.split())}')
        if "throws(" in declaration:
            typed.append(f'{graph["module"]["name"]}: {declaration}')
if typed:
    print("Public declarations with typed throws (declare them plain `throws`: Docs/Internals/Invariants.md):")
    print("\n".join(f"  {t}" for t in typed))
    sys.exit(1)
baseline_path = "Docs/API-baseline.txt"
changelog = hashlib.sha256(open("CHANGELOG.md", "rb").read()).hexdigest()
recorded_changelog, recorded = None, set()
if os.path.exists(baseline_path):
    for line in open(baseline_path, encoding="utf-8"):
        line = line.rstrip("\n")
        if line.startswith("# changelog: "):
            recorded_changelog = line[len("# changelog: "):]
        elif line and not line.startswith("#"):
            recorded.add(line)
added, removed = sorted(interface - recorded), sorted(recorded - interface)
if update:
    if (added or removed) and changelog == recorded_changelog:
        print("The public API changed, but CHANGELOG.md did not since the baseline was recorded:")
        print("say what changed under '## Unreleased' in CHANGELOG.md first, then run this again.")
        sys.exit(1)
    with open(baseline_path, "w", encoding="utf-8") as out:
        out.write("# The public interface of LiteRecord and LiteRecordTesting, as their symbol graphs\n")
        out.write("# give it; scripts/check-public-api.sh compares the build with it (make test).\n")
        out.write("# Record it again with `scripts/check-public-api.sh --update`, with a CHANGELOG.md entry.\n")
        out.write(f"# changelog: {changelog}\n")
        for line in sorted(interface):
            out.write(line + "\n")
    print(f"public API: recorded {len(interface)} declarations in {baseline_path} ({len(added)} added, {len(removed)} removed)")
    sys.exit(0)
if added or removed:
    print(f"The public API differs from {baseline_path}: {len(added)} added, {len(removed)} removed.")
    for line in added[:15]:
        print(f"  + {line}")
    for line in removed[:15]:
        print(f"  - {line}")
    print("If that is meant: say so under '## Unreleased' in CHANGELOG.md, then record the new")
    print("interface with `scripts/check-public-api.sh --update` and commit both.")
    sys.exit(1)
print(f"public API: {count} symbols, none with typed throws, as recorded in {baseline_path}")
PY

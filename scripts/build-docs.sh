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

# The guides link to each other as GitHub shows them, `[Testing](Testing.md)`
# and `[below](#a-heading)`; DocC keeps such links as they are, and they would
# lead nowhere in the archive. Point them at the articles and DocC's heading
# anchors instead, and fail on one that names no guide or no heading. A link
# to another file of the repository is left as it is, if that file exists.
python3 - "$output" <<'PY'
import glob, json, os, re, sys
archive = sys.argv[1]
pages = os.path.join(archive, "data", "documentation", "literecord")
guides = {os.path.splitext(os.path.basename(p))[0] for p in glob.glob("Docs/*.md")}

def anchors(page):
    found = {}
    def walk(node):
        if isinstance(node, dict):
            if node.get("type") == "heading" and node.get("anchor"):
                found[node["anchor"].lower()] = node["anchor"]
            for value in node.values(): walk(value)
        elif isinstance(node, list):
            for value in node: walk(value)
    walk(json.load(open(os.path.join(pages, page.lower() + ".json"))).get("primaryContentSections", []))
    return found

def slug(fragment):  # GitHub's heading ids and DocC's anchors, compared without case
    return re.sub(r"-+", "-", fragment.lower()).strip("-")

problems = []
for guide in sorted(guides):
    path = os.path.join(pages, guide.lower() + ".json")
    page = json.load(open(path))
    changed = False
    for reference in page.get("references", {}).values():
        url = reference.get("url", "")
        if reference.get("type") != "link" or re.match(r"^[a-z]+:", url):
            continue
        target, _, fragment = url.partition("#")
        name = target[:-3] if target.endswith(".md") else None
        if target and name not in guides:
            # A file of the repository beside the guides (an example's README):
            # it is not in the archive, so the link stays as GitHub reads it.
            if os.path.exists(os.path.normpath(os.path.join("Docs", target))):
                continue
            problems.append(f"Docs/{guide}.md links to {url}, which does not exist")
            continue
        name = name or guide
        new = f"/documentation/literecord/{name.lower()}"
        if fragment:
            anchor = {slug(k): v for k, v in anchors(name).items()}.get(slug(fragment))
            if anchor is None:
                problems.append(f"Docs/{guide}.md links to {url}: Docs/{name}.md has no such heading")
                continue
            new += "#" + anchor
        reference["url"] = new
        changed = True
    if changed:
        json.dump(page, open(path, "w"), separators=(",", ":"))
if problems:
    print("documentation FAILED: links in the guides that would lead nowhere in the archive:")
    print("\n".join(f"  {p}" for p in problems))
    sys.exit(1)
PY

# Exactly the two public modules, nothing of the dependencies.
modules=$(cd "$output/data/documentation" && ls -d */ | tr -d / | sort | tr '\n' ' ')
if [ "$modules" != "literecord literecordtesting " ]; then
    echo "documentation FAILED: the archive documents '$modules', not exactly 'literecord literecordtesting'"
    exit 1
fi
echo "documentation archive: $output (modules: $modules; 0 warnings)"

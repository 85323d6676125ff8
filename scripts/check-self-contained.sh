#!/usr/bin/env bash
# The repository is self-contained: a reader of the package can follow every
# reference its sources, tests, scripts, guides, examples, integrations and
# benchmarks make. So none of them cites a note kept outside the repository
# (the API contract, design and style notes the library was first written
# against, by their file names) or an issue of the project's tracker by its
# number ("issue 58", "#58's model"); a rule is stated where it is used, or
# linked where the repository states it (Docs/*.md, Docs/Internals/*.md).
# Another project's issue is fine when the line names that project
# (MagicalRecord #700): anyone can look it up there.
#
#   scripts/check-self-contained.sh [ROOT]    (ROOT defaults to the repository)
#
# Skipped: build folders (.build*, .swiftpm), CHANGELOG.md (its history names
# what it names), this script and its probe (they spell out what they look
# for). `make test` runs it;
# scripts/test-check-self-contained.sh shows it failing.
set -euo pipefail
root="${1:-$(cd "$(dirname "$0")/.." && pwd)}"
cd "$root"

folders=(Sources Tests Examples Integrations scripts Benchmarks Docs README.md CONTRIBUTING.md Makefile)
# An outside note by name; an issue by number; a bare "#58" (two digits or
# more, so "Author #3" in a message is not one) on a line that names no other
# project.
notes='(^|[^[:alnum:]_])(API|DESIGN|STYLE)\.md'
issues='(^|[^[:alnum:]_])[Ii]ssues? #?[0-9]+'
bare='(^|[^[:alnum:]_&/])#[0-9]{2,}([^[:alnum:]_]|$)'
others='MagicalRecord|GRDB|Hummingbird|Vapor|Litestream|SQLite|swift-format|swiftlang|apple/'

skipped() {
    case "$1" in
        */.build*/* | .build*/* | */.swiftpm/* | CHANGELOG.md | */CHANGELOG.md) return 0 ;;
        scripts/check-self-contained.sh | scripts/test-check-self-contained.sh) return 0 ;;
    esac
    return 1
}

found=0
present=()
for folder in "${folders[@]}"; do [ -e "$folder" ] && present+=("$folder"); done
while IFS= read -r hit; do
    file=${hit%%:*}
    skipped "$file" && continue
    line=${hit#*:*:}
    if ! grep -qE "$notes|$issues" <<<"$line" && grep -qE "$others" <<<"$line"; then
        continue
    fi
    echo "$hit"
    found=$((found + 1))
done < <(grep -rnIE "$notes|$issues|$bare" --exclude-dir='.build*' --exclude-dir=.swiftpm \
    --exclude=Package.resolved "${present[@]}" || true)

if [ "$found" -ne 0 ]; then
    echo "[self-contained] $found citation(s) a reader of the package cannot follow: state the rule"
    echo "  in plain words, or link the guide that states it (Docs/*.md, Docs/Internals/*.md);"
    echo "  for a test found by the model-based test, name the test and its seed"
    exit 1
fi
echo "[self-contained] ok: no citation of a note outside the repository or of an issue number"

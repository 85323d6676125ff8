#!/usr/bin/env bash
# Text from SQLite (and from callers) can hold anything: NUL, bytes that are
# not UTF-8, text another program wrote. Index arithmetic on such text, and
# Foundation's searches that convert NSRange offsets back to String indices
# (`range(of:options:)`, `compare(_:options:)`), have trapped on it: on Linux
# "Café" searched case-insensitively for "é\0" took the process down.
#
# So the library does none of it, except on lines that say why it is safe:
# a line is accepted when it, or the line above it, carries
# `// text-audit: <reason>`. Darwin-only calls into Apple's Foundation are
# audited the same way.
#
#   scripts/check-text-index.sh [DIR]   (default Sources/LiteRecord)
set -euo pipefail
cd "$(dirname "$0")/.."
root="${1:-Sources/LiteRecord}"
pattern='offsetBy|range\(of:|\.compare\([^)]*options:|caseInsensitiveCompare\(|localizedStandardContains\(|localizedCompare\(|String\.Index|utf16Offset|index\((after|before):|NSRange|_toUTF16'
status=0
while IFS= read -r file; do
    python3 - "$file" "$pattern" <<'PY' || status=1
import re, sys
path, pattern = sys.argv[1], re.compile(sys.argv[2])
lines = open(path, encoding="utf-8").read().split("\n")
bad = 0
for number, line in enumerate(lines, 1):
    code = line.split("//", 1)[0]
    if not pattern.search(code):
        continue
    previous = lines[number - 2] if number > 1 else ""
    if "text-audit:" in line or "text-audit:" in previous:
        continue
    print(f"{path}:{number}: String index arithmetic or a Foundation text search without a '// text-audit: <why it cannot trap>' comment:\n    {line.strip()}")
    bad = 1
sys.exit(bad)
PY
done < <(find "$root" -name '*.swift' | sort)
if [ "$status" -eq 0 ]; then echo "[text-index] ok: no unaudited String index arithmetic in $root"; fi
exit "$status"

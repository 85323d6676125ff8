#!/usr/bin/env bash
# Fails when a function, initializer, accessor or subscript of LiteRecord or
# LiteRecordTesting runs over 60 lines, from its declaration line to its
# closing brace: a function that long does several things,
# and splits along its phases into named helpers. A registration list (one
# call per registered item, nothing else) may be longer when a comment within
# the 8 lines above it says "registration list" and why it is one function.
# Reads the sources only, so it needs no build; `make test` runs it.
set -euo pipefail
cd "$(dirname "$0")/.."
limit=60
if ! over=$(python3 scripts/lib/function_lengths.py --check "$limit" Sources/LiteRecord Sources/LiteRecordTesting); then
    echo "[function-length] functions over $limit lines (split them along their phases, or mark a registration list):" >&2
    echo "$over" >&2
    exit 1
fi
echo "[function-length] ok: no function over $limit lines"

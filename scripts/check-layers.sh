#!/usr/bin/env bash
# Docs/Layout.md says a folder of Sources/LiteRecord calls only the folders
# below it in its table; this checks it (Docs/Internals/Invariants.md,
# "Layers call downward"). The layers are read from the table itself, so the
# map and the check cannot drift apart; the upward uses the code still has
# are listed, each with its reason, in scripts/lib/layer_exceptions.txt, and a
# listed use that disappears must leave the list too. scripts/lib/layers.py
# says how a use is found.
#
#   scripts/check-layers.sh [ROOT]    (ROOT defaults to the repository)
#
# `make test` runs it; scripts/test-check-layers.sh shows it failing.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
exec python3 "$here/lib/layers.py" "${1:-$here/..}"

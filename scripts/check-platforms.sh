#!/usr/bin/env bash
# Fails on platform-specific code (Glibc, /proc, homeDirectoryForCurrentUser,
# the program's own argv[0] path) outside a guard for its platform, so the
# package keeps building on Apple platforms (Docs/Platforms.md). `make test`
# runs it; scripts/lib/check_platforms.py says what it looks for.
#
#   scripts/check-platforms.sh [FILE...]
set -euo pipefail
cd "$(dirname "$0")/.."
exec python3 scripts/lib/check_platforms.py "$@"

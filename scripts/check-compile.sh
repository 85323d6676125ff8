#!/usr/bin/env bash
# Typechecks what an app developer writes on day one (Tests/CompileChecks/*.swift)
# against the built library, under Swift 6's default isolation and under
# `-default-isolation MainActor`: the `@Entity`
# macro's output must compile in both, and its refusals must fail with their
# message and no other error (one diagnostic per mistake). `make test` runs it after building; it prints
# `[compile-checks] N files typechecked under 2 isolations`, or names each
# file that did not behave (scripts/lib/compile_checks.py does the work).
#
#   scripts/check-compile.sh [--verbose] [FILE...]
set -euo pipefail
cd "$(dirname "$0")/.."
exec python3 scripts/lib/compile_checks.py "$@"

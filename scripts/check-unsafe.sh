#!/usr/bin/env bash
# Unsafe Swift is fenced as C is (Docs/Internals/UnsafeSwift.md): each
# construct that switches a compiler or runtime check off may appear only in
# the files listed for it in scripts/lib/unsafe_fences.py, and every use
# carries a comment `unsafe(<rule>)` naming one of that construct's rules —
# on its line, or in the comments directly above it (a run of uses of the
# same construct, such as a block of fields, may share one tag). Every rule
# named must be a heading of Docs/Internals/UnsafeSwift.md, which says why
# the rule makes the use safe and what checks it in debug builds.
#
#   scripts/check-unsafe.sh [ROOT]    (ROOT defaults to the repository)
#
# `make test` runs it; scripts/test-check-unsafe.sh shows it failing.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="${1:-$here/..}"
exec python3 "$here/lib/unsafe_fences.py" "$root"

#!/usr/bin/env bash
# Runs a command with a private, fresh TMPDIR and fails when the command left a
# temporary store behind in it (a test that forgot to remove its folder):
#   scripts/check-temp.sh swift test --skip-build
# Only what this run created is checked: stores that another process or an
# earlier `literecord demo --keep` left in the real $TMPDIR are not this run's
# The private folder is removed when it is clean and kept,
# for a look, when it is not. The exit status is the command's when it failed,
# 1 when it left a store behind, 0 otherwise.
# `make test`, `make reliability` and `make example` run their tests through it;
# scripts/test-check-temp.sh proves it.
set -uo pipefail

# The names LiteRecord's tests, the demo, LiteRecordTesting, the example
# app and the Vapor integration's tests give their temporary stores and folders.
patterns=('LiteRecordTests-*' 'literecord-demo-*' 'LiteRecordTesting-*' 'NotesTests-*' 'bookmarks-test-*' 'literecord-vapor-*')

if [ $# -eq 0 ]; then
    echo "usage: $0 COMMAND [ARGUMENT...]" >&2
    exit 2
fi

private=$(mktemp -d "${TMPDIR:-/tmp}/literecord-run-XXXXXX") || {
    echo "cannot create a private temporary folder in ${TMPDIR:-/tmp}" >&2
    exit 2
}

TMPDIR="$private" "$@"
status=$?

leftovers=$(cd "$private" && shopt -s nullglob && for name in ${patterns[*]}; do echo "$name"; done | head -5)
if [ -n "$leftovers" ]; then
    echo "temporary stores left behind by this run in $private (kept for a look):"
    echo "$leftovers"
    [ "$status" -ne 0 ] && exit "$status"
    exit 1
fi
rm -rf "$private"
[ "$status" -ne 0 ] && exit "$status"
echo "no temporary stores left behind"
exit 0

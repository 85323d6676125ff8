#!/usr/bin/env bash
# Proves scripts/check-temp.sh: a store another process left
# in $TMPDIR does not fail the run, a store the run itself leaves does, the
# command's own failure is passed on, and a clean run removes its private
# folder. Takes well under a second; `make test` runs it.
set -uo pipefail
cd "$(dirname "$0")/.."
check="$PWD/scripts/check-temp.sh"

outer=$(mktemp -d "${TMPDIR:-/tmp}/literecord-check-temp-test-XXXXXX")
trap 'rm -rf "$outer"' EXIT
failures=0
fail() { echo "FAIL: $*"; failures=$((failures + 1)); }

# A store left by someone else (`literecord demo --keep`, a parallel run).
mkdir "$outer/literecord-demo-xyz"
touch "$outer/LiteRecordTests-other.sqlite"

# 1. A clean run passes although the foreign stores are there, and leaves them alone.
output=$(TMPDIR="$outer" "$check" sh -c 'mkdir "$TMPDIR/LiteRecordTests-done" && rmdir "$TMPDIR/LiteRecordTests-done"' 2>&1)
status=$?
[ "$status" -eq 0 ] || fail "a clean run failed because of stores it did not create (status $status): $output"
[ -d "$outer/literecord-demo-xyz" ] && [ -f "$outer/LiteRecordTests-other.sqlite" ] || fail "the foreign stores were touched"
[ -z "$(cd "$outer" && ls -d literecord-run-* 2>/dev/null)" ] || fail "a clean run kept its private folder"

# 2. The run's TMPDIR is private: the command does not see the foreign stores.
output=$(TMPDIR="$outer" "$check" sh -c 'ls "$TMPDIR"' 2>&1)
case "$output" in
    *literecord-demo-xyz*) fail "the command's TMPDIR is the shared one: $output" ;;
esac

# 3. A store the run leaves behind is caught, named, and kept for a look.
output=$(TMPDIR="$outer" "$check" sh -c 'mkdir "$TMPDIR/literecord-demo-leak"; touch "$TMPDIR/NotesTests-leak"' 2>&1)
status=$?
[ "$status" -eq 1 ] || fail "a leaked store did not fail the run (status $status): $output"
case "$output" in
    *literecord-demo-leak*NotesTests-leak* | *NotesTests-leak*literecord-demo-leak*) ;;
    *) fail "the message does not name the leaked stores: $output" ;;
esac
case "$output" in
    *literecord-demo-xyz* | *LiteRecordTests-other*) fail "the message names stores this run did not create: $output" ;;
esac
kept=$(cd "$outer" && ls -d literecord-run-* 2>/dev/null)
[ -n "$kept" ] && [ -d "$outer/$kept/literecord-demo-leak" ] || fail "the private folder holding the leak was not kept"
rm -rf "$outer"/literecord-run-*

# 4. The command's own failure is its exit status, leak or not.
TMPDIR="$outer" "$check" sh -c 'exit 3' >/dev/null 2>&1
status=$?
[ "$status" -eq 3 ] || fail "a failing command's status was not passed on (got $status)"
[ -z "$(cd "$outer" && ls -d literecord-run-* 2>/dev/null)" ] || fail "a failed clean run kept its private folder"

if [ "$failures" -ne 0 ]; then
    echo "scripts/check-temp.sh: $failures check(s) failed"
    exit 1
fi
echo "scripts/check-temp.sh: foreign stores ignored, own leaks caught, status passed on"

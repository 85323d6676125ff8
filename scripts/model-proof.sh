#!/usr/bin/env bash
# Runs the model-based test (ModelBasedTests) against LiteRecord as it was
# at an earlier commit, de1b07a by default: the code eleven breaks
# the model found were reproduced against. The proof asked for is that the model of
# today finds each break there, with a seed and the shrunk steps.
#
# Usage: scripts/model-proof.sh [--from DIR] [--base COMMIT] [--seed N]
#                               [--sequences N] [--length N] [--work DIR]
#                               [--env NAME=VALUE]... [--sweep K]
#                               [--build-only] [--remove]
#
#   --from DIR       the source tree whose model is run (default: the
#                    repository this script is in, as its files are now,
#                    uncommitted changes included)
#   --base COMMIT    the code it runs against (default de1b07a)
#   --seed N         the first sequence's seed (default 7000001)
#   --sequences N    how many sequences (default 20000)
#   --length N       most steps per sequence (default: the test's own)
#   --env NAME=VALUE set for the run, e.g. LITERECORD_MODEL_QUERIES=0 (the
#                    model without its query observation, which at de1b07a
#                    fails first in nearly every sequence with a deletion and
#                    hides the rest) or LITERECORD_MODEL_LENGTH=60
#   --sweep K        instead of ModelBasedTests' own loop (one failure per
#                    signature), run model-proof/ModelProofSweep.swift: the
#                    same sequences, up to K failures of each signature and
#                    kind of detail shrunk, each reported whose shrunk steps
#                    differ in the operations they use — several bugs of one
#                    old commit may share a signature, and the first found
#                    hides the rest
#   --work DIR       where the worktree and its build folder live (default
#                    <repository>/.build-model-proof/<base>, ignored by git);
#                    kept between runs so that only what changed is rebuilt
#   --build-only     prepare and build, do not run
#   --remove         remove the worktree and its build folder, then stop
#
# What it does: a detached worktree of the base commit (made once, reset on
# every run: its Sources/ are checked to be the commit's, unchanged) holds
# the model's files copied from --from — ModelBasedTests.swift and every
# Support/Model*.swift and Support/ReferenceModel*.swift, whatever they are —
# and nothing else of LiteRecordTests: the other suites are removed, and so
# are the other test targets from its Package.swift, so that the build is
# the library, the model and nothing more. The files under
# scripts/model-proof/<base>/ are copied beside them: the smallest
# adaptation of the model to what the base commit lacked, each explained in
# its comments. Files listed in scripts/model-proof/support.txt (paths under
# Tests/LiteRecordTests) are copied too, if the model ever needs such support.
# Then it runs the model with LITERECORD_MODEL_ALL_FAILURES=1 and
# LITERECORD_MODEL_NO_GAPS=1 and prints each distinct failure: its
# signature, the seed, the shrunk steps, what ran and the difference. The
# whole output is kept in the work folder (run-<seed>-<sequences>.log).
set -euo pipefail

# All of it in one function, read whole before it runs: editing the script
# while a run is under way does not change that run.
main() {

    script_dir=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
    repo=$(git -C "$script_dir" rev-parse --show-toplevel)
    from=$repo
    base=de1b07a
    seed=7000001
    sequences=20000
    length=
    work=
    build_only=0
    extra_env=()
    sweep=
    remove=0

    usage() { sed -n '2,/^set -euo/p' "${BASH_SOURCE[0]}" | sed '$d; s/^# \{0,1\}//'; }

    while [ $# -gt 0 ]; do
        case $1 in
            --from) from=$2; shift 2 ;;
            --base) base=$2; shift 2 ;;
            --seed) seed=$2; shift 2 ;;
            --sequences) sequences=$2; shift 2 ;;
            --length) length=$2; shift 2 ;;
            --work) work=$2; shift 2 ;;
            --env) extra_env+=("$2"); shift 2 ;;
            --sweep) sweep=$2; shift 2 ;;
            --build-only) build_only=1; shift ;;
            --remove) remove=1; shift ;;
            -h|--help) usage; exit 0 ;;
            *) echo "model-proof: unknown argument $1" >&2; usage >&2; exit 2 ;;
        esac
    done

    from=$(cd "$from" && pwd)
    tests_from=$from/Tests/LiteRecordTests
    # Context/ since the test tree mirrors the sources; at the root before.
    model_test=$tests_from/Context/ModelBasedTests.swift
    [ -f "$model_test" ] || model_test=$tests_from/ModelBasedTests.swift
    if [ ! -f "$model_test" ]; then
        echo "model-proof: $from has no Tests/LiteRecordTests/Context/ModelBasedTests.swift" >&2
        exit 2
    fi
    commit=$(git -C "$repo" rev-parse --verify --quiet "$base^{commit}") || {
        echo "model-proof: $base is not a commit of $repo" >&2
        exit 2
    }
    short=$(git -C "$repo" rev-parse --short=7 "$commit")
    work=${work:-$repo/.build-model-proof/$short}
    mkdir -p "$work"
    work=$(cd "$work" && pwd)
    src=$work/src
    build=$work/build

    if [ "$remove" = 1 ]; then
        if [ -e "$src" ]; then git -C "$repo" worktree remove --force "$src"; fi
        rm -rf "$work"
        echo "model-proof: removed $work"
        exit 0
    fi

    # The worktree: made once, then reset to the base commit on every run.
    if [ ! -e "$src/.git" ]; then
        git -C "$repo" worktree add --detach --quiet "$src" "$commit"
    fi
    if [ "$(git -C "$src" rev-parse HEAD)" != "$commit" ]; then
        git -C "$src" checkout --quiet --detach --force "$commit"
    fi
    # The library stays exactly as it was at the base commit: anything changed
    # or added under Sources/ is put back (only those files, so that the build
    # folder's other objects stay valid).
    git -C "$src" checkout --quiet "$commit" -- Sources
    git -C "$src" clean -fdq -- Sources
    if ! git -C "$src" diff --quiet "$commit" -- Sources || [ -n "$(git -C "$src" status --porcelain -- Sources)" ]; then
        echo "model-proof: $src/Sources differs from $short" >&2
        exit 1
    fi

    # Copies $1 to $2 only when they differ, so that an unchanged file keeps its
    # time and is not compiled again.
    put() {
        mkdir -p "$(dirname "$2")"
        if ! cmp -s "$1" "$2"; then cp "$1" "$2"; fi
    }

    # Package.swift: the base commit's, less every test target but
    # LiteRecordTests (model-proof/trim-package.py says why).
    manifest=$(mktemp)
    trap 'rm -f "$manifest"' EXIT
    git -C "$repo" show "$commit:Package.swift" | python3 "$script_dir/model-proof/trim-package.py" > "$manifest"
    grep -q 'name: "LiteRecordTests"' "$manifest" || { echo "model-proof: no LiteRecordTests target in $short's Package.swift" >&2; exit 1; }
    put "$manifest" "$src/Package.swift"

    # The model's files, the listed support and the adaptations; nothing else.
    tests=$src/Tests/LiteRecordTests
    wanted=$(mktemp)
    trap 'rm -f "$manifest" "$wanted"' EXIT
    copy() { # copy <file> <path under Tests/LiteRecordTests>
        put "$1" "$tests/$2"
        echo "$tests/$2" >> "$wanted"
    }
    copy "$model_test" ModelBasedTests.swift
    for file in "$tests_from"/Support/Model*.swift "$tests_from"/Support/ReferenceModel*.swift; do
        [ -f "$file" ] && copy "$file" "Support/$(basename "$file")"
    done
    if [ -f "$script_dir/model-proof/support.txt" ]; then
        while read -r path; do
            case $path in ''|'#'*) continue ;; esac
            if [ -f "$tests_from/$path" ]; then copy "$tests_from/$path" "$path"; fi
        done < "$script_dir/model-proof/support.txt"
    fi
    if [ -n "$sweep" ]; then copy "$script_dir/model-proof/ModelProofSweep.swift" ModelProofSweep.swift; fi
    adaptations=$script_dir/model-proof/$short
    if [ -d "$adaptations" ]; then
        for file in "$adaptations"/*.swift; do
            [ -f "$file" ] && copy "$file" "ModelProofAdaptations/$(basename "$file")"
        done
    fi
    find "$tests" -type f | sort | while read -r file; do
        grep -qxF "$file" "$wanted" || rm -f "$file"
    done
    find "$tests" -mindepth 1 -type d -empty -delete
    echo "model-proof: the model of $from ($(grep -c . "$wanted") files) against $short in $src"

    log=$work/build.log
    if ! (cd "$src" && swift build --build-tests --scratch-path "$build") > "$log" 2>&1; then
        grep -E 'error:' "$log" | sort -u | head -40 >&2 || true
        echo "model-proof: the build failed; its log: $log" >&2
        exit 1
    fi
    echo "model-proof: built ($(grep -c 'warning:' "$log" || true) warning lines)"
    [ "$build_only" = 1 ] && exit 0

    suffix=
    for assignment in "${extra_env[@]}"; do suffix+=-$(printf '%s' "$assignment" | tr -c 'A-Za-z0-9=_.-' '_'); done
    if [ -n "$sweep" ]; then suffix+=-sweep$sweep; fi
    suite=ModelBasedTests
    if [ -n "$sweep" ]; then suite=ModelProofSweep; fi
    run_log=$work/run-$seed-$sequences$suffix.log
    echo "model-proof: $sequences sequences from seed $seed (all failures, no gaps${extra_env[*]:+; ${extra_env[*]}}); output in $run_log"
    status=0
    (
        cd "$src"
        export LITERECORD_MODEL_ALL_FAILURES=1 LITERECORD_MODEL_NO_GAPS=1
        export LITERECORD_MODEL_SEQUENCES=$sequences LITERECORD_MODEL_SEED=$seed
        if [ -n "$length" ]; then export LITERECORD_MODEL_LENGTH=$length; fi
        for assignment in "${extra_env[@]}"; do export "${assignment?}"; done
        if [ -n "$sweep" ]; then export LITERECORD_MODEL_PROOF_PER_SIGNATURE=$sweep; fi
        swift test --skip-build --scratch-path "$build" --filter "$suite"
    ) > "$run_log" 2>&1 || status=$?

    # Each failure as the test prints it, once (Swift Testing repeats it in its
    # issue), then the summary line.
    awk '
        /^\[model\] FAILED: / { printing = 1; count++; print "" }
        printing { print }
        printing && /^difference: / { printing = 0 }
        /^\[model\] [0-9]+ sequences/ { summary = $0 }
        END { print ""; if (summary) print summary; else print "model-proof: the run printed no summary: it crashed? LITERECORD_MODEL_TRACE=1 names the seed that did" }
    ' "$run_log"
    if ! grep -q '^\[model\] [0-9]* sequences' "$run_log"; then
        tail -20 "$run_log"
        exit 1
    fi
    # The test fails when the model finds something, which is the point here.
    exit 0
}

main "$@"

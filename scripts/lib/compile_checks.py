#!/usr/bin/env python3
"""Typechecks the files of Tests/CompileChecks against the built library;
scripts/check-compile.sh runs it.

    compile_checks.py [--verbose] [FILE...]

Each file is what an app developer writes (`import LiteRecord`, `@Entity`
classes, uses of them), compiled with `swiftc -typecheck` and the flags
SwiftPM gave LiteRecordTestingTests (search paths and the `@Entity` macro
plugin: scripts/lib/snippets.py reads them from .build/debug.yaml), once
with Swift 6's default isolation (nonisolated) and once with
`-default-isolation MainActor`, as new Xcode app projects and
`.defaultIsolation(MainActor.self)` in SwiftPM compile. Warnings count as
errors: generated code must not give a user's build a warning.

A file whose first lines say `// expect-error: TEXT` (one line per expected
error) must fail under both isolations with exactly that many errors, each
TEXT in one of them: one diagnostic per mistake, not a cascade from the
generated code. Any other file must compile cleanly. Prints `[compile-checks] N files
typechecked under 2 isolations`, or names each file that did not behave.
"""
import argparse
import concurrent.futures
import glob
import os
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from snippets import Failure, compiler_flags  # noqa: E402

ISOLATIONS = {"nonisolated": [], "MainActor": ["-default-isolation", "MainActor"]}


def expectations(path):
    """The error texts the file's leading `// expect-error:` lines name."""
    expected = []
    for line in open(path, encoding="utf-8"):
        if not line.startswith("//"):
            break
        if line.startswith("// expect-error:"):
            expected.append(line[len("// expect-error:"):].strip())
    return expected


def check(path, flags, isolation):
    """(path, isolation, problem or None, compiler output)."""
    command = ["swiftc", "-typecheck", "-parse-as-library", "-warnings-as-errors", "-module-name", "CompileCheck"] \
        + flags + ISOLATIONS[isolation] + [path]
    result = subprocess.run(command, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    expected = expectations(path)
    if not expected:
        problem = None if result.returncode == 0 else "does not compile"
    elif result.returncode == 0:
        problem = "compiles, but should fail with: " + "; ".join(expected)
    else:
        errors = [line for line in result.stdout.split("\n") if ": error: " in line]
        missing = [text for text in expected if not any(text in line for line in errors)]
        if missing:
            problem = "fails without the expected error: " + "; ".join(missing)
        elif len(errors) != len(expected):
            problem = f"fails with {len(errors)} errors, expected {len(expected)}"
        else:
            problem = None
    return path, isolation, problem, result.stdout


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--verbose", action="store_true")
    parser.add_argument("files", nargs="*")
    options = parser.parse_args()
    files = options.files or sorted(glob.glob("Tests/CompileChecks/*.swift"))
    try:
        if not os.path.exists(".build/debug.yaml"):
            raise Failure(".build/debug.yaml is missing: run `swift build --build-tests` first")
        flags = compiler_flags(".build/debug.yaml", "LiteRecordTestingTests")
    except Failure as failure:
        print(f"[compile-checks] error: {failure}")
        return 2
    jobs = [(path, isolation) for path in files for isolation in ISOLATIONS]
    with concurrent.futures.ThreadPoolExecutor(max_workers=os.cpu_count() or 2) as pool:
        results = list(pool.map(lambda job: check(job[0], flags, job[1]), jobs))
    failed = [(path, isolation, problem, log) for path, isolation, problem, log in results if problem]
    for path, isolation, problem, log in failed:
        print(log.rstrip())
        print(f"[compile-checks] {path} ({isolation} by default): {problem}")
    if options.verbose:
        for path, isolation, problem, _ in results:
            print(f"[compile-checks] {path} ({isolation}): {'ok' if not problem else problem}")
    if failed:
        print(f"[compile-checks] FAILED: {len(failed)} of {len(jobs)} checks")
        return 1
    print(f"[compile-checks] {len(files)} files typechecked under {len(ISOLATIONS)} isolations")
    return 0


if __name__ == "__main__":
    sys.exit(main())

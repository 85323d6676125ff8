#!/usr/bin/env python3
"""Fails on platform-specific code outside a guard for its platform, so that
the package keeps building on Apple platforms where nobody here can build it
(Docs/Platforms.md). scripts/check-platforms.sh runs it; `make test` too.

    check_platforms.py [FILE...]     (default: every .swift file in Sources/ and Tests/)

What it looks for, and the guards that allow it:

- `import Glibc`, `/proc/` paths: only inside `#if os(Linux)` or
  `#if canImport(Glibc)` (an `#elseif` of either counts too);
- `homeDirectoryForCurrentUser` (macOS and Linux only, not iOS, tvOS,
  watchOS or visionOS): inside `#if os(Linux)` or `#if os(macOS)`;
- `CommandLine.arguments[0]` and `unsafeArgv[0]`, the running program's
  path, which under Xcode's `xctest` is not the build folder: inside
  `#if os(Linux)`.

A line may carry `// platform-audit: <why>` to say why it is safe anyway.
Prints `[platforms] ok: N files checked`, or each finding as file:line.
"""
import glob
import re
import sys

LINUX = re.compile(r"os\(Linux\)|canImport\(Glibc\)")
MACOS_OR_LINUX = re.compile(r"os\(Linux\)|os\(macOS\)|canImport\(Glibc\)")

RULES = [
    (re.compile(r"^\s*import\s+Glibc\b"), LINUX, "`import Glibc` outside #if canImport(Glibc) / os(Linux)"),
    (re.compile(r"[\"']/proc/"), LINUX, "a /proc path outside #if os(Linux)"),
    (re.compile(r"homeDirectoryForCurrentUser"), MACOS_OR_LINUX,
     "homeDirectoryForCurrentUser (unavailable on iOS, tvOS, watchOS) outside #if os(Linux) / os(macOS)"),
    (re.compile(r"CommandLine\.arguments\[0\]|unsafeArgv\[0\]"), LINUX,
     "the program's own path (argv[0]; xctest's on macOS) outside #if os(Linux)"),
]


def findings(path):
    found = []
    # Each open #if: the conditions of its branch so far, the current one last.
    stack = []
    for number, line in enumerate(open(path, encoding="utf-8"), 1):
        stripped = line.strip()
        if stripped.startswith("#if "):
            stack.append(stripped[4:])
            continue
        if stripped.startswith("#elseif "):
            if stack:
                stack[-1] = stripped[8:]
            continue
        if stripped.startswith("#else"):
            if stack:
                stack[-1] = "!(" + stack[-1] + ")"
            continue
        if stripped.startswith("#endif"):
            if stack:
                stack.pop()
            continue
        if "platform-audit:" in line or stripped.startswith("//"):
            continue
        for pattern, guard, message in RULES:
            if pattern.search(line) and not any(guard.search(c) and not c.startswith("!(") for c in stack):
                found.append(f"{path}:{number}: {message}")
    return found


def main(arguments):
    files = arguments or sorted(glob.glob("Sources/**/*.swift", recursive=True) + glob.glob("Tests/**/*.swift", recursive=True))
    problems = [finding for path in files for finding in findings(path)]
    for problem in problems:
        print(f"[platforms] {problem}")
    if problems:
        print(f"[platforms] FAILED: {len(problems)} finding(s); guard them for their platform "
              "(Docs/Platforms.md) or say why with `// platform-audit: <why>`")
        return 1
    print(f"[platforms] ok: {len(files)} files checked")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

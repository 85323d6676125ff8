"""The fences of scripts/check-unsafe.sh: which files may use which unsafe
Swift construct, under which rules (Docs/Internals/UnsafeSwift.md)."""
import os
import re
import sys

LIB = "Sources/LiteRecord/"

# construct: (pattern, files allowed to use it, rules that can make a use safe)
FENCES = {
    "Unmanaged": (
        r"\bUnmanaged\b",
        {"Entity/RecordState.swift", "SQLite/Connection.swift", "SQLite/Connection+Authorizer.swift",
         "SQLite/Connection+Functions.swift", "SQLite/Connection+UpdateHook.swift"},
        {"detached-before-free", "box-lives-while-registered"},
    ),
    "@exclusivity(unchecked)": (
        r"@exclusivity\(unchecked\)",
        {"Context/IdentityMap.swift", "Context/RecordContext.swift",
         # The stored `recordState` that `@Entity` declares in each entity.
         "../LiteRecordMacros/EntityMacro.swift"},
        {"context-confined"},
    ),
    "unsafeDowncast": (
        r"\bunsafeDowncast\(",
        {"Context/IdentityMap.swift", "Context/RecordContext+Fetch.swift", "Entity/Entity+Relationships.swift"},
        {"keyed-by-type", "type-checked-first"},
    ),
    "unsafeBitCast": (
        r"\bunsafeBitCast\(",
        {"Entity/AttributeValue.swift", "SQLite/Connection+Litestream.swift"},
        {"same-layout", "c-symbol-type"},
    ),
    "nonisolated(unsafe) / unowned(unsafe)": (
        r"\b(nonisolated|unowned)\(unsafe\)",
        {"Observation/ObservationGroup.swift"},
        {"never-mutated"},
    ),
    "manual memory (allocate/deallocate)": (
        r"\.allocate\((capacity|byteCount):|\.deallocate\(\)",
        {"Context/IdentityMap.swift", "SQLite/BindingArena.swift"},
        {"owned-buffer", "bound-until-stepped"},
    ),
    "SQLITE_STATIC binding (bytes SQLite does not copy)": (
        r"\bSQLITE_STATIC\b|\barena\.store\(|\.assumingMemoryBound\(|\.bindMemory\(",
        {"SQLite/BindingArena.swift"},
        {"bound-until-stepped"},
    ),
}

TAG = re.compile(r"unsafe\(([a-z0-9-]+)\)")


def code_part(line):
    """The line without its trailing `//` comment (no fenced construct is spelled inside a string)."""
    index = line.find("//")
    return line if index < 0 else line[:index]


def is_comment(line):
    return line.strip().startswith("//")


def tags_covering(lines, index, pattern):
    """The rules tagged on line `index` or in the comments (and uses of the same construct) directly above it."""
    found = set(TAG.findall(lines[index]))
    at = index - 1
    while at >= 0:
        line = lines[at]
        if is_comment(line):
            found |= set(TAG.findall(line))
        elif line.strip() and re.search(pattern, code_part(line)):
            found |= set(TAG.findall(line))
        else:
            break
        at -= 1
    return found


def documented_rules(root):
    path = os.path.join(root, "Docs/Internals/UnsafeSwift.md")
    if not os.path.exists(path):
        return set()
    return set(re.findall(r"^###\s+`([a-z0-9-]+)`", open(path, encoding="utf-8").read(), re.M))


def main(root):
    problems = []
    documented = documented_rules(root)
    for rule in sorted(set().union(*(fence[2] for fence in FENCES.values())) - documented):
        problems.append(f"Docs/Internals/UnsafeSwift.md: the rule `{rule}` has no `### \\`{rule}\\`` section")
    uses = 0
    sources = os.path.join(root, "Sources")
    for folder, _, files in sorted(os.walk(sources)):
        for name in sorted(files):
            if not name.endswith(".swift"):
                continue
            path = os.path.join(folder, name)
            relative = os.path.relpath(path, root)
            inside = os.path.relpath(path, os.path.join(root, LIB))
            lines = open(path, encoding="utf-8").read().split("\n")
            for number, line in enumerate(lines):
                if is_comment(line):
                    continue
                code = code_part(line)
                for construct, (pattern, allowed, rules) in FENCES.items():
                    if not re.search(pattern, code):
                        continue
                    uses += 1
                    where = f"{relative}:{number + 1}"
                    if inside not in allowed:
                        problems.append(
                            f"{where}: {construct} outside its fence; allowed only in "
                            + ", ".join(sorted(allowed)) + " (scripts/lib/unsafe_fences.py)")
                        continue
                    named = tags_covering(lines, number, pattern)
                    if not named & rules:
                        problems.append(
                            f"{where}: {construct} without a comment naming its rule: add `unsafe(<rule>)` "
                            f"with one of {', '.join(sorted(rules))} (Docs/Internals/UnsafeSwift.md)")
    for problem in problems:
        print(problem)
    if problems:
        print(f"[unsafe] {len(problems)} problem(s)")
        return 1
    print(f"[unsafe] ok: {uses} uses of unsafe Swift, each inside its fence with its rule named")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1]))

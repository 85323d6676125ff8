"""The folder-dependency check of scripts/check-layers.sh.

The layers are read from Docs/Layout.md's table, bottom row first: a row
`| `Folder/` | … |` names one layer. `Errors/`, `Logging/` and `Macros/`
(the table's last row, which names several folders) are shared by every
layer and checked by no one.

A file uses a folder's type when it names a type (class, struct, enum,
protocol, actor, typealias) declared in exactly one folder, outside comments
and string literals. An upward use — a folder naming a type of a folder above
it — fails, unless scripts/lib/layer_exceptions.txt lists it with its reason.
"""
import os
import re
import sys

SHARED = {"Errors", "Logging", "Macros"}
DECLARATION = re.compile(
    r"^(?:@\w+(?:\([^)]*\))?\s+)*(?:(?:public|internal|private|fileprivate|package|final|indirect|nonisolated)\s+)*"
    r"(?:class|struct|enum|protocol|actor|typealias)\s+([A-Z]\w*)", re.M)


def layers(root):
    text = open(os.path.join(root, "Docs/Layout.md"), encoding="utf-8").read()
    return [m.group(1) for m in re.finditer(r"^\| `([A-Za-z]+)/` \|", text, re.M)]


def exceptions(root):
    allowed = {}
    path = os.path.join(root, "scripts/lib/layer_exceptions.txt")
    for number, line in enumerate(open(path, encoding="utf-8"), 1):
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        m = re.match(r"^(\w+) -> (\w+): ([\w, ]+?)\s+# (.+)$", line)
        if not m:
            raise SystemExit(f"scripts/lib/layer_exceptions.txt:{number}: expected `From -> To: Name, Name  # reason`")
        for name in m.group(3).split(","):
            allowed[(m.group(1), m.group(2), name.strip())] = m.group(4)
    return allowed


def strip(text):
    text = re.sub(r'"""[\s\S]*?"""', '""', text)
    text = re.sub(r"//[^\n]*", "", text)
    return re.sub(r'"(?:\\.|[^"\\\n])*"', '""', text)


def main(root):
    order = layers(root)
    rank = {folder: index for index, folder in enumerate(order)}
    library = os.path.join(root, "Sources/LiteRecord")
    files, declared = {}, {}
    for folder in sorted(os.listdir(library)):
        if not os.path.isdir(os.path.join(library, folder)) or folder.endswith(".docc"):
            continue
        if folder not in rank and folder not in SHARED:
            print(f"Sources/LiteRecord/{folder}/ is not in Docs/Layout.md's table: add its row")
            return 1
        for directory, _, names in os.walk(os.path.join(library, folder)):
            for name in sorted(names):
                if name.endswith(".swift"):
                    path = os.path.join(directory, name)
                    text = open(path, encoding="utf-8").read()
                    files[path] = (folder, strip(text))
                    for m in DECLARATION.finditer(text):
                        declared.setdefault(m.group(1), set()).add(folder)
    owner = {name: next(iter(folders)) for name, folders in declared.items() if len(folders) == 1}
    allowed = exceptions(root)
    used_exceptions = set()
    problems = []
    for path, (folder, code) in sorted(files.items()):
        if folder in SHARED:
            continue
        for name in sorted(set(re.findall(r"\b[A-Z]\w*\b", code))):
            target = owner.get(name)
            if target is None or target in SHARED or rank[target] <= rank[folder]:
                continue
            key = (folder, target, name)
            if key in allowed:
                used_exceptions.add(key)
                continue
            problems.append(
                f"{os.path.relpath(path, root)}: {folder}/ uses {name} of {target}/, a layer above it "
                f"(Docs/Layout.md); move the dependency down or behind a hook, or list it with its reason "
                f"in scripts/lib/layer_exceptions.txt")
    for key in sorted(set(allowed) - used_exceptions):
        problems.append(f"scripts/lib/layer_exceptions.txt: {key[0]} -> {key[1]}: {key[2]} is no longer used: remove it")
    for problem in problems:
        print(problem)
    if problems:
        print(f"[layers] {len(problems)} problem(s)")
        return 1
    print(f"[layers] ok: {len(files)} files in {len(order)} layers call downward, "
          f"but for {len(used_exceptions)} listed exceptions")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1]))

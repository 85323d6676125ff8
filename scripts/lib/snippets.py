#!/usr/bin/env python3
"""Compiles the ```swift blocks of markdown files; scripts/check-snippets.sh runs it.

    snippets.py --target TARGET [--package DIR] [--output DIR] [--verbose] MARKDOWN...

The rules a guide follows are in scripts/check-snippets.sh. Here: each guide
checked against DIR's build (`.` unless the guide says
`<!-- snippet: package DIR -->`) becomes a module in OUTPUT (DIR/.build/snippets),
one file per block, plus the guide's prelude (`<!-- snippet: prelude FILE -->`,
a Swift file of what its blocks take as given); a `standalone` block is a
module of its own. The blocks a guide marks `<!-- snippet: against DIR -->`
are left out of its own package's check and form, with no prelude, one
module of their own checked against DIR's build (Server.md's Vapor section). Each block is split into top-level items (imports,
declarations, statements); imports and declarations stay at file scope, and
the statements are wrapped, in order, in
`@MainActor func snippet_<line>() async throws { <prelude statements> do { … } }`,
with `#sourceLocation` before every item so that the compiler names the
markdown file and line. The modules are compiled with the flags SwiftPM gave
TARGET, and each failing block is named by file and line.
"""
import argparse
import concurrent.futures
import glob
import hashlib
import json
import os
import re
import subprocess
import sys
import time

FENCE = re.compile(r"^(\s*)(`{3,}|~{3,})\s*([\w+-]*)\s*$")
ANNOTATION = re.compile(r"^\s*<!--\s*snippet:\s*(.*?)\s*-->\s*$")
DEFAULT_IMPORTS = ["Foundation", "LiteRecord"]

MODIFIERS = ("public|private|fileprivate|internal|package|open|final|static|class|nonisolated|"
             "indirect|override|required|convenience|dynamic|mutating|nonmutating|distributed")
DECLARATION = re.compile(
    r"^(?:(?:%s)\s+)*(class|struct|enum|protocol|extension|actor|func|typealias|macro|init|"
    r"subscript|precedencegroup|(?:prefix|postfix|infix)\s+operator|operator)\b" % MODIFIERS)
IMPORT = re.compile(r"^(?:@\w+\s+)*import\s+(?:(?:typealias|struct|class|enum|protocol|let|var|func)\s+)?([\w.]+)")
CONTINUATION = re.compile(r"^(\.|else\b|catch\b|where\b|&&|\|\||\?\?|\?|:|->|==|!=|\+|\*)")


class Failure(Exception):
    pass


def line_starts(lines):
    """For each line: whether it starts in plain code at bracket depth 0.

    A small lexer of Swift's comments, strings (multi-line, raw, with
    interpolations) and brackets: enough to tell where a top-level item of a
    snippet begins, which is all this needs.
    """
    text = "\n".join(lines) + "\n"
    result = []
    depth = 0
    # Modes: ("code",), ("interp", parens), ("string", hashes, multiline), ("comment", nesting)
    modes = [("code",)]
    i = 0
    at_line_start = True
    n = len(text)
    while i < n:
        if at_line_start:
            result.append(modes[-1][0] == "code" and depth == 0)
            at_line_start = False
        c = text[i]
        mode = modes[-1]
        if c == "\n":
            if mode[0] == "string" and not mode[2]:
                modes.pop()  # an unterminated single-line string ends with its line
            at_line_start = True
            i += 1
            continue
        if mode[0] == "comment":
            if text.startswith("/*", i):
                modes[-1] = ("comment", mode[1] + 1)
                i += 2
            elif text.startswith("*/", i):
                if mode[1] == 1:
                    modes.pop()
                else:
                    modes[-1] = ("comment", mode[1] - 1)
                i += 2
            else:
                i += 1
            continue
        if mode[0] == "string":
            hashes, multiline = mode[1], mode[2]
            if c == "\\" and text.startswith("#" * hashes, i + 1):
                j = i + 1 + hashes
                if j < n and text[j] == "(":
                    modes.append(("interp", 0))
                    i = j + 1
                else:
                    i = j + 1
                continue
            closing = ('"""' if multiline else '"') + "#" * hashes
            if text.startswith(closing, i):
                modes.pop()
                i += len(closing)
                continue
            i += 1
            continue
        # code or interpolation
        if text.startswith("//", i):
            while i < n and text[i] != "\n":
                i += 1
            continue
        if text.startswith("/*", i):
            modes.append(("comment", 1))
            i += 2
            continue
        m = re.match(r'(#*)("""|")', text[i:i + 64])
        if m and (m.group(1) == "" or c == "#"):
            modes.append(("string", len(m.group(1)), m.group(2) == '"""'))
            i += m.end()
            continue
        if c in "([{":
            if mode[0] == "interp":
                modes[-1] = ("interp", mode[1] + 1)
            else:
                depth += 1
        elif c in ")]}":
            if mode[0] == "interp":
                if mode[1] == 0 and c == ")":
                    modes.pop()
                else:
                    modes[-1] = ("interp", mode[1] - 1)
            else:
                depth -= 1
        i += 1
    return result[:len(lines)]


def strip_attributes(text):
    """`@Test(.x) @MainActor func f` → `func f`: the attributes in front of a declaration."""
    text = text.lstrip()
    while text.startswith("@"):
        m = re.match(r"@[\w.]+", text)
        if not m:
            break
        i = m.end()
        rest = text[i:]
        if rest.startswith("("):
            level = 0
            for j, ch in enumerate(rest):
                level += ch == "("
                level -= ch == ")"
                if level == 0:
                    i += j + 1
                    break
        text = text[i:].lstrip()
    return text


def split_items(lines):
    """Splits a block into items: (kind, first line index, [lines]); kind is import, decl or stmt."""
    starts = line_starts(lines)
    items = []
    trivia = []  # blank lines and comments waiting for the item they introduce
    current = None
    for index, line in enumerate(lines):
        stripped = line.strip()
        if not starts[index]:
            # Inside brackets, a string or a comment: the item (or comment) goes on.
            (trivia if trivia or current is None else current[2]).append(line)
            continue
        if stripped == "" or stripped.startswith("//") or stripped.startswith("/*"):
            trivia.append(line)
            continue
        previous = re.sub(r"\s//.*$", "", current[2][-1]).strip() if current is not None else ""
        attributes_only = not trivia and previous.startswith("@") and strip_attributes(previous) == ""
        if current is not None and (attributes_only or CONTINUATION.match(stripped)):
            current[2].extend(trivia + [line])
            trivia = []
            continue
        if stripped.startswith("@"):
            # Attributes may stand on lines of their own: look at what follows them.
            following = (re.sub(r"\s//.*$", "", l).strip() for l in lines[index:index + 8])
            head = strip_attributes(" ".join(following))
        else:
            head = stripped
        if IMPORT.match(head):
            kind = "import"
        elif DECLARATION.match(head):
            kind = "decl"
        else:
            kind = "stmt"
        current = [kind, index - len(trivia), trivia + [line]]
        trivia = []
        items.append(current)
    if trivia and current is not None:
        current[2].extend(trivia)
    return [tuple(item) for item in items]


class Block:
    def __init__(self, path, fence_line, lines, annotation):
        self.path = path
        self.fence_line = fence_line      # 1-based line of the opening fence
        self.first = fence_line + 1       # 1-based line of its first line of code
        self.lines = lines
        self.annotation = annotation
        self.items = split_items(lines)

    def is_manifest(self):
        """A whole Package.swift, which starts with its tools version."""
        return next((l for l in self.lines if l.strip()), "").startswith("// swift-tools-version:")

    @property
    def last(self):
        return self.first + len(self.lines) - 1

    def imports(self):
        """[(module, markdown line)] of the block's import lines."""
        found = []
        for kind, index, item_lines in self.items:
            if kind == "import":
                for offset, l in enumerate(item_lines):
                    m = IMPORT.match(l.strip())
                    if m:
                        found.append((m.group(1).split(".")[0], self.first + index + offset))
        return found


def read_guide(path):
    """The guide's swift blocks, its prelude (a Block or None) and its package."""
    text = open(path, encoding="utf-8").read().split("\n")
    blocks, prelude, package = [], None, "."
    annotation = None  # the last annotation seen, until the next non-blank line
    i = 0
    while i < len(text):
        line = text[i]
        m = ANNOTATION.match(line)
        if m:
            words = m.group(1).split(None, 1)
            if words and words[0] == "package":
                package = words[1].strip() if len(words) > 1 else ""
                if not package:
                    raise Failure(f"{path}:{i + 1}: 'snippet: package' needs a folder")
            elif words and words[0] == "skip" and len(words) > 1:
                annotation = ("skip", words[1], i + 1)
            elif words and words[0] == "standalone" and len(words) == 1:
                annotation = ("standalone", None, i + 1)
            elif words and words[0] == "against" and len(words) == 2:
                annotation = ("against", os.path.normpath(words[1].strip()), i + 1)
            elif words and words[0] == "prelude" and len(words) == 2:
                # Swift in a file of its own: DocC reads a line starting with
                # `@` as a directive even inside an HTML comment.
                if prelude is not None:
                    raise Failure(f"{path}:{i + 1}: a second snippet prelude (one per file)")
                source = os.path.normpath(os.path.join(os.path.dirname(path), words[1].strip()))
                if not os.path.isfile(source):
                    raise Failure(f"{path}:{i + 1}: the snippet prelude {source} does not exist")
                prelude = Block(source, 0, open(source, encoding="utf-8").read().rstrip("\n").split("\n"), "prelude")
            else:
                raise Failure(f"{path}:{i + 1}: unknown snippet annotation '{m.group(1)}' "
                              "(known: skip REASON, standalone, against DIR, prelude FILE, package DIR)")
            i += 1
            continue
        fence = FENCE.match(line)
        if fence:
            indent, marks, language = fence.groups()
            end = i + 1
            while end < len(text):
                closing = FENCE.match(text[end])
                if closing and closing.group(2)[0] == marks[0] and len(closing.group(2)) >= len(marks) \
                        and closing.group(3) == "":
                    break
                end += 1
            if language == "swift":
                body = [l[len(indent):] if l.startswith(indent) else l.lstrip() for l in text[i + 1:end]]
                blocks.append(Block(path, i + 1, body, annotation))
            elif annotation:
                raise Failure(f"{path}:{annotation[2]}: a snippet annotation before a block that is not swift")
            annotation = None
            i = end + 1
            continue
        if line.strip() and annotation:
            raise Failure(f"{path}:{annotation[2]}: a snippet annotation must stand right before a ```swift block")
        i += 1
    return blocks, prelude, package


def swift_string(text):
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'


def located(path, first, item_lines):
    return [f"#sourceLocation(file: {swift_string(path)}, line: {first})"] + item_lines + ["#sourceLocation()"]


def block_source(block, prelude, default_imports):
    header = [f"// Generated by scripts/check-snippets.sh from {block.path}, line {block.first}: do not edit."]
    own = [item for item in block.items if item[0] == "import"]
    out = header
    if own:
        for _, index, item_lines in own:
            out += located(block.path, block.first + index, item_lines)
    else:
        out += import_lines(default_imports)
    for kind, index, item_lines in block.items:
        if kind == "decl":
            out += located(block.path, block.first + index, item_lines)
    statements = [item for item in block.items if item[0] == "stmt"]
    if statements:
        out.append(f"@MainActor func snippet_{block.first}() async throws {{")
        if prelude is not None:
            for kind, index, item_lines in prelude.items:
                if kind == "stmt":
                    out += located(prelude.path, prelude.first + index, item_lines)
        out.append("do {")
        for _, index, item_lines in statements:
            out += located(block.path, block.first + index, item_lines)
        out += ["}", "}"]
    return "\n".join(out) + "\n"


def manifest_source(block):
    # The tools version must stay the first line; what follows points at the markdown.
    first = next(i for i, l in enumerate(block.lines) if l.strip())
    return "\n".join(block.lines[:first + 1] + located(block.path, block.first + first + 1, block.lines[first + 1:])) + "\n"


def import_lines(imports):
    out = []
    for module, origin in imports.items():
        out += located(origin[0], origin[1], [f"import {module}"]) if origin else [f"import {module}"]
    return out


def prelude_source(prelude, default_imports):
    out = [f"// Generated by scripts/check-snippets.sh from the snippet prelude of {prelude.path}: do not edit."]
    # The prelude's own imports are among the defaults, which every block without imports gets.
    out += import_lines(default_imports)
    for kind, index, item_lines in prelude.items:
        if kind == "decl":
            out += located(prelude.path, prelude.first + index, item_lines)
    return "\n".join(out) + "\n"


def module_name(path):
    stem = re.sub(r"\.md$", "", path)
    return "Snippets_" + re.sub(r"\W", "_", stem)


def generate(output, package, paths):
    """Writes the modules of the guides checked against `package`.

    Returns [(module, markdown path, blocks, prelude)] and the skipped blocks.
    """
    modules, skipped = [], []
    for path in paths:
        blocks, prelude, guide_package = read_guide(path)
        against = [b for b in blocks if b.annotation and b.annotation[0] == "against"]
        blocks = [b for b in blocks if not (b.annotation and b.annotation[0] == "against")]
        if os.path.normpath(guide_package) != os.path.normpath(package):
            # Only the blocks the guide checks against this package, if any:
            # one module, their own imports, no prelude.
            own = [b for b in against if b.annotation[1] == os.path.normpath(package)]
            if own:
                imports = {module: None for module in DEFAULT_IMPORTS}
                for block in own:
                    for module, line in block.imports():
                        imports.setdefault(module, (path, line))
                name = module_name(path) + "_against"
                write_module(output, name, {f"line{b.first}.swift": block_source(b, None, imports) for b in own})
                modules.append((name, path, own, None))
            continue
        skipped += [f"{path}:{b.first}: checked against {b.annotation[1]}" for b in against]
        # The imports of a block without any: the defaults, then every module
        # another block (or the prelude) imports, located where it does.
        imports = {module: None for module in DEFAULT_IMPORTS}
        for block in ([prelude] if prelude else []) + blocks:
            if not (block.annotation and block.annotation[0] == "skip") and not block.is_manifest():
                for module, line in block.imports():
                    imports.setdefault(module, (path, line))
        shared, own = [], []
        for block in blocks:
            if block.annotation and block.annotation[0] == "skip":
                skipped.append(f"{path}:{block.first}: {block.annotation[1]}")
            elif block.is_manifest():
                own.append((f"{module_name(path)}_manifest_{block.first}", path, [block]))
            elif block.annotation and block.annotation[0] == "standalone":
                own.append((f"{module_name(path)}_{block.first}", path, [block]))
            else:
                shared.append(block)
        guide_modules = ([(module_name(path), path, shared)] if shared else []) + own
        for name, _, module_blocks in guide_modules:
            folder = os.path.join(output, name)
            os.makedirs(folder, exist_ok=True)
            sources = {}
            if module_blocks[0].is_manifest():
                sources["Package.swift"] = manifest_source(module_blocks[0])
            else:
                if prelude is not None:
                    sources["prelude.swift"] = prelude_source(prelude, imports)
                for block in module_blocks:
                    sources[f"line{block.first}.swift"] = block_source(block, prelude, imports)
            write_module(output, name, sources)
        modules += [(name, path, module_blocks, prelude) for name, path, module_blocks in guide_modules]
    return modules, skipped


def write_module(output, name, sources):
    """Writes a module's files, removing what an earlier run left."""
    folder = os.path.join(output, name)
    os.makedirs(folder, exist_ok=True)
    for old in os.listdir(folder):
        if old not in sources:
            os.remove(os.path.join(folder, old))
    for file, text in sources.items():
        target = os.path.join(folder, file)
        if not os.path.exists(target) or open(target).read() != text:
            open(target, "w").write(text)


def compiler_flags(plan, target):
    """The flags SwiftPM compiles `target` with, less what is about that target.

    Kept: search paths, C module maps, macro plugins, the target triple and
    the language mode. Dropped: its name, sources and outputs, -D, upcoming
    features and the like (a reader's package has its own).
    """
    # SwiftPM builds test targets, and what they import, for the host
    # ("-tool") when the package has macros; the plan names either form.
    key = re.compile(r'^  "C\.%s-[\w.]+(-[\w.]+)*-debug(-tool)?\.module":$' % re.escape(target))
    lines = open(plan).read().split("\n")
    args = None
    for i, line in enumerate(lines):
        if key.match(line):
            for following in lines[i + 1:i + 12]:
                if following.strip().startswith("args: "):
                    args = json.loads(following.strip()[len("args: "):])
                    break
            break
    if args is None:
        raise Failure(f"{plan} has no compile command of target {target}: run `swift build --build-tests` first")
    pairs = {"-I", "-F", "-Xcc", "-Xfrontend", "-module-cache-path", "-target", "-sdk", "-resource-dir",
             "-plugin-path", "-external-plugin-path", "-load-plugin-executable", "-load-plugin-library",
             "-swift-version", "-vfsoverlay"}
    kept, i = [], 1
    while i < len(args):
        if args[i] in pairs and i + 1 < len(args):
            kept += args[i:i + 2]
            i += 2
        else:
            i += 1
    return kept


def dependencies_digest(flags):
    """What a module's result depends on besides its sources: compiler, flags, the modules and plugins it loads."""
    digest = hashlib.sha256(subprocess.run(["swiftc", "--version"], capture_output=True).stdout)
    digest.update("\n".join(flags).encode())
    plain = [f for f in flags if f != "-Xfrontend"]
    for flag, value in zip(plain, plain[1:]):
        paths = sorted(glob.glob(os.path.join(value, "*.swiftmodule"))) if flag == "-I" else \
            [value.split("#")[0]] if flag == "-load-plugin-executable" else []
        for path in paths:
            status = os.stat(path)
            digest.update(f"{path} {status.st_size} {status.st_mtime_ns}\n".encode())
    return digest.hexdigest()


def compile_module(output, name, flags, dependencies):
    """Compiles one module unless it passed with the same inputs; returns (ok, compiler output)."""
    folder = os.path.join(output, name)
    files = sorted(os.path.join(folder, f) for f in os.listdir(folder))
    digest = hashlib.sha256(dependencies.encode())
    for file in files:
        digest.update(open(file, "rb").read())
    stamp, stamp_path = digest.hexdigest(), os.path.join(output, name + ".ok")
    if os.path.exists(stamp_path) and open(stamp_path).read() == stamp:
        return True, ""
    if os.path.exists(stamp_path):
        os.remove(stamp_path)
    if files == [os.path.join(folder, "Package.swift")]:
        # A manifest is compiled and run the way SwiftPM does, without
        # fetching what it depends on.
        command = ["swift", "package", "--package-path", folder, "dump-package"]
    else:
        # -emit-sil runs the diagnostic passes that follow type checking
        # (definite initialization, data-race safety) and stops before code
        # generation.
        command = ["swiftc", "-emit-sil", "-wmo", "-parse-as-library", "-suppress-warnings",
                   "-o", os.devnull, "-module-name", name] + flags + files
    result = subprocess.run(command, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    if result.returncode == 0:
        open(stamp_path, "w").write(stamp)
    # dump-package prints the manifest as JSON: only its errors matter.
    return result.returncode == 0, result.stdout if result.returncode else ""


ERROR = re.compile(r"^(.+?):(\d+):(\d+): error: ")
GENERATED = re.compile(r"/(Snippets_\w+)/(?:line(\d+)|prelude)\.swift:\d+:\d+: note: expanded code originates here")


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--package", default=".")
    parser.add_argument("--target", required=True)
    parser.add_argument("--verbose", action="store_true")
    parser.add_argument("--output", help="where the modules go (default: the package's .build/snippets)")
    parser.add_argument("--build", help="the package's build folder, when built with --scratch-path (default: its .build)")
    parser.add_argument("markdown", nargs="+")
    options = parser.parse_args()
    started = time.monotonic()
    build = options.build or os.path.join(options.package, ".build")
    output = os.path.normpath(options.output or os.path.join(build, "snippets"))
    try:
        plan = os.path.join(build, "debug.yaml")
        if not os.path.exists(plan):
            raise Failure(f"{plan} is missing: run `swift build --build-tests` in {options.package} first")
        flags = compiler_flags(plan, options.target)
        modules, skipped = generate(output, options.package, options.markdown)
    except Failure as failure:
        print(f"[snippets] error: {failure}")
        return 2
    dependencies = dependencies_digest(flags)
    with concurrent.futures.ThreadPoolExecutor(max_workers=os.cpu_count() or 2) as pool:
        results = list(pool.map(lambda module: compile_module(output, module[0], flags, dependencies), modules))
    count = sum(len(blocks) for _, _, blocks, _ in modules)
    failed, logs = [], []
    for (name, path, blocks, prelude), (ok, log) in zip(modules, results):
        if ok:
            continue
        logs.append(log.rstrip())
        # An error names a line of the markdown file; one in a macro's
        # expansion is followed by a note naming the generated file, whose
        # name is the line of its block.
        named = False
        for line in log.split("\n"):
            m, generated = ERROR.match(line), GENERATED.search(line)
            number = int(m.group(2)) if m and m.group(1) == path else \
                int(generated.group(2)) if generated and generated.group(1) == name else None
            in_prelude = prelude is not None and m and m.group(1) == prelude.path
            if in_prelude or (generated and generated.group(1) == name and generated.group(2) is None):
                entry = f"  {prelude.path}: the snippet prelude of {path}"
                if entry not in failed:
                    failed.append(entry)
                named = True
            for block in blocks:
                if number is not None and block.first <= number <= block.last:
                    named = True
                    entry = f"  {path}:{block.first}: the block of lines {block.first}-{block.last}"
                    if entry not in failed:
                        failed.append(entry)
        if not named:
            failed.append(f"  {path}: module {name} (generated in {output}/{name}) failed with no error in a block")
    if failed:
        print("\n".join(logs))
        print(f"[snippets] FAILED: {len(failed)} of {count} blocks do not compile:")
        print("\n".join(failed))
        return 1
    if options.verbose:
        for line in skipped:
            print(f"[snippets] not compiled: {line}")
        print(f"[snippets] {len(modules)} modules, {time.monotonic() - started:.1f} s")
    print(f"[snippets] {count} blocks compiled")
    return 0


if __name__ == "__main__":
    sys.exit(main())

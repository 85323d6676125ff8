"""Lengths of Swift functions, initializers, accessors and closures-as-members.

Used by scripts/check-function-length.sh. A declaration's length is the number
of lines from its `func`/`init`/`deinit`/`subscript` keyword line to the line of
its closing brace. Strings and comments are skipped when matching braces.
"""
import re
import sys
from pathlib import Path

DECL = re.compile(r'^\s*(?:@[\w().:, "]+\s+)*(?:(?:public|internal|private|fileprivate|package|open|static|class|final|override|mutating|nonmutating|nonisolated|convenience|required|dynamic|@inlinable|@usableFromInline|@discardableResult)\s+)*(func\s+[^\s(<]+|init[?!]?|deinit|subscript)\b')


def strip_code(text):
    """Returns the text with string literals and comments blanked, same lines."""
    out = []
    i, n = 0, len(text)
    while i < n:
        c = text[i]
        if text.startswith('//', i):
            j = text.find('\n', i)
            j = n if j < 0 else j
            out.append(' ' * (j - i))
            i = j
        elif text.startswith('/*', i):
            depth, j = 1, i + 2
            while j < n and depth:
                if text.startswith('/*', j):
                    depth, j = depth + 1, j + 2
                elif text.startswith('*/', j):
                    depth, j = depth - 1, j + 2
                else:
                    j += 1
            out.append(''.join('\n' if ch == '\n' else ' ' for ch in text[i:j]))
            i = j
        elif c == '"' or (c == '#' and re.match(r'#+"', text[i:])):
            m = re.match(r'(#*)("""|")', text[i:])
            hashes, quote = m.group(1), m.group(2)
            close = quote + hashes
            j = i + len(m.group(0))
            interp_depth = 0
            while j < n:
                if text.startswith('\\' + hashes + '(', j):
                    # interpolation: skip balanced parentheses
                    k, depth = j + len(hashes) + 2, 1
                    while k < n and depth:
                        if text[k] == '(':
                            depth += 1
                        elif text[k] == ')':
                            depth -= 1
                        k += 1
                    j = k
                    continue
                if text[j] == '\\' and not hashes:
                    j += 2
                    continue
                if text.startswith(close, j):
                    j += len(close)
                    break
                j += 1
            out.append(''.join('\n' if ch == '\n' else ' ' for ch in text[i:j]))
            i = j
        else:
            out.append(c)
            i += 1
    return ''.join(out)


def functions(path):
    """Yields (name, first line, length, marked) for each function in a file."""
    raw = Path(path).read_text()
    raw_lines = raw.split('\n')
    code = strip_code(raw).split('\n')
    for index, line in enumerate(code):
        m = DECL.match(line)
        if not m:
            continue
        # find the opening brace of the body (may be a few lines later)
        depth, started, end = 0, False, None
        paren = 0
        for j in range(index, min(len(code), index + 400)):
            segment = code[j] if j > index else code[j][m.start(1):]
            for ch in segment:
                if ch in '([':
                    paren += 1
                elif ch in ')]':
                    paren -= 1
                elif ch == '{' and paren == 0:
                    depth += 1
                    started = True
                elif ch == '}' and started:
                    depth -= 1
                    if depth == 0:
                        end = j
                        break
                elif ch == '}' and not started:
                    end = -1
                    break
            if end is not None:
                break
            if not started and j > index and code[j].strip() == '':
                break  # a requirement without a body
        if end is None or end < 0 or not started:
            continue
        name = m.group(1).replace('func ', '')
        before = '\n'.join(raw_lines[max(0, index - 8):index])
        marked = 'registration list' in before.lower()
        yield name, index + 1, end - index + 1, marked


def main(argv):
    limit = int(argv[0])
    roots = argv[1:]
    rows = []
    for root in roots:
        for path in sorted(Path(root).rglob('*.swift')):
            for name, line, length, marked in functions(path):
                rows.append((length, f'{path}:{line}', name, marked))
    rows.sort(key=lambda r: (-r[0], r[1]))
    return rows, limit


if __name__ == '__main__':
    # usage: function_lengths.py --top N ROOT... | --check LIMIT ROOT...
    mode = sys.argv[1]
    rows, limit = main(sys.argv[2:])
    if mode == '--top':
        for length, where, name, marked in rows[:limit]:
            print(f'{length:4d}  {name:28s} {where}{"  (registration list)" if marked else ""}')
    else:
        over = [r for r in rows if r[0] > limit and not r[3]]
        for length, where, name, _ in over:
            print(f'{where}: {name} is {length} lines (limit {limit})')
        sys.exit(1 if over else 0)

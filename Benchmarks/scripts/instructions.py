#!/usr/bin/env python3
"""`make bench-instructions`: instructions of each workload's timed part.

Wall-clock ratios on a shared 2-core machine move by half between runs;
instruction counts do not. For every workload and engine this prepares a fresh
store, runs one child of the benchmark executable under callgrind with
collection off until the stopwatch starts it (Benchmarks/README.md, "Profiling
one child"), and reads the total instructions of the timed part. It prints a
table and writes it into Docs/Performance.md, between the markers of its
"Instructions" section, with the command, date and commit it measured.

Usage: instructions.py BENCHMARK_BINARY [--n 20000] [--authors 2000]
       [--workloads a,b] [--engines a,b] [--no-report]
"""
import argparse
import datetime
import os
import re
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
PAGE = ROOT / 'Docs' / 'Performance.md'
BEGIN = '<!-- bench-instructions: begin -->'
END = '<!-- bench-instructions: end -->'

# Workloads whose timed part one synchronous child can be counted in:
# `concurrent` runs threads for a fixed time and `memory` is untimed.
WORKLOADS = ['insert', 'insert-built', 'fetch', 'query', 'update', 'delete', 'enumerate', 'open',
             'launch', 'rel-fetch', 'rel-walk', 'rel-cascade']
ENGINES = ['raw-c', 'grdb-records', 'literecord']
# The targets of performance round 5, in instructions against raw C (None:
# no target).
TARGETS = {
    'insert-built': 1.10, 'fetch': 1.15, 'query': 1.08, 'update': 1.15, 'delete': 1.08,
    'rel-walk': 1.50, 'rel-fetch': 1.40, 'rel-cascade': 2.50, 'launch': 10.0,
}
# Workloads whose target also asks for fewer instructions than GRDB records.
BELOW_GRDB = {'rel-cascade'}
RELATIONSHIP = {'rel-fetch', 'rel-walk', 'rel-cascade'}


def run(command, **kwargs):
    return subprocess.run(command, check=True, text=True, capture_output=True, **kwargs)


def count(binary, engine, workload, n, authors, work):
    """Total instructions of one child's timed part, or None when the engine
    does not run the workload."""
    store = work / f'{engine}-{workload}.sqlite'
    for suffix in ('', '-wal', '-shm'):
        Path(f'{store}{suffix}').unlink(missing_ok=True)
    size = ['--authors', str(authors)] if workload in RELATIONSHIP else ['--n', str(n), '--enumerate-n', str(n)]
    common = ['--engine', engine, '--workload', workload, '--store', str(store)] + size
    prepared = subprocess.run([binary, '--prepare'] + common, text=True, capture_output=True)
    if prepared.returncode != 0:
        if 'does not run' in prepared.stderr or 'not supported' in prepared.stderr:
            return None
        raise RuntimeError(f'preparing {engine} {workload}: {prepared.stderr.strip()}')
    out = work / f'{engine}-{workload}.callgrind'
    child = subprocess.run(
        ['valgrind', '--tool=callgrind', '--collect-atstart=no', f'--callgrind-out-file={out}', binary, '--child'] + common,
        text=True, capture_output=True)
    if child.returncode != 0:
        if 'does not run' in child.stderr or 'not supported' in child.stderr:
            return None
        raise RuntimeError(f'{engine} {workload} under callgrind: {child.stderr.strip()[-2000:]}')
    for line in out.read_text(errors='replace').splitlines():
        if line.startswith('totals:') or line.startswith('summary:'):
            return int(line.split()[1])
    raise RuntimeError(f'{out}: no totals line')


def commit():
    head = run(['git', '-C', str(ROOT), 'rev-parse', '--short', 'HEAD']).stdout.strip()
    dirty = run(['git', '-C', str(ROOT), 'status', '--porcelain', '--untracked-files=no', '--', 'Sources', 'Benchmarks/Sources']).stdout.strip()
    return head + (' (with uncommitted changes to Sources/ or Benchmarks/Sources/)' if dirty else '')


def millions(value):
    return f'{value / 1e6:,.1f}M'


def table(results, n, authors, command, when, measured):
    valgrind = run(['valgrind', '--version']).stdout.strip()
    lines = [
        BEGIN,
        '',
        f'Measured by `{command}` on {when} UTC, commit {measured}, {valgrind}: one child per',
        f'cell, N = {n:,} (the relationship workloads: {authors:,} authors and their {authors * 10:,} books),',
        'instructions of the timed part only (callgrind starts collecting when the stopwatch',
        'starts). Exact on a busy machine, where the wall-clock table above is not; blind to',
        'what instructions do not show: I/O, cache misses, contention, memory.',
        '',
        '| workload | raw C | GRDB records | LiteRecord | LiteRecord / raw C | target | met |',
        '|---|--:|--:|--:|--:|--:|---|',
    ]
    for workload in WORKLOADS:
        row = results.get(workload)
        if not row:
            continue
        raw, grdb, mine = row.get('raw-c'), row.get('grdb-records'), row.get('literecord')
        ratio = mine / raw if raw and mine else None
        target = TARGETS.get(workload)
        below_grdb = workload in BELOW_GRDB
        met = '–' if target is None or ratio is None else (
            'yes' if ratio <= target and (not below_grdb or (grdb and mine < grdb)) else '**no**')
        target_text = f'≤ {target:.2f}×' + (', < GRDB records' if below_grdb else '') if target else '–'
        lines.append(
            f'| {workload} | {millions(raw) if raw else "–"} | '
            + (f'{millions(grdb)} ({grdb / raw:.2f}×)' if grdb and raw else '–')
            + f' | {millions(mine) if mine else "–"} | {f"{ratio:.2f}×" if ratio else "–"} | '
            + f'{target_text} | {met} |')
    lines += ['', END]
    return '\n'.join(lines)


def write_page(section):
    text = PAGE.read_text()
    if BEGIN in text and END in text:
        start, end = text.index(BEGIN), text.index(END) + len(END)
        text = text[:start] + section + text[end:]
    else:
        # First run: a section of its own before the hand-written ones.
        heading = '\n## Instructions\n\n' + section + '\n'
        places = [text.find(m) for m in ('\n## Profile notes\n', '\n## Server\n') if m in text]
        if places:
            text = text[:min(places)] + heading + text[min(places):]
        else:
            text = text.rstrip('\n') + '\n' + heading
    PAGE.write_text(text)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument('binary')
    parser.add_argument('--n', type=int, default=20_000)
    parser.add_argument('--authors', type=int, default=2_000)
    parser.add_argument('--workloads', default=','.join(WORKLOADS))
    parser.add_argument('--engines', default=','.join(ENGINES))
    parser.add_argument('--no-report', action='store_true')
    args = parser.parse_args()
    workloads = args.workloads.split(',')
    engines = args.engines.split(',')
    when = datetime.datetime.now(datetime.timezone.utc).strftime('%Y-%m-%d %H:%M')
    measured = commit()
    results = {}
    with tempfile.TemporaryDirectory(prefix='bench-instructions-') as directory:
        work = Path(directory)
        # Valgrind 3.19 cannot read Swift 6.3's debug information: a copy
        # without it keeps the symbols (Benchmarks/README.md).
        binary = work / 'bench'
        run(['strip', '-g', '-o', str(binary), args.binary])
        for workload in workloads:
            for engine in engines:
                value = count(str(binary), engine, workload, args.n, args.authors, work)
                if value is None:
                    continue
                results.setdefault(workload, {})[engine] = value
                print(f'{workload:13s} {engine:13s} {millions(value):>10s}', flush=True)
    command = 'make bench-instructions'
    if args.n != 20_000 or args.authors != 2_000 or workloads != WORKLOADS or engines != ENGINES:
        command = 'Benchmarks/scripts/instructions.py ' + ' '.join(sys.argv[2:])
    section = table(results, args.n, args.authors, command, when, measured)
    print(section)
    if not args.no_report and workloads == WORKLOADS and engines == ENGINES:
        write_page(section)
        print(f'wrote {PAGE.relative_to(ROOT)}')


if __name__ == '__main__':
    main()

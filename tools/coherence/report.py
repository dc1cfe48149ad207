#!/usr/bin/env python3
"""report.py - tables from the coherence plugin's reports (tools/coherence/coherence.c).

    report.py OUT.md RUN.txt...

Each RUN.txt is a plugin report with a first line of its own added by run.sh:
    run allocator=A workload=W threads=N ops=OPS

Every instruction that moved a line is put in one of four classes by where it
is: Quarry's mm/ (and the kernel code it calls: locks, the shim), the
workloads' lock-step token (lockstep_*, the price of the method, left out),
the rest of the workloads program (the harness: its slots and tags), or a
shared library (a peer allocator, or the C library a peer or glibc runs in).
For a peer, the library is the allocator. Figures are line moves (transfers
plus invalidations) per operation, an operation being one allocation and the
free of the object it replaces.
"""
import os
import re
import subprocess
import sys
from collections import defaultdict


def parse(path):
    run, head, insns, lines = {}, {}, [], []
    with open(path) as f:
        for n, text in enumerate(f, 1):
            w = text.split()
            if not w:
                continue
            kv = dict(x.split('=', 1) for x in w[1:] if '=' in x)
            if w[0] == 'run':
                run = kv
            elif w[0] == 'coherence':
                head = kv
            elif w[0] == 'insn':
                insns.append((int(w[1], 16), w[2], int(kv['accesses']), int(kv['transfers']),
                              int(kv['invalidations'])))
            elif w[0] == 'line':
                by = [(int(a, 16), int(c)) for a, c in (x.split(':') for x in w[w.index('by') + 1:])]
                lines.append((int(w[1], 16), int(kv['transfers']), int(kv['invalidations']),
                              int(kv['readers']), int(kv['writers']), by))
            elif w[0] not in ('total', 'vcpu'):
                sys.exit(f"report.py: {path}:{n}: not a coherence report line: {text.strip()[:80]}")
    if not head or not run:
        sys.exit(f"report.py: {path}: no 'coherence' header or no 'run' line (did the run finish?)")
    return run, head, insns, lines


class Binary:
    """Addresses of the workloads program -> function, file:line (addr2line)."""

    def __init__(self, path, start_code):
        self.path = path
        out = subprocess.run(['readelf', '-lW', path], capture_output=True, text=True).stdout
        xs = [int(m.group(1), 16) for m in re.finditer(
            r'LOAD\s+0x[0-9a-f]+\s+(0x[0-9a-f]+)\s+\S+\s+\S+\s+\S+\s+R E', out)]
        self.bias = start_code - min(xs) if xs else 0
        self.cache = {}

    def where(self, pcs):
        todo = [p for p in pcs if p not in self.cache]
        if todo:
            out = subprocess.run(['addr2line', '-f', '-e', self.path] +
                                 ['0x%x' % (p - self.bias) for p in todo],
                                 capture_output=True, text=True).stdout.split('\n')
            for i, p in enumerate(todo):
                fn = out[2 * i] if 2 * i < len(out) else '?'
                loc = out[2 * i + 1] if 2 * i + 1 < len(out) else '?'
                m = re.search(r'((?:mm|kernel|lab|tests|tools)/[^ ]*)', loc)
                self.cache[p] = (fn, m.group(1) if m else os.path.basename(loc))
        return [self.cache[p] for p in pcs]


def klass(pc, sym, head, binary):
    lo, hi = int(head['start_code'], 16), int(head['end_code'], 16)
    if not lo <= pc < hi:
        return 'library'
    if sym.startswith('lockstep_'):
        return 'token'
    fn, loc = binary.where([pc])[0]
    return 'quarry' if loc.startswith(('mm/', 'kernel/', 'tests/host/')) else 'harness'


def main():
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    rows, details = [], []
    for path in sys.argv[2:]:
        run, head, insns, lines = parse(path)
        binary = Binary(head['binary'], int(head['start_code'], 16))
        ops = int(run['ops'])
        peer = run['allocator'] in ('glibc', 'jemalloc', 'tcmalloc', 'mimalloc', 'locked')
        moves = defaultdict(int)
        cls = {}
        syms = {pc: sym for pc, sym, *_ in insns}
        for pc, sym, acc, tr, inv in insns:
            cls[pc] = klass(pc, sym, head, binary)
            moves[cls[pc]] += tr + inv
        alloc = moves['library'] if peer else moves['quarry']
        rows.append((run['allocator'], run['workload'], int(run['threads']), ops, alloc / ops,
                     moves['harness'] / ops, (moves['quarry'] if peer else moves['library']) / ops))
        # The lines the allocator moved most, with the instructions that moved them.
        mine = 'library' if peer else 'quarry'
        top = []
        for addr, tr, inv, rd, wr, by in lines:
            if not any(cls.get(pc, 'library' if peer else 'harness') == mine for pc, _ in by):
                continue
            where = []
            for (pc, n) in by:
                if peer and cls.get(pc, 'library') == 'library':
                    where.append('%s (library) %d' % (syms.get(pc, '?'), n))
                elif cls.get(pc) == mine:
                    fn, loc = binary.where([pc])[0]
                    where.append('%s %s %d' % (fn, loc, n))
            top.append((tr + inv, addr, rd, wr, '; '.join(where)))
            if len(top) == 5:
                break
        details.append((run, ops, top))
    rows.sort(key=lambda r: (r[0], r[1], r[2]))
    with open(sys.argv[1], 'w') as out:
        out.write('# Cache-line moves between CPUs, modelled (tools/coherence)\n\n')
        out.write('Venue: the workloads program under qemu-user with the coherence plugin: '
                  'every data access of every thread through a model of line ownership '
                  '(infinite caches, 64-byte lines), the threads in lock step (one '
                  'allocation each in turn: the finest interleaving, the same on any '
                  'machine). A move is a transfer (a line modified in another CPU\'s cache) '
                  'or an invalidation (a store to a line others hold). Per operation (one '
                  'allocation and one free). A model, not a measurement of time.\n\n')
        out.write('| allocator | workload | threads | operations | moves/op by the allocator '
                  '| by the harness | by other code |\n|---|---|---|---|---|---|---|\n')
        for a, w, n, ops, al, ha, ot in rows:
            out.write('| %s | %s | %d | %d | %.4f | %.4f | %.4f |\n' % (a, w, n, ops, al, ha, ot))
        out.write('\n## The lines each allocator moved most\n')
        for run, ops, top in sorted(details, key=lambda d: (d[0]['allocator'], d[0]['workload'],
                                                             int(d[0]['threads']))):
            out.write('\n### %s, %s, %s threads (%d operations)\n\n' % (
                run['allocator'], run['workload'], run['threads'], ops))
            if not top:
                out.write('None.\n')
                continue
            out.write('| moves | line | readers | writers | moved by (function, source, count) |\n'
                      '|---|---|---|---|---|\n')
            for m, addr, rd, wr, where in top:
                out.write('| %d | 0x%x | %d | %d | %s |\n' % (m, addr, rd, wr, where))
    print('coherence: wrote %s (%d runs)' % (sys.argv[1], len(rows)))


if __name__ == '__main__':
    main()

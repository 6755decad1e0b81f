# SPDX-License-Identifier: LGPL-2.1-or-later
# classify.py FILE...: the counts of an instruction list of step.py (AT&T
# syntax: the last operand is the destination).
import sys, re
def ops(s):
    # split operands at top-level commas
    out, depth, cur = [], 0, ''
    for ch in s:
        if ch == '(':
            depth += 1
        if ch == ')':
            depth -= 1
        if ch == ',' and depth == 0:
            out.append(cur); cur = ''
        else:
            cur += ch
    if cur: out.append(cur)
    return [o.strip() for o in out]
for f in sys.argv[1:]:
    n = br = ld = st = rmw = stack = lock = 0
    for line in open(f):
        line = line.split('#')[0].strip()
        if not line: continue
        m = line.split(None, 1)
        mn = m[0]; o = ops(m[1]) if len(m) > 1 else []
        n += 1
        if mn.startswith('lock'): lock += 1
        if mn in ('push', 'pop'): stack += 1; continue
        if re.match(r'j(?!mp)', mn): br += 1; continue
        if mn.startswith('lea') or mn.startswith('nop') or mn.startswith('j') or mn.startswith('call') or mn.startswith('ret'): continue
        mem = [i for i, x in enumerate(o) if '(' in x or 'fs:' in x]
        if not mem: continue
        last = len(o) - 1
        if mn.startswith(('cmp', 'test')):
            ld += 1
        elif mem == [last] and len(o) > 1:
            if mn.startswith('mov'):
                st += 1
            else:
                rmw += 1
        elif last in mem and mn.startswith(('xadd',)):
            rmw += 1
        else:
            ld += 1
    print("%s: %d instructions (%d push/pop of the wrapper), %d conditional branches, %d loads, %d stores, %d read-modify-writes on memory, %d LOCKed" % (f, n, stack, br, ld, st, rmw, lock))

#!/usr/bin/env python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""graph_check.py TREE TEXT JSON STAT: a function_graph recording of a
one-thread program against the call tree the program logged itself.

TREE: "depth function" lines, one per call in call order (the program's
own bookkeeping); TEXT: `ringtrace report` (function_graph text); JSON:
`ringtrace report --format=json`; STAT: `ringtrace report --stat`.

Checks: the text report's calls (depth from the indentation) are the
program's; the JSON's slices nest (each "E" ends the innermost open
slice of its thread and has its name, none is left open) and begin at
the same depths as the text's calls; every metadata event has a "cat";
--stat counts every call, those that never returned included.
A demangled C++ name counts without its parameter list ("leaf(int)" is
"leaf"). Exit 0, or 1 with the first difference.
"""
import collections
import json
import re
import sys


def fail(msg):
    print('graph_check: ' + msg, file=sys.stderr)
    sys.exit(1)


def bare(name):
    """A demangled name without its parameter list."""
    if name.endswith(')'):
        depth = 0
        for i in range(len(name) - 1, -1, -1):
            depth += {')': 1, '(': -1}.get(name[i], 0)
            if depth == 0:
                return name[:i]
    return name


def first_diff(a, b, what):
    for i, (x, y) in enumerate(zip(a, b)):
        if x != y:
            ctx = ', '.join('%d %s' % c for c in a[max(0, i - 3):i + 1])
            fail('%s: call %d is %s, expected %s (after %s)'
                 % (what, i, y, x, ctx))
    if len(a) != len(b):
        fail('%s: %d calls, expected %d' % (what, len(b), len(a)))


tree = []
for line in open(sys.argv[1]):
    d, f = line.split()
    tree.append((int(d), f))

# " 0)   0.061 us    |        jmp_step();" / "...|  func() {"
CALL = re.compile(r'^\s*\d+\)[^|]*\|  ( *)(\S.*?)(?: \{|;)$')
text = []
for line in open(sys.argv[2]):
    m = CALL.match(line.rstrip('\n'))
    if m:
        text.append((len(m.group(1)) // 2, bare(bare(m.group(2)))))
first_diff(tree, text, 'text report')

doc = json.load(open(sys.argv[3]))
stacks = collections.defaultdict(list)
begins = []
for e in doc['traceEvents']:
    if e.get('ph') == 'M' and not e.get('cat'):
        fail('a metadata event without "cat": %s' % e)
    if e.get('ph') == 'B':
        st = stacks[e['tid']]
        begins.append((len(st), bare(e['name'])))
        st.append(e['name'])
    elif e.get('ph') == 'E':
        st = stacks[e['tid']]
        if not st:
            fail('an "E" with no slice open: %s' % e)
        if e.get('name') != st[-1]:
            fail('"E" named %r ends the slice %r' % (e.get('name'), st[-1]))
        st.pop()
for tid, st in stacks.items():
    if st:
        fail('thread %s: slices left open: %s' % (tid, st))
first_diff(tree, begins, 'JSON')

want = collections.Counter(f for _, f in tree)
got = {}
for line in open(sys.argv[4]):
    m = re.match(r'^\s*(?:\S+ \S+\s+){2}(\d+)\s+(?:\S+ \S+\s+){3}(\S.*)$',
                 line)
    if m:
        got[bare(m.group(2))] = int(m.group(1))
for f, n in sorted(want.items()):
    if got.get(f) != n:
        fail('--stat: %s has %s calls, %d made' % (f, got.get(f), n))

#!/usr/bin/env python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""tc_norm.py NCPUS [--no-ts] < TEXT: the records of a trace-cmd report or a
ringtrace report (--spares; function_graph text with the options
funcgraph-abstime and funcgraph-proc) as sortable "cpu ts pid key" lines.

cpu: the cpu buffer (S<n> for spare n: trace-cmd shows it as cpu
NCPUS + n); key: the event's name and fields with blanks squeezed, a
marker's text, or for a function_graph record "func() {", "func();" or
"}". Headers, lost-event lines and context-switch banners are left out.
--no-ts leaves the time stamp out (function_graph's absolute time is
truncated to the microsecond where trace-cmd rounds it): compare the
lines sorted stably by cpu then, which keeps each cpu's order.
--entries (function_graph, implies --no-ts): each call's entry as
"cpu pid func() {", whether it was printed "func();" or "func() {",
and no line for a return. The two readers fold a call with its return
by different rules once a thread's records are on two buffers (a spare
buffer taken while another thread held its CPU's): trace-cmd folds a
return that is the next record in time on any buffer and prints it on
the entry's cpu, ringtrace only one next to the entry on its own
buffer. --returns: one "pid" line per return, folded or not (a total
that does not depend on either rule).
Written for this project's tests; no line of trace-cmd's own code.
"""
import re
import sys

ncpus = int(sys.argv[1])
entries = '--entries' in sys.argv[2:]
returns = '--returns' in sys.argv[2:]
no_ts = '--no-ts' in sys.argv[2:] or entries


def emit(cpu, ts, pid, key):
    if no_ts:
        print(cpu, pid, key)
    else:
        print(cpu, ts, pid, key)


# A call with nothing in between is one "f();" line, whether the reader
# saw its return next to its entry (trace-cmd's plugin does not look
# across a page boundary; ringtrace's report does): an entry waits for
# the next line of its cpu.
held = {}


def out(cpu, ts, pid, key):
    if returns:
        if key == '}' or key.endswith('();'):
            print(pid)
        return
    if entries:
        if key.endswith('();'):
            emit(cpu, ts, pid, key[:-3] + '() {')
        elif key != '}':
            emit(cpu, ts, pid, key)
        return
    h = held.pop(cpu, None)
    if h and key == '}' and h[1] == pid:
        emit(cpu, h[0], pid, h[2][:-2] + ';')
        return
    if h:
        emit(cpu, *h)
    if key.endswith('() {'):
        held[cpu] = (ts, pid, key)
    else:
        emit(cpu, ts, pid, key)

# trace-cmd: "comm-pid [cpu] [flags] ts: event: rest"
TC = re.compile(r'^\s*(?:\S+: )?.*?-(\d+)\s+\[(\d+)\]\s+(?:\S{4,5}\s+)?'
                r'(\d+\.\d+): (\S+):\s*(.*)$')
# ringtrace text: "comm-pid [cpu] flags ts: event: rest"
RT = re.compile(r'^\s*.*?-(\d+)\s+\[(S?\d+)\]\s+(?:\S{5}\s+)?'
                r'(\d+\.\d+): (\S+):\s*(.*)$')
# ringtrace function_graph: "ts | cpu) comm-pid | dur | body"
RG = re.compile(r'^\s*(\d+\.\d+) \|\s+(S?\d+)\)\s+\S*?-(\d+)\s+\|'
                r'[^|]*\|\s*(.*)$')


def squeeze(s):
    return ' '.join(s.split())


def cpu_name(c):
    if c.startswith('S'):
        return 'S%d' % int(c[1:])
    n = int(c)
    return 'S%d' % (n - ncpus) if n >= ncpus else str(n)


def body_key(body):
    body = squeeze(body)
    # a return whose entry this reader did not see on that cpu buffer
    # (the kernel's "} /* func */"; trace-cmd prints "}")
    if re.match(r'^\} /\* .* \*/$', body):
        return '}'
    m = re.match(r'^/\* (\w+): ?(.*) \*/$', body)
    if m:
        return event_key(m.group(1), m.group(2))
    m = re.match(r'^/\* (.*) \*/$', body)
    if m:
        return 'marker ' + m.group(1)
    if body.endswith('{') or body.endswith(';') or body == '}':
        return body
    return None


def event_key(name, rest):
    rest = squeeze(rest)
    if name in ('print', 'tracing_mark_write'):
        rest = re.sub(r'^tracing_mark_write: ', '', rest)
        return 'marker ' + rest
    if name in ('funcgraph_entry', 'funcgraph_exit'):
        rest = re.sub(r'^.*?\| ?', '', rest)
        return squeeze(rest)
    return name + ' ' + rest


for line in sys.stdin:
    line = line.rstrip('\n')
    m = RG.match(line)
    if m:
        key = body_key(m.group(4))
        if key:
            out(cpu_name(m.group(2)), m.group(1), m.group(3), key)
        continue
    m = TC.match(line) or RT.match(line)
    if m:
        out(cpu_name(m.group(2)), m.group(3), m.group(1),
            event_key(m.group(4), m.group(5)))

for cpu, h in held.items():
    emit(cpu, *h)

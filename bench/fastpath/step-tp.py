# SPDX-License-Identifier: LGPL-2.1-or-later
# gdb script of count-tp.sh: step through one call that the loop $loop of
# ringtrace-tp-bench makes (its first call instruction, at $callpc), the
# $n_skip-th of the run, and write the instructions it ran, one a line
# ("address function+offset<TAB>instruction"), to $outf. The call before
# it is stepped too and not listed. Restartable sequences run whole, as
# in step.py. The clock is pinned: stepping takes milliseconds an
# instruction, which would send every record through the clock's and the
# ring buffer's slow paths (a scale past its end, a time extend), so each
# rdtsc of the call before reads X, just below the end of the default
# clock's scale, and each of the listed call X + 1000.
import gdb
import re

gdb.execute("set pagination off")
gdb.execute("starti", to_string=True)
loop = gdb.parse_and_eval("$loop").string()
callpc = int(gdb.parse_and_eval("(long)&%s" % loop)) + \
    int(gdb.parse_and_eval("$calloff"))
gdb.execute("break *%d" % callpc)
gdb.execute("continue")
gdb.execute("ignore 1 %d" % (int(gdb.parse_and_eval("$n_skip")) - 2))
gdb.execute("continue")
arch = gdb.selected_frame().architecture()
retpc = callpc + arch.disassemble(callpc)[0]['length']


def step_call(tsc):
    insns = []
    while True:
        pc = int(gdb.parse_and_eval("$pc"))
        if pc == retpc:
            return insns
        i = arch.disassemble(pc)[0]
        d = i['asm']
        fn = gdb.execute("info symbol %d" % pc, to_string=True)
        fn = fn.split(" in section")[0].strip()
        if fn.startswith("No symbol"):
            fn = "?"
        insns.append("%x %s\t%s" % (pc, fn, d))
        if re.match(r'mov\s+%r\w+,%fs:0x8\(%r\w+\)', d):
            nxt = pc + i['length']
            while True:
                j = arch.disassemble(nxt)[0]
                if re.match(r'movq\s+\$0x0,%fs:0x8\(', j['asm']):
                    break
                insns.append("%x (rseq)\t%s" % (nxt, j['asm']))
                nxt += j['length']
            gdb.execute("tbreak *%d" % nxt, to_string=True)
            gdb.execute("continue", to_string=True)
            continue
        gdb.execute("stepi", to_string=True)
        if d.startswith('rdtsc'):
            gdb.execute("set $rax = %d" % (tsc & 0xffffffff))
            gdb.execute("set $rdx = %d" % (tsc >> 32))


# struct ringbuf_fe_clock: seq, pad, tsc0, ns0, mult, tsc_end (offset 32)
end = int(gdb.parse_and_eval(
    "*(unsigned long *)((char *)&ringbuf_fe_mono + 32)"))
step_call(end - 1000000)
gdb.execute("continue")
insns = step_call(end - 1000000 + 1000)
with open(gdb.parse_and_eval("$outf").string(), "w") as out:
    for i in insns:
        out.write(i + "\n")
gdb.execute("kill")

# SPDX-License-Identifier: LGPL-2.1-or-later
# gdb script of count.sh: step through the last fastpath_write() call and
# write the instructions it ran, one a line, to $outf. A restartable
# sequence aborts when stepped (the trap is a signal): it runs at full
# speed to the clear of rseq_cs instead, and its instructions up to there
# are listed from the disassembly (the path where it succeeds).
import gdb
import re

gdb.execute("set pagination off")
gdb.execute("break fastpath_write")
gdb.execute("run")
gdb.execute("ignore 1 %d" % (int(gdb.parse_and_eval("$n_skip")) - 1))
gdb.execute("continue")
insns = []
depth = 0
while True:
    arch = gdb.selected_frame().architecture()
    pc = int(gdb.parse_and_eval("$pc"))
    d = arch.disassemble(pc)[0]['asm']
    insns.append(d)
    if re.match(r'mov\s+%r\w+,%fs:0x8\(%r\w+\)', d):
        nxt = pc + arch.disassemble(pc)[0]['length']
        while True:
            i = arch.disassemble(nxt)[0]
            if re.match(r'movq\s+\$0x0,%fs:0x8\(', i['asm']):
                break
            insns.append(i['asm'])
            nxt += i['length']
        gdb.execute("tbreak *%d" % nxt, to_string=True)
        gdb.execute("continue", to_string=True)
        continue
    if d.startswith('rdtsc') and depth == 0:
        gdb.execute("stepi", to_string=True)
        # (through its address: a Release build has no type for it)
        v = int(gdb.parse_and_eval("*(unsigned long long *)&fastpath_tsc")) + 1000
        gdb.execute("set $rax = %d" % (v & 0xffffffff))
        gdb.execute("set $rdx = %d" % (v >> 32))
        continue
    if d.startswith('ret') and depth == 0:
        break
    if d.startswith('call'):
        depth += 1
    if d.startswith('ret'):
        depth -= 1
    gdb.execute("stepi", to_string=True)
with open(gdb.parse_and_eval("$outf").string(), "w") as out:
    for i in insns:
        out.write(i + "\n")
gdb.execute("kill")

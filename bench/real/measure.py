#!/usr/bin/env python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""measure.py OUT_JSON COMMAND...: run COMMAND (its output goes to
/dev/null and to OUT_JSON.err), and write its wall time and the bytes
it passed to write(2) and friends (wchar of /proc/PID/io, read while
the process is a zombie, so its last writes count; its children's
writes do not) to OUT_JSON, with the CPU time of the command itself
(cpu, seconds of user and system time of all its threads, from
/proc/PID/stat while it is a zombie) and of the children it waited for
(cpu_children: the traced program)."""
import json
import os
import subprocess
import sys
import time


def main():
    out, cmd = sys.argv[1], sys.argv[2:]
    with open(out + ".err", "wb") as err:
        t0 = time.monotonic()
        p = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=err)
        os.waitid(os.P_PID, p.pid, os.WEXITED | os.WNOWAIT)
        t1 = time.monotonic()
        io = {}
        try:
            with open("/proc/%d/io" % p.pid) as f:
                for line in f:
                    k, v = line.split(":")
                    io[k.strip()] = int(v)
        except OSError:
            pass
        cpu = cpu_children = -1.0
        try:
            with open("/proc/%d/stat" % p.pid) as f:
                st = f.read()
            # the fields after the command name, which may hold blanks
            f = st[st.rindex(")") + 2:].split()
            hz = os.sysconf("SC_CLK_TCK")
            cpu = (int(f[11]) + int(f[12])) / hz
            cpu_children = (int(f[13]) + int(f[14])) / hz
        except (OSError, ValueError, IndexError):
            pass
        rc = p.wait()
    with open(out, "w") as f:
        json.dump({"rc": rc, "seconds": t1 - t0,
                   "wchar": io.get("wchar", -1),
                   "write_bytes": io.get("write_bytes", -1),
                   "cpu": cpu, "cpu_children": cpu_children}, f)
    return 0


if __name__ == "__main__":
    sys.exit(main())

#!/usr/bin/env python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""measure.py OUT_JSON COMMAND...: run COMMAND (its output goes to
/dev/null and to OUT_JSON.err), and write its wall time, its CPU time
(user + system, with the children it waited for: the traced program
and the recorder's helpers) and the bytes it passed to write(2) and
friends (wchar of /proc/PID/io, read while the process is a zombie, so
its last writes count; its children's writes do not) to OUT_JSON."""
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
        _, status, ru = os.wait4(p.pid, 0)
        rc = p.returncode = os.waitstatus_to_exitcode(status)
    with open(out, "w") as f:
        json.dump({"rc": rc, "seconds": t1 - t0,
                   "cpu": ru.ru_utime + ru.ru_stime,
                   "wchar": io.get("wchar", -1),
                   "write_bytes": io.get("write_bytes", -1)}, f)
    return 0


if __name__ == "__main__":
    sys.exit(main())

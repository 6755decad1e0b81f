#!/usr/bin/env python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""badinput.py - every verb and option of ringtrace fed bad arguments.

A table of cases: missing, malformed, out-of-range (huge, negative),
conflicting and hostile arguments (device nodes, FIFOs, symbolic links,
directories, a dead pid, a pid not traced, another user's process). For
each: the documented exit status, no death by a signal, one message on
stderr starting with "ringtrace:", nothing left in the publish directory
or the working directory, and the traced process's settings unchanged.

Environment: RTT_TOOL, RTT_SAMPLE (as tool_test.sh). Exit: 0 pass,
1 fail, 77 skipped.
"""
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time

T = os.environ.get("RTT_TOOL")
S = os.environ.get("RTT_SAMPLE")
if not T or not S:
    print("RTT_TOOL and RTT_SAMPLE must be set", file=sys.stderr)
    sys.exit(1)

W = tempfile.mkdtemp(prefix="rtt-bad.")
os.chmod(W, 0o755)
PUB = os.path.join(W, "pub")
CWD = os.path.join(W, "cwd")
os.mkdir(CWD)
ENV = dict(os.environ, RINGTRACE_DIR=PUB, LC_ALL="C")
failures = []
procs = []


def start(*args, env=None, user=None):
    """Start the sample; return its pid once it published."""
    ready = os.path.join(W, "ready.%d" % len(procs))
    cmd = [S, "--ready", ready] + list(args)
    if user is not None:
        cmd = ["setpriv", "--reuid=%d" % user, "--regid=%d" % user,
               "--clear-groups"] + cmd
        open(ready, "w").close()
        os.chown(ready, user, user)
    p = subprocess.Popen(cmd, env=env or ENV, stdout=subprocess.DEVNULL,
                         stderr=subprocess.DEVNULL)
    procs.append(p)
    for _ in range(500):
        if os.path.exists(ready) and os.path.getsize(ready) > 0:
            return p.pid
        if p.poll() is not None:
            break
        time.sleep(0.01)
    return None


def state(pid):
    """What a case must not change in process @pid."""
    out = []
    for args in (["options", str(pid)], ["show", str(pid)]):
        r = subprocess.run([T] + args, env=ENV, cwd=CWD,
                           capture_output=True, timeout=20)
        text = r.stdout.decode("utf-8", "replace")
        if args[0] == "show":
            # the header only: the records go on changing
            text = "\n".join(l for l in text.splitlines()
                             if l.startswith("# tracer"))
        out.append(text)
    r = subprocess.run([T, "list"], env=ENV, cwd=CWD, capture_output=True,
                       timeout=20)
    for line in r.stdout.decode("utf-8", "replace").splitlines():
        f = line.split()
        if f and f[0] == str(pid):
            # PID NAME STATE BUFFERS EVENTS (LOST changes)
            out.append(" ".join(f[:5]))
    return out


def pub_files():
    # a process writes its symbols file when first asked for it
    try:
        return sorted(f for f in os.listdir(PUB) if not f.endswith(".syms"))
    except FileNotFoundError:
        return []


# The state of each watched process after the last case that watched it:
# the next case must leave it so too. Read once a case, after it (three
# runs of the tool, which a sanitizer build pays for), not before and
# after: a case that changed it fails, and the state it left is what the
# next case is checked against.
known = {}


def check(name, args, want, live=None, stdin=None, timeout=20):
    before_pub = pub_files()
    before_cwd = sorted(os.listdir(CWD))
    before = None
    if live:
        if live not in known:
            known[live] = state(live)
        before = known[live]
    try:
        r = subprocess.run([T] + args, env=ENV, cwd=CWD, capture_output=True,
                           stdin=subprocess.DEVNULL, timeout=timeout)
    except subprocess.TimeoutExpired:
        failures.append("%s: %s hangs" % (name, args))
        return
    err = r.stderr.decode("utf-8", "replace")
    lines = [l for l in err.splitlines() if l.strip()]
    problems = []
    if r.returncode < 0:
        problems.append("killed by %s" % signal.Signals(-r.returncode).name)
    elif r.returncode != want:
        problems.append("exit %d, expected %d" % (r.returncode, want))
    # one message; a usage text, the "Try" hint and a filter's caret
    # lines are part of it
    extra = [l for l in lines[1:] if not l.startswith("Try 'ringtrace")]
    if not lines or not (lines[0].startswith("ringtrace: ") or
                         lines[0].startswith("usage: ringtrace")):
        problems.append("no 'ringtrace:' message: %r" % err[:200])
    elif "usage:" not in err and extra and args[:1] != ["filter"]:
        problems.append("%d lines on stderr: %r" % (len(lines), err[:300]))
    if sorted(os.listdir(CWD)) != before_cwd:
        problems.append("left in the working directory: %s" %
                        (set(os.listdir(CWD)) - set(before_cwd)))
    if pub_files() != before_pub:
        problems.append("the publish directory changed: %s -> %s" %
                        (before_pub, pub_files()))
    if live:
        known[live] = state(live)
        if known[live] != before:
            problems.append("the process changed: %s -> %s" %
                            (before, known[live]))
    if problems:
        failures.append("%s: ringtrace %s: %s" % (name, " ".join(args),
                                                  "; ".join(problems)))


def v7_chunks(path):
    """The chunks of the first cpu with data of our version 7 file
    @path (its options sections not compressed): the file's bytes and a
    list of (offset of the chunk's header, compressed size, size); the
    chunk count is at the first header's offset less 4."""
    b = bytearray(open(path, "rb").read())

    def num(at, n):
        return int.from_bytes(b[at:at + n], "little")
    # magic, "7", endianness, long size, page size; the compression
    at = b.index(b"\0", b.index(b"\0", 18) + 1) + 1
    nxt = num(at, 8)
    while nxt:
        o, end, nxt = nxt + 16, nxt + 16 + num(nxt + 8, 8), 0
        while o + 6 <= end:
            oid, size, d = num(o, 2), num(o + 2, 4), o + 6
            o = d + size
            if oid == 0:
                nxt = num(d, 8) if size >= 8 else 0
                break
            if oid != 3 or b[d + 8]:
                continue
            # the top buffer: offset, "", clock, page size, cpu count
            p = b.index(b"\0", d + 9) + 1
            if num(p + 4, 4) == 0:
                return b, []
            c = num(p + 8 + 4, 8)
            chunks, at = [], c + 4
            for _ in range(num(c, 4)):
                chunks.append((at, num(at, 4), num(at + 4, 4)))
                at += 8 + num(at, 4)
            return b, chunks
    return b, []


def damaged(name, path, chunks, b):
    """Copies of the compressed file @path (bytes @b, cpu chunks @chunks)
    with one chunk damaged: (case name, file)."""
    out = []
    at, cs, us = chunks[len(chunks) // 2]

    def put(what, edits):
        c = bytearray(b)
        for off, val in edits:
            c[off:off + len(val)] = val
        f = os.path.join(W, "%s-%d.dat" % (name, len(out)))
        open(f, "wb").write(c)
        out.append(("report %s: %s" % (name, what), f))

    def u32(v):
        return (v & 0xffffffff).to_bytes(4, "little")
    put("data that does not decompress",
        [(at + 8 + 16, b"\xff" * (cs - 16))])
    put("a size its frame does not have", [(at + 4, u32(us + 4096))])
    put("a chunk past the end of the file", [(at, u32(0xfffffff0))])
    put("a size no chunk has", [(at + 4, u32(0x7fff0000))])
    put("the last chunk cut short",
        [(chunks[-1][0], u32(chunks[-1][1] - 16))])
    return out


def compressed_cases():
    """A compressed recording (version 7, zstd), its chunks damaged."""
    zdat = os.path.join(W, "z.dat")
    r = subprocess.run([T, "record", "-q", "-o", zdat, "-e", "app", "--",
                        S, "--threads", "2", "--bursts", "4", "--burst",
                        "200", "--gap-ms", "5"], env=ENV, cwd=W,
                       capture_output=True, timeout=120)
    if r.returncode == 0:
        b, chunks = v7_chunks(zdat)
        if chunks:
            return damaged("chunk", zdat, chunks, b)
    print("note: no compressed recording to damage: %s" %
          r.stderr.decode("utf-8", "replace").strip())
    return []


def main():
    os.mkdir(PUB, 0o700)
    # (killed at the end: its lifetime only has to outlast the cases,
    # which a sanitizer build on a busy machine takes minutes over)
    live = start("--threads", "1", "--seconds", "900", "--gap-ms", "20")
    if not live:
        print("SKIP: the sample does not start")
        return 77
    L = str(live)
    dead_p = start("--threads", "1", "--seconds", "60", "--gap-ms", "20")
    os.kill(dead_p, signal.SIGKILL)
    procs[-1].wait()
    D = str(dead_p)
    sleeper = subprocess.Popen(["sleep", "900"])
    procs.append(sleeper)
    N = str(sleeper.pid)
    # a pid nobody has
    gone = 4194000
    while os.path.exists("/proc/%d" % gone):
        gone -= 1
    G = str(gone)
    # hostile paths
    fifo = os.path.join(W, "fifo")
    os.mkfifo(fifo)
    link = os.path.join(W, "link")
    os.symlink(os.path.join(W, "target"), link)
    dnode = None
    if os.geteuid() == 0:
        dnode = os.path.join(W, "null")
        os.mknod(dnode, 0o666 | 0o20000, os.makedev(1, 3))
    empty = os.path.join(W, "empty.dat")
    open(empty, "w").close()
    zcases = compressed_cases()
    huge = "99999999999999999999999"

    C = []  # (name, args, status, live process to watch)
    # missing arguments
    for v in ["pipe", "show", "enable", "disable", "filter", "on", "off",
              "clear", "buffer-size", "snapshot", "options", "tracer",
              "clock", "stat", "trigger", "pids"]:
        C.append(("missing pid", [v], 2, None))
    C += [("no verb", [], 2, None), ("unknown verb", ["bogus"], 2, None),
          ("help of nothing", ["help", "bogus"], 2, None),
          ("record nothing", ["record"], 2, None),
          ("report nothing", ["report"], 2, None),
          ("extract nothing", ["extract"], 2, None),
          ("mount nothing", ["mount"], 2, None),
          ("umount nothing", ["umount"], 2, None),
          ("disable no event", ["disable", L], 2, live),
          ("filter no event", ["filter", L], 2, live)]
    # unknown options, options without their argument
    for v in ["list", "clean", "pipe", "show", "enable", "record", "report",
              "extract", "stat", "options", "snapshot", "trigger", "pids"]:
        C.append(("unknown option", [v, "--bogus", L], 2, live))
    for v, o in [("pipe", "-e"), ("pipe", "-c"), ("pipe", "-O"),
                 ("record", "-o"), ("record", "-b"), ("report", "-c"),
                 ("extract", "-o"), ("list", "-e"), ("show", "-i")]:
        C.append(("option without argument", [v, o], 2, None))
    # malformed and out-of-range numbers
    for p in ["abc", "-5", "0", huge, "1.5", "", " 1"]:
        C.append(("bad pid %r" % p, ["pipe", p], 2, None))
        C.append(("bad pid %r" % p, ["enable", p, "app:work"], 2, None))
    for kb in ["0", "-1", huge, "x", "1k"]:
        C.append(("bad size %r" % kb, ["buffer-size", L, kb], 2, live))
        C.append(("bad record -b %r" % kb,
                  ["record", "-b", kb, "-o", os.path.join(W, "x.dat"),
                   "-P", L], 2, live))
    for cpu in ["-1", huge, "x", "9999"]:
        C.append(("bad cpu %r" % cpu, ["pipe", "-c", cpu, L], 2, live))
    # numbers out of the option table's ranges, options that conflict
    for args in (["--tid", "0"], ["--tid", huge], ["-D", "0"], ["-c", "x"],
                 ["-t", "5q"], ["-s", "bogus"], ["--stat", "--graph", "f"],
                 ["--graph", "f", "-r"], ["--stat", "--format=json"]):
        C.append(("report %s" % " ".join(args), ["report"] + args + [empty],
                  2, None))
    C += [("record --preload --no-preload",
           ["record", "-q", "--preload", "--no-preload", "-o",
            os.path.join(W, "x.dat"), "--", S, "--seconds", "0.1"], 2, None),
          ("record bad compression",
           ["record", "--compression", "lz4", "-o",
            os.path.join(W, "x.dat"), "--", S, "--seconds", "0.1"], 2, None),
          ("record bad depth",
           ["record", "--max-graph-depth", "-1", "-o",
            os.path.join(W, "x.dat"), "-P", L], 2, live),
          ("snapshot --clear --free", ["snapshot", "--clear", "--free", L],
           2, live)]
    # bad names: nothing applied
    C += [("unknown event", ["enable", L, "nosuch:ev"], 2, live),
          ("empty event", ["enable", L, ""], 2, live),
          ("good and bad events", ["enable", L, "app:work", "nosuch"], 2,
           live),
          ("unknown option name", ["options", L, "bogus"], 2, live),
          ("good and bad options", ["options", L, "sym-addr", "bogus"], 2,
           live),
          ("unknown tracer", ["tracer", L, "bogus"], 2, live),
          ("unknown clock", ["clock", L, "bogus"], 2, live),
          ("bad filter", ["filter", L, "app:work", "worker =="], 2, live),
          ("unknown instance", ["show", "-i", "nosuch", L], 2, live),
          ("conflicting snapshot", ["snapshot", "--free", "--clear", L],
           2, live),
          ("unknown pid list", ["pids", L, "nosuch"], 2, live),
          ("pipe unknown event", ["pipe", "-e", "nosuch:ev", L], 2, live),
          ("pipe unknown option", ["pipe", "-O", "bogus", L], 2, live),
          ("record -P unknown event",
           ["record", "-o", os.path.join(W, "x.dat"), "-e", "nosuch:ev",
            "-P", L], 2, live),
          ("record unknown tracer",
           ["record", "-o", os.path.join(W, "x.dat"), "-p", "bogus", "--",
            S], 2, None),
          ("record unknown option",
           ["record", "-o", os.path.join(W, "x.dat"), "-O", "bogus", "--",
            S], 2, None),
          ("record both", ["record", "-P", L, "--", S], 2, live),
          ("record -i without -P", ["record", "-i", "x", "--", S], 2, None),
          ("record -c with -P", ["record", "-c", "-P", L], 2, live),
          ("record no program",
           ["record", "-o", os.path.join(W, "x.dat"), "--",
            os.path.join(W, "no-such-program")], 2, None),
          ("report bad format", ["report", "--format=xml", empty], 2, None),
          ("report empty file", ["report", empty], 5, None),
          ("report directory", ["report", W], 2, None),
          ("report missing file", ["report", os.path.join(W, "nope")], 2,
           None),
          ("report FIFO", ["report", fifo], 2, None),
          ("instance no pid", ["instance"], 2, None),
          ("instance bad name", ["instance", L, "a/b"], 2, live),
          ("instance empty name", ["instance", L, ""], 2, live),
          ("instance -r no name", ["instance", "-r", L], 2, live),
          ("instance -r unknown", ["instance", "-r", L, "nosuch"], 2, live),
          ("instance too many", ["instance", L, "a", "b"], 2, live),
          ("clean argument", ["clean", "x"], 2, None),
          ("list argument", ["list", "x"], 2, None)]
    # damaged chunks: refused at the open, or the chunk's records
    # skipped with one message; exit status 5 either way
    C += [(n, ["report", f], 5, None) for n, f in zcases]
    C += [(n + " (" + " ".join(o) + ")", ["report"] + o + [f], 5, None)
          for n, f in zcases[:1] for o in (["--format=json"], ["-e", "app"])]
    # hostile output paths: refused before anything runs
    for what, path in [("FIFO without reader", fifo), ("symlink", link),
                       ("directory", W)] + \
            ([("device node", dnode)] if dnode else []):
        C.append(("record -o %s" % what,
                  ["record", "-q", "-o", path, "-P", L], 2, live))
        C.append(("record -o %s" % what,
                  ["record", "-q", "-o", path, "--", S, "--seconds",
                   "0.1"], 2, None))
        C.append(("extract -o %s" % what, ["extract", "-o", path, D], 2,
                  None))
    # dead, not traced, gone
    for v in [["pipe"], ["enable"], ["options"], ["on"], ["stat-x"]]:
        if v[0] == "stat-x":
            continue
        args = v + [D] + (["app:work"] if v[0] == "enable" else [])
        C.append(("dead pid", args, 3, None))
        args = v + [N] + (["app:work"] if v[0] == "enable" else [])
        C.append(("not traced", args, 3, None))
        args = v + [G] + (["app:work"] if v[0] == "enable" else [])
        C.append(("no such pid", args, 3, None))
    C.append(("record -P dead", ["record", "-o",
                                 os.path.join(W, "x.dat"), "-P", D], 3,
              None))
    C.append(("extract a running process", ["extract", "-o",
                                            os.path.join(W, "x.dat"), L], 2,
              live))
    C.append(("extract not traced", ["extract", N], 3, None))
    C.append(("extract bad compression",
              ["extract", "--compression", "lz4", "-o",
               os.path.join(W, "x.dat"), D], 2, None))
    # another user's process (root only: run it as uid 65534)
    if os.geteuid() == 0 and shutil.which("setpriv"):
        udir = os.path.join(W, "u")
        os.mkdir(udir, 0o700)
        os.chown(udir, 65534, 65534)
        other = start("--threads", "1", "--seconds", "60", "--gap-ms", "20",
                      env=dict(ENV, RINGTRACE_DIR=udir), user=65534)
        if other:
            O = str(other)
            # as a third user (65533), who may not look at it
            for args in (["pipe", O], ["enable", O, "app:work"],
                         ["options", O]):
                C.append(("another user's process",
                          ["--as-65533"] + args, 4, None))
    for name, args, want, lv in C:
        if args and args[0] == "--as-65533":
            global T
            saved = T
            T = os.path.join(W, "nb", os.path.basename(saved))
            if not os.path.exists(T):
                os.makedirs(os.path.dirname(T), exist_ok=True)
                shutil.copy(saved, T)
                os.chmod(os.path.dirname(T), 0o755)
            wrapper = os.path.join(W, "as65533")
            with open(wrapper, "w") as f:
                f.write("#!/bin/sh\nexec setpriv --reuid=65533 --regid=65533"
                        " --clear-groups env LD_LIBRARY_PATH=%s %s \"$@\"\n"
                        % (os.path.dirname(T), T))
            os.chmod(wrapper, 0o755)
            for lib in subprocess.run(["ldd", saved], capture_output=True,
                                      text=True).stdout.split("\n"):
                f = lib.split()
                if len(f) >= 3 and f[2].startswith("/") and \
                        not f[2].startswith(("/lib", "/usr")):
                    shutil.copy(f[2], os.path.dirname(T))
            subprocess.run(["chmod", "-R", "a+rX", os.path.dirname(T)])
            T = wrapper
            check(name, args[1:], want, lv)
            T = saved
            continue
        check(name, args, want, lv)
    print("%d cases, %d failed" % (len(C), len(failures)))
    for f in failures:
        print("FAIL: " + f, file=sys.stderr)
    return 1 if failures else 0


try:
    rc = main()
finally:
    for p in procs:
        try:
            p.kill()
            p.wait()
        except OSError:
            pass
    shutil.rmtree(W, ignore_errors=True)
sys.exit(rc)

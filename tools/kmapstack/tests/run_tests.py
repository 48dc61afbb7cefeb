#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""The kmapstack test runner.

Runs the C unit tests, then every scenario in tests/scenarios/*.scn (see
tests/README.md for the format): the scenario's events are synthesised into
a trace.dat by gen_trace.py (and into text: `trace-cmd report`, `trace-cmd
report -l` and the /sys/kernel/tracing/trace form), kmapstack runs on them
and its exit status, output and JSON are checked. Then the bad-input cases.
Ends with the line "N passed, N failed"; exits 1 on any failure.
"""

import difflib
import json
import os
import re
import shlex
import shutil
import signal
import struct
import subprocess
import sys

from record_tests import run_record

HERE = os.path.dirname(os.path.abspath(__file__))
PY = "/usr/bin/python3"
GEN = os.path.join(HERE, "gen_trace.py")


class Runner:
    def env(self):
        return dict(os.environ)

    def __init__(self, kmapstack, work, sanitized):
        self.kms = os.path.abspath(kmapstack)
        self.work = os.path.abspath(work)
        self.sanitized = sanitized
        self.passed = 0
        self.failed = 0
        self.failures = []
        self.prefix = ""

    def result(self, name, errors):
        name = self.prefix + name
        if errors:
            self.failed += 1
            self.failures.append(name)
            print("FAIL %s" % name)
            for e in errors:
                print("     %s" % e)
        else:
            self.passed += 1
            print("ok   %s" % name)

    def run(self, args, stdin=None, timeout=300, cwd=None):
        r = subprocess.run([self.kms] + args, stdout=subprocess.PIPE,
                           stderr=subprocess.PIPE, stdin=stdin,
                           timeout=timeout, env=self.env(), cwd=cwd)
        return r.returncode, r.stdout.decode("utf-8", "replace"), \
            r.stderr.decode("utf-8", "replace")

    def sanitizer_errors(self, err):
        if re.search(r"(AddressSanitizer|UndefinedBehaviorSanitizer|"
                     r"LeakSanitizer|runtime error:)", err):
            return ["sanitizer report: %s" % err[:2000]]
        return []


def J(doc, path):
    """A value in the JSON document by dotted path: 'a.b[0].c'."""
    cur = doc
    for part in re.findall(r"[^.\[\]]+|\[\d+\]", path):
        if part.startswith("["):
            i = int(part[1:-1])
            if not isinstance(cur, list) or i >= len(cur):
                return None
            cur = cur[i]
        else:
            if not isinstance(cur, dict) or part not in cur:
                return None
            cur = cur[part]
    return cur


class Case:
    def __init__(self, cmd):
        self.cmd = cmd
        self.exit = None
        self.out = []
        self.notout = []
        self.err = []
        self.noterr = []
        self.json = []
        self.files = []  # (path, regex)
        self.each = None
        self.stdin = None
        self.lines = None


def parse_scenario(path):
    cases, desc = [], ""
    each = None
    with open(path) as f:
        for line in f:
            line = line.rstrip("\n")
            if line.startswith("desc:"):
                desc = line[5:].strip()
            if not line.startswith("@"):
                continue
            word, _, rest = line[1:].partition(" ")
            rest = rest.strip()
            if word == "each":
                each = rest.split()
                continue
            if word == "run":
                cases.append(Case(rest))
                cases[-1].each = each
                continue
            if not cases:
                raise SystemExit("%s: @%s before @run" % (path, word))
            c = cases[-1]
            if word == "exit":
                c.exit = int(rest)
            elif word == "out":
                c.out.append(rest)
            elif word == "notout":
                c.notout.append(rest)
            elif word == "err":
                c.err.append(rest)
            elif word == "noterr":
                c.noterr.append(rest)
            elif word == "json":
                c.json.append(rest)
            elif word == "file":
                p, _, rx = rest.partition(" ")
                c.files.append((p, rx))
            elif word == "stdin":
                c.stdin = rest
            elif word == "lines":
                c.lines = int(rest)
            else:
                raise SystemExit("%s: unknown @%s" % (path, word))
    return desc, cases


def make_inputs(scn, outdir):
    """trace.dat and the three text forms of a scenario."""
    if os.path.isdir(outdir):
        shutil.rmtree(outdir)
    r = subprocess.run([PY, GEN, scn, outdir], stdout=subprocess.PIPE,
                       stderr=subprocess.PIPE)
    if r.returncode:
        return None, r.stderr.decode() + r.stdout.decode()
    dat = os.path.join(outdir, "trace.dat")
    paths = {"dat": dat, "ftrace": os.path.join(outdir, "ftrace.txt"),
             "perf": os.path.join(outdir, "perf.txt"),
             "dir": outdir, "tests": HERE}
    # trace-cmd report's text variants: -l (latency), --ts-diff, -t (ns),
    # -r EVENT (raw fields of one event), -R (raw fields of all)
    for name, extra in (("txt", []), ("ltxt", ["-l"]),
                        ("tsdiff", ["--ts-diff"]), ("nstxt", ["-t"]),
                        ("rawtxt", ["-r", "kmap_pop", "-t", "--ts-diff"]),
                        ("Rtxt", ["-R"])):
        p = os.path.join(outdir, name + ".txt")
        with open(p, "w") as f:
            r = subprocess.run(["trace-cmd", "report"] + extra + [dat],
                               stdout=f, stderr=subprocess.PIPE)
        if r.returncode:
            return None, "trace-cmd report failed: " + r.stderr.decode()
        paths[name] = p
    return paths, None


def subst(text, paths, variant):
    text = text.replace("{in}", paths.get(variant, "") if variant else "")
    for k, v in paths.items():
        text = text.replace("{%s}" % k, v)
    return text


def check_case(rn, c, paths, variant):
    errors = []
    cmd = shlex.split(subst(c.cmd, paths, variant))
    stdin = open(subst(c.stdin, paths, variant)) if c.stdin else None
    code, out, err = rn.run(cmd, stdin)
    if stdin:
        stdin.close()
    errors += rn.sanitizer_errors(err)
    if c.exit is not None and code != c.exit:
        errors.append("exit %d, expected %d; stderr: %s" %
                      (code, c.exit, err.strip()[:500]))
    for rx in c.out:
        if not re.search(subst(rx, paths, variant), out, re.M):
            errors.append("stdout lacks /%s/" % rx)
    for rx in c.notout:
        if re.search(subst(rx, paths, variant), out, re.M):
            errors.append("stdout has /%s/" % rx)
    for rx in c.err:
        if not re.search(rx, err, re.M):
            errors.append("stderr lacks /%s/: %s" % (rx, err.strip()[:300]))
    for rx in c.noterr:
        if re.search(rx, err, re.M):
            errors.append("stderr has /%s/: %s" % (rx, err.strip()[:300]))
    if c.lines is not None:
        n = len(out.splitlines())
        if n != c.lines:
            errors.append("stdout has %d lines, expected %d" % (n, c.lines))
    for p, rx in c.files:
        p = subst(p, paths, variant)
        try:
            with open(p) as f:
                content = f.read()
        except OSError as e:
            errors.append("no file %s: %s" % (p, e))
            continue
        if not re.search(rx, content, re.M):
            errors.append("%s lacks /%s/" % (p, rx))
    if c.json:
        code2, jout, jerr = rn.run(cmd + ["--json"], None)
        errors += rn.sanitizer_errors(jerr)
        try:
            doc = json.loads(jout)
        except ValueError as e:
            errors.append("--json output is not JSON: %s" % e)
            doc = None
        if doc is not None:
            if code2 != code:
                errors.append("--json exit %d differs from %d" %
                              (code2, code))
            for expr in c.json:
                try:
                    ok = eval(expr, {"J": lambda p: J(doc, p), "doc": doc,
                                     "len": len, "any": any, "all": all,
                                     "sorted": sorted})
                except Exception as e:  # noqa: BLE001
                    ok = False
                    expr += " (%s)" % e
                if not ok:
                    errors.append("json: %s is false" % expr)
    return errors


def run_scenarios(rn, only):
    sdir = os.path.join(HERE, "scenarios")
    for name in sorted(os.listdir(sdir)):
        if not name.endswith(".scn"):
            continue
        if only and not any(o in name for o in only):
            continue
        scn = os.path.join(sdir, name)
        base = name[:-4]
        desc, cases = parse_scenario(scn)
        paths, err = make_inputs(scn, os.path.join(rn.work, base))
        if not paths:
            rn.result(base + ": generate", [err])
            continue
        for i, c in enumerate(cases):
            for variant in (c.each or [None]):
                label = "%s #%d%s" % (base, i + 1,
                                      " [%s]" % variant if variant else "")
                rn.result(label, check_case(rn, c, paths, variant))


def run_two_files(rn, only):
    """Several trace.dat files in one run: the call sites that an earlier
    file made known keep their names in a later one (the child that reads
    it forks with them in the table and sends only new ones)."""
    if only and not any(o in "two_files" for o in only):
        return
    two = os.path.join(rn.work, "two_files", "trace.dat")
    mis = os.path.join(rn.work, "mismatch", "trace.dat")
    if not os.path.exists(two):
        rn.result("two files: no two_files trace.dat", ["run it first"])
        return
    runs = [("the same trace.dat twice", [two, two])]
    if os.path.exists(mis):
        # the second file has sites of the first and sites of its own
        runs.append(("two trace.dat files that share call sites",
                     [mis, two]))
    for name, files in runs:
        for extra in ([], ["--json"]):
            args = ["report", "--no-progress", "--top", "20"] + extra + files
            code, out, err = rn.run(args)
            errors = rn.sanitizer_errors(err)
            if code != 1:
                errors.append("exit %d, expected 1; stderr: %s" %
                              (code, err.strip()[:300]))
            unknown = [l for l in out.splitlines() if "[unknown]" in l]
            if unknown:
                errors.append("[unknown] call sites: %s" %
                              " | ".join(unknown[:4]))
            rn.result("two files: %s%s" %
                      (name, " (--json)" if extra else ""), errors)


def write(path, data):
    with open(path, "wb") as f:
        f.write(data)


def run_streams(rn, only):
    """Inputs that are not regular files, and output that must stay JSON."""
    if only and "stream" not in only:
        return
    clean = os.path.join(rn.work, "mismatch")
    dat = os.path.join(clean, "trace.dat")
    txt = os.path.join(clean, "txt.txt")
    if not os.path.exists(dat):
        rn.result("streams: no mismatch trace.dat", ["run it first"])
        return
    for name, path in (("trace.dat", dat), ("text", txt)):
        with open(path, "rb") as f:
            data = f.read()
        # kmapstack check - < FILE, cat FILE | kmapstack check -,
        # kmapstack check <(cat FILE): a pipe given by its /dev/fd path
        for how, what in (("redirect", "redirected to '-' (< FILE)"),
                          ("pipe", "on a pipe to '-'"),
                          ("fd", "through /dev/fd (process substitution)")):
            code, out, err = run_given(rn, ["check", "--no-progress"], path,
                                       data, how)
            errors = rn.sanitizer_errors(err)
            if code != 1 or "mismatch" not in out:
                errors.append("exit %d, stdout %r, stderr %r" %
                              (code, out[:200], err[:300]))
            rn.result("stream: %s %s" % (name, what), errors)
    # task names and symbols are bytes: the JSON must stay UTF-8
    d = os.path.join(rn.work, "streams")
    os.makedirs(d, exist_ok=True)
    p = os.path.join(d, "bytes.txt")
    lines = [
        b"caf\xe9\xff-100 [000] .... 1.000001: kmap_push: "
        b"caller=m\xe9p+0x1/0x10 addr=0x1000 pfn=0x1 depth=1 ctx=task "
        b"flags=0",
        b"caf\xe9\xff-100 [000] .... 1.000002: kmap_push: "
        b"caller=\xc3\xa9t\xc3+0x1/0x10 addr=0x2000 pfn=0x2 depth=2 "
        b"ctx=task flags=0",
        b"caf\xe9\xff-100 [000] .... 1.000003: kmap_pop: "
        b"caller=u\xed\xa0\x80+0x1/0x10 addr=0x1000 pfn=0x1 depth=1 "
        b"ctx=task flags=0",
    ]
    write(p, b"\n".join(lines) + b"\n")
    r = subprocess.run([rn.kms, "report", "--json", p],
                       stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    errors = rn.sanitizer_errors(r.stderr.decode("utf-8", "replace"))
    try:
        doc = json.loads(r.stdout.decode("utf-8"))
        names = [v.get("comm") for v in doc.get("violations", [])]
        if not names or "caf\u00e9\u00ff" not in names:
            errors.append("comm not kept: %r" % names)
    except (UnicodeDecodeError, ValueError) as e:
        errors.append("not UTF-8 JSON: %s: %r" % (e, r.stdout[:300]))
    rn.result("stream: --json output is UTF-8 for any bytes", errors)


def run_given(rn, args, path, data, how, env=None):
    """kmapstack ARGS with the input given as a file ('file'), on stdin
    from the file ('redirect': '-' < FILE), on a pipe to '-' ('pipe') or
    as /dev/fd/N of a pipe ('fd', a process substitution): (exit, stdout,
    stderr)."""
    stdin, fds, rfd, feed = None, (), None, None
    if how == "file":
        args = args + [path]
    elif how == "redirect":
        args, stdin = args + ["-"], open(path, "rb")
    elif how == "pipe":
        args, stdin, feed = args + ["-"], subprocess.PIPE, data
    else:
        rfd, wfd = os.pipe()
        args, fds = args + ["/dev/fd/%d" % rfd], (rfd,)
    p = subprocess.Popen([rn.kms] + args, stdin=stdin, pass_fds=fds,
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                         env=dict(rn.env(), **(env or {})))
    if rfd is not None:
        os.close(rfd)
        try:
            os.write(wfd, data)
        except BrokenPipeError:
            pass
        os.close(wfd)
    try:
        out, err = p.communicate(input=feed, timeout=300)
    except BrokenPipeError:
        out, err = p.communicate(timeout=300)
    if how == "redirect":
        stdin.close()
    return p.returncode, out.decode("utf-8", "replace"), \
        err.decode("utf-8", "replace")


def run_progress(rn, only):
    """The progress line on a terminal, from the first bytes of an input
    on a pipe (its size unknown: MB read), a trace.dat too while it is
    copied to TMPDIR, before its pass."""
    if only and "progress" not in only:
        return
    import pty
    import threading
    import time
    for name in ("trace.dat", "txt.txt"):
        path = os.path.join(rn.work, "mismatch", name)
        if not os.path.exists(path):
            rn.result("progress: no mismatch %s" % name, ["run it first"])
            continue
        with open(path, "rb") as f:
            data = f.read()
        if name == "txt.txt":
            # more than the 4 KiB kmapstack reads to tell the kind
            data = b"#\n" * 4096 + data
        master, slave = pty.openpty()
        p = subprocess.Popen([rn.kms, "check", "-"], stdin=subprocess.PIPE,
                             stdout=subprocess.PIPE, stderr=slave,
                             env=rn.env(), start_new_session=True)
        os.close(slave)
        # a kmapstack that hangs is killed, with anything it started: the
        # reads below then end
        watchdog = threading.Timer(
            int(os.environ.get("KMAPSTACK_TEST_TIMEOUT", "300")),
            lambda: os.killpg(p.pid, signal.SIGKILL))
        watchdog.start()
        errors = []
        try:
            # the rest comes after a pause: the progress line then shows
            p.stdin.write(data[:4096])
            p.stdin.flush()
            time.sleep(0.6)
            p.stdin.write(data[4096:])
            p.stdin.close()
        except BrokenPipeError:
            errors.append("kmapstack stopped reading its input")
        out = p.stdout.read()
        p.wait()
        if not watchdog.is_alive():
            errors.append("killed: no end after %d s" %
                          watchdog.interval)
        watchdog.cancel()
        err = b""
        while True:
            try:
                chunk = os.read(master, 4096)
            except OSError:
                break
            if not chunk:
                break
            err += chunk
        os.close(master)
        errors += rn.sanitizer_errors(err.decode("utf-8", "replace"))
        if p.returncode != 1 or b"mismatch" not in out:
            errors.append("exit %d, stdout %r" % (p.returncode, out[:200]))
        if not re.search(rb"\rkmapstack: <stdin>: 0 MB", err):
            errors.append("no progress line on the terminal: %r" % err[:300])
        rn.result("progress: %s on a pipe, on a terminal" %
                  name.replace("txt.txt", "text"), errors)


FAKE_PERF = """#!/bin/sh
# a stand-in for perf script --ns -i FILE: the text of a scenario
[ "$1" = script ] && [ "$2" = --ns ] && [ "$3" = -i ] || exit 3
[ -z "$FAKE_PERF_FAIL" ] || { echo "fake perf: $FAKE_PERF_FAIL" >&2; exit 4; }
head -c 8 "$4" | grep -q PERFILE2 || exit 5
exec cat "$FAKE_PERF_TEXT"
"""


def run_perf_data(rn, only):
    """A perf.data is read through perf script's text: a stand-in perf
    (the mismatch scenario's perf script text) on PATH, or none."""
    if only and "perf" not in only:
        return
    txt = os.path.join(rn.work, "mismatch", "perf.txt")
    if not os.path.exists(txt):
        rn.result("perf.data: no mismatch perf.txt", ["run it first"])
        return
    d = os.path.join(rn.work, "perf-data")
    fake, nowhere = os.path.join(d, "bin"), os.path.join(d, "nowhere")
    os.makedirs(fake, exist_ok=True)
    os.makedirs(nowhere, exist_ok=True)
    write(os.path.join(fake, "perf"), FAKE_PERF.encode())
    os.chmod(os.path.join(fake, "perf"), 0o755)
    dat = os.path.join(d, "perf.data")
    write(dat, b"PERFILE2" + bytes(120))
    with_perf = {"PATH": fake + os.pathsep + os.environ.get("PATH", ""),
                 "FAKE_PERF_TEXT": txt}
    no_perf = {"PATH": nowhere}
    failing = dict(with_perf, FAKE_PERF_FAIL="the data is broken")
    # (name, how the file is given, env, exit, stdout RE, stderr RE)
    cases = [
        ("a file", "file", with_perf, 1, r"1 violation \(1 mismatch\)",
         None),
        ("redirected to '-' (< FILE)", "redirect", with_perf, 1,
         r"1 violation \(1 mismatch\)", None),
        ("on a pipe to '-'", "pipe", with_perf, 1,
         r"1 violation \(1 mismatch\)", None),
        ("through /dev/fd (process substitution)", "fd", with_perf, 1,
         r"1 violation \(1 mismatch\)", None),
        ("no perf installed", "file", no_perf, 2, None,
         r"^kmapstack: %s: a perf.data file, and perf is not installed "
         r"here: run 'perf script --ns -i %s \| kmapstack check -' where "
         r"it is$" % (re.escape(dat), re.escape(dat))),
        ("redirected to '-', no perf installed", "redirect", no_perf, 2,
         None,
         r"^kmapstack: <stdin>: a perf.data file, and perf is not "
         r"installed here: run 'perf script --ns -i %s \| kmapstack check "
         r"-' where it is$" % re.escape(dat)),
        ("on a pipe, no perf installed", "pipe", no_perf, 2, None,
         r"^kmapstack: <stdin>: a perf.data file, and perf is not "
         r"installed here: save it to a file and run 'perf script --ns -i "
         r"FILE \| kmapstack check -' where it is$"),
        ("perf script fails", "file", failing, 2, None,
         r"^kmapstack: %s: 'perf script --ns -i %s' failed \(exit 4\): "
         r"fake perf: the data is broken$" % (re.escape(dat),
                                               re.escape(dat))),
        ("redirected to '-', perf script fails", "redirect", failing, 2,
         None,
         r"^kmapstack: <stdin>: 'perf script --ns -i %s' failed \(exit "
         r"4\): fake perf: the data is broken$" % re.escape(dat)),
        ("on a pipe, perf script fails", "pipe", failing, 2, None,
         r"^kmapstack: <stdin>: 'perf script --ns' failed on it \(exit 4\): "
         r"fake perf: the data is broken$"),
    ]
    with open(dat, "rb") as f:
        data = f.read()
    for name, how, env, want, out_rx, err_rx in cases:
        code, out, err = run_given(rn, ["check", "--no-progress"], dat,
                                   data, how, env)
        errors = rn.sanitizer_errors(err)
        if code != want:
            errors.append("exit %d, expected %d; stderr: %s" %
                          (code, want, err.strip()[:300]))
        if out_rx and not re.search(out_rx, out, re.M):
            errors.append("stdout lacks /%s/: %r" % (out_rx, out[:300]))
        lines = [l for l in err.splitlines() if l.strip()]
        if err_rx and (len(lines) != 1 or not re.search(err_rx, lines[0])):
            errors.append("stderr is not one line /%s/: %r" %
                          (err_rx, err[:300]))
        rn.result("perf.data: " + name, errors)


def corrupt_headers(data):
    """A good trace.dat (version 7) made into files that libtracecmd walks
    for ever, takes long on or frees twice: (file name, case, bytes, the
    error kmapstack gives)."""
    out = []
    end = data.index(b"\0", 10) + 1 + 6
    for _ in range(2):
        end = data.index(b"\0", end) + 1
    order = ">" if data[data.index(b"\0", 10) + 1] else "<"
    opts = struct.unpack_from(order + "Q", data, end)[0]
    end += 8
    # the first section's size: back to its own header
    bad = bytearray(data)
    struct.pack_into(order + "q", bad, end + 8, -16)
    out.append(("loop", "a section size that leads back", bytes(bad),
                r"truncated or corrupt: its section at byte %d has %d "
                r"bytes, past its end at %d" % (end, 2**64 - 16, len(data))))
    # the options: id 2, size 4, then the data; the last (id 0) gives
    # the offset of the next options section
    at = opts + 16
    count = None
    while True:
        oid, size = struct.unpack_from(order + "HI", data, at)
        if oid == 8:
            count = at + 6
        if oid == 0:
            break
        at += 6 + size
    bad = bytearray(data)
    struct.pack_into(order + "Q", bad, at + 6, opts)
    # libtracecmd recurses until its stack is gone: the child dies
    out.append(("options", "options sections that lead back", bytes(bad),
                r"truncated or corrupt: the process reading it through "
                r"libtracecmd died of signal 11, Segmentation fault"))
    if count is None:
        # the CPU count is in the next options section
        at = struct.unpack_from(order + "Q", data, at + 6)[0] + 16
        while count is None and at + 6 <= len(data):
            oid, size = struct.unpack_from(order + "HI", data, at)
            count = at + 6 if oid == 8 else None
            at += 6 + size
    if count is not None:
        bad = bytearray(data)
        struct.pack_into(order + "I", bad, count, 0x7fffffff)
        # libtracecmd would loop over them for each record: refused
        out.append(("cpus", "2147483647 CPUs", bytes(bad),
                    r"truncated or corrupt: 2147483647 CPUs, a kernel has "
                    r"at most 8192\)$"))
    out.append(("header", "its header cut", data[:end - 4],
                r"truncated or corrupt: it ends within its header"))
    return out


def run_outputs(rn, only):
    """Outputs never written over an input; every readable input reported
    when another cannot be read; '--' before file names; a trace.dat whose
    tail is zeros refused at once."""
    if only and "outputs" not in only:
        return
    src = os.path.join(rn.work, "mismatch", "trace.dat")
    if not os.path.exists(src):
        rn.result("outputs: no mismatch trace.dat", ["run it first"])
        return
    d = os.path.join(rn.work, "outputs")
    shutil.rmtree(d, ignore_errors=True)
    os.makedirs(d)
    with open(src, "rb") as f:
        data = f.read()
    a, b = os.path.join(d, "a.dat"), os.path.join(d, "b.dat")
    write(os.path.join(d, "empty"), b"")

    def fresh():
        write(a, data)
        write(b, data)

    def unchanged(errors, *paths):
        for p in paths:
            with open(p, "rb") as f:
                if f.read() != data:
                    errors.append("%s was written over" % p)

    def one_line(errors, err, rx):
        lines = [l for l in err.splitlines() if l.strip()]
        if len(lines) != 1 or not re.search(rx, lines[0]):
            errors.append("stderr is not one line /%s/: %r" % (rx, err[:400]))

    # --svg is an output format as --json and --folded: no argument
    fresh()
    code, out, err = rn.run(["report", "--no-progress", "--svg", a, b])
    errors = rn.sanitizer_errors(err)
    unchanged(errors, a, b)
    if code != 1 or not out.startswith("<?xml") or "<svg" not in out:
        errors.append("exit %d, stdout %r, stderr %r" %
                      (code, out[:100], err[:300]))
    rn.result("outputs: report --svg A B reads both, the SVG on stdout",
              errors)
    fresh()
    svg = os.path.join(d, "out.svg")
    code, out, err = rn.run(["report", "--no-progress", "--svg", "-o", svg,
                             a])
    errors = rn.sanitizer_errors(err)
    unchanged(errors, a)
    if code != 1 or out or not os.path.exists(svg) or \
            "<svg" not in open(svg).read():
        errors.append("exit %d, stdout %r, stderr %r" %
                      (code, out[:100], err[:300]))
    rn.result("outputs: report --svg -o FILE", errors)
    # -o naming an input, by its name or another path to it
    for name, target in (("its own name", a),
                         ("another path to it",
                          os.path.join(d, ".", "a.dat"))):
        fresh()
        for fmt in ([], ["--json"], ["--folded"], ["--svg"]):
            code, out, err = rn.run(["check", "--no-progress"] + fmt +
                                    ["-o", target, a])
            errors = rn.sanitizer_errors(err)
            unchanged(errors, a)
            if code != 2 or out:
                errors.append("exit %d, expected 2, stdout %r" %
                              (code, out[:100]))
            one_line(errors, err, r"^kmapstack: -o %s: is an input, not "
                     r"written over$" % re.escape(target))
            rn.result("outputs: check %s-o naming the input (%s)" %
                      (" ".join(fmt) + " " if fmt else "", name), errors)
    # one unreadable input: the others reported, then exit 2
    fresh()
    empty = os.path.join(d, "empty")
    code, out, err = rn.run(["report", "--no-progress", a, empty])
    errors = rn.sanitizer_errors(err)
    if code != 2 or not re.search(r"^kmapstack: 1 violation \(1 mismatch\)",
                                  out, re.M):
        errors.append("exit %d, stdout %r" % (code, out[-300:]))
    one_line(errors, err, r"^kmapstack: %s: empty file$" % re.escape(empty))
    rn.result("outputs: report GOOD EMPTY reports GOOD, then exit 2",
              errors)
    rjson = os.path.join(d, "r.json")
    code, out, err = rn.run(["report", "--no-progress", "--json", "-o", rjson,
                             empty, a])
    errors = rn.sanitizer_errors(err)
    try:
        doc = json.load(open(rjson))
        if doc["summary"]["violations"] != 1:
            errors.append("JSON summary: %r" % doc["summary"])
    except (OSError, ValueError, KeyError) as e:
        errors.append("no JSON report: %s" % e)
    if code != 2:
        errors.append("exit %d, expected 2" % code)
    one_line(errors, err, r"^kmapstack: %s: empty file$" % re.escape(empty))
    rn.result("outputs: report --json -o FILE EMPTY GOOD writes the report "
              "of GOOD, then exit 2", errors)
    # '--': what follows are files, also when they begin with '-'
    write(os.path.join(d, "-weird.dat"), data)
    code, out, err = rn.run(["check", "--no-progress", "--", "-weird.dat"],
                            cwd=d)
    errors = rn.sanitizer_errors(err)
    if code != 1 or "1 violation (1 mismatch)" not in out:
        errors.append("exit %d, stdout %r, stderr %r" %
                      (code, out[-200:], err[:300]))
    rn.result("outputs: check -- -weird.dat reads the file", errors)
    code, out, err = rn.run(["--no-progress", "check", "--", "-weird.dat"],
                            cwd=d)
    errors = rn.sanitizer_errors(err)
    if code != 1:
        errors.append("exit %d, stderr %r" % (code, err[:300]))
    rn.result("outputs: an option, check, -- -weird.dat", errors)
    # a tail of zeros (a recording never finished): refused at once
    z = os.path.join(d, "zero-tail.dat")
    write(z, data)
    with open(z, "r+b") as f:
        f.truncate(len(data) + (4 << 30))  # sparse: no disk
    try:
        code, out, err = rn.run(["check", "--no-progress", z], timeout=10)
        errors = rn.sanitizer_errors(err)
        if code != 2:
            errors.append("exit %d, expected 2" % code)
        one_line(errors, err, r"^kmapstack: %s: cannot read this trace\.dat "
                 r"\(truncated or corrupt: zeros where a section should be, "
                 r"from byte %d to its end at %d\)$" %
                 (re.escape(z), len(data), len(data) + (4 << 30)))
    except subprocess.TimeoutExpired:
        errors = ["no end within 10 s"]
    os.unlink(z)
    rn.result("outputs: a trace.dat with 4 GiB of zeros at its end, "
              "refused at once", errors)


def run_usage(rn, only):
    """Help for kmapstack and for each command, the version, and one name
    for standard input in every message."""
    if only and "usage" not in only:
        return
    opts = {"report": ["--json", "--svg", "--hold-threshold", "--kind",
                       "--max-violations"],
            "check": ["--json", "--fail-on-gaps", "--kind", "--strict"],
            "stats": ["--folded", "--hold-threshold", "--top"],
            "live": ["--duration", "--buffer-size", "--tracefs"]}
    notopts = {"report": ["--duration", "--fail-on-gaps"],
               "check": ["--duration", "--top", "--hold-threshold"],
               "stats": ["--duration", "--max-violations", "--strict"],
               "live": ["--no-progress"]}
    for args in (["--help"], ["-h"], ["help"]):
        code, out, err = rn.run(args)
        errors = rn.sanitizer_errors(err)
        if code != 0 or err or not out.startswith("usage: kmapstack ") or \
                any(c not in out for c in opts) or \
                any(o not in out for c in opts for o in opts[c]):
            errors.append("exit %d, stdout %r, stderr %r" %
                          (code, out[:200], err[:200]))
        rn.result("usage: kmapstack %s" % " ".join(args), errors)
    for cmd in opts:
        for args in ([cmd, "--help"], ["--help", cmd], [cmd, "-h"],
                     ["help", cmd]):
            code, out, err = rn.run(args)
            errors = rn.sanitizer_errors(err)
            if code != 0 or err or \
                    not out.startswith("usage: kmapstack %s " % cmd):
                errors.append("exit %d, stdout %r, stderr %r" %
                              (code, out[:200], err[:200]))
            for o in opts[cmd]:
                if not re.search(r"^  %s\b" % re.escape(o), out, re.M):
                    errors.append("no %s" % o)
            for o in notopts[cmd]:
                if re.search(r"^  %s\b" % re.escape(o), out, re.M):
                    errors.append("%s is not for %s" % (o, cmd))
            rn.result("usage: kmapstack %s" % " ".join(args), errors)
    code, out, err = rn.run(["help", "frobnicate"])
    rn.result("usage: kmapstack help frobnicate",
              [] if code == 2 and "unknown command" in err else
              ["exit %d, stderr %r" % (code, err[:200])])
    for args in (["-V"], ["--version"], ["check", "-V"]):
        code, out, err = rn.run(args)
        errors = rn.sanitizer_errors(err)
        if code != 0 or not re.match(r"^kmapstack \d+\.\d+\n$", out):
            errors.append("exit %d, stdout %r" % (code, out[:100]))
        rn.result("usage: kmapstack %s" % " ".join(args), errors)
    # standard input: '<stdin>' in every message
    d = os.path.join(rn.work, "usage")
    os.makedirs(d, exist_ok=True)
    write(os.path.join(d, "empty"), b"")
    write(os.path.join(d, "junk"), bytes(range(256)))
    write(os.path.join(d, "magic.dat"), b"\x17\x08\x44tracing6\0" + b"\xff" * 64)
    for name, rx in (("empty", r"empty file"),
                     ("junk", r"not a trace\.dat file nor trace text"),
                     ("magic.dat", r"cannot read this trace\.dat")):
        with open(os.path.join(d, name), "rb") as f:
            code, out, err = rn.run(["check", "-"], stdin=f)
        errors = rn.sanitizer_errors(err)
        lines = [l for l in err.splitlines() if l.strip()]
        if code != 2 or len(lines) != 1 or \
                not re.match(r"^kmapstack: <stdin>: .*%s" % rx, lines[0]):
            errors.append("exit %d, stderr %r" % (code, err[:300]))
        rn.result("usage: '-' is <stdin> in the message (%s)" % name,
                  errors)


def run_columns(rn, only):
    """The columns of the text report fit the names of real symbols: a
    module's function ('name+0xf [module]', longer than the columns once
    were) keeps the numbers, the arrows and the addresses of the other
    lines in line."""
    if only and "columns" not in only:
        return
    dat = os.path.join(rn.work, "kallsyms", "trace.dat")
    ksyms = os.path.join(HERE, "data", "kallsyms-kmapbug.txt")
    if not os.path.exists(dat):
        rn.result("columns: no kallsyms trace.dat", ["run it first"])
        return
    code, out, err = rn.run(["report", "--no-progress", "--kallsyms", ksyms,
                             dat])
    errors = rn.sanitizer_errors(err)
    lines = out.splitlines()
    # the call-site table: each number ends where its heading ends
    head = [i for i, l in enumerate(lines) if l.startswith("  site ")]
    if not head:
        errors.append("no call-site table: %r" % out[-500:])
    else:
        h = lines[head[0]]
        ends = set(m.end() for m in re.finditer(r"\S+", h)) - \
            {h.index("site") + 4}
        for l in lines[head[0] + 1:]:
            if not l.startswith("  "):
                break
            nums = [m.end() for m in re.finditer(r"(?<=\s)\d+(?=\s|$)", l)]
            if not nums or not set(nums) <= ends:
                errors.append("call-site row not under its headings: %r "
                              "under %r" % (l, h))
    # the longest holds: the arrows one under the other, and the tasks
    holds = [l for l in lines if re.match(r"^ +\d+ ns  ", l)]
    if len(holds) < 2:
        errors.append("fewer than two holds: %r" % holds)
    for col in (" -> ", " insmod/"):
        if len(set(l.index(col) for l in holds if col in l)) > 1:
            errors.append("%r not in one column: %r" % (col, holds))
    # a stack's frames: the addresses one under the other
    frames = [l for l in lines if re.match(r"^  #\d+: ", l)]
    if len(set(l.index(" 0xffff") for l in frames)) != 1:
        errors.append("addresses not in one column: %r" % frames)
    rn.result("columns: module symbols in the report's tables", errors)


def with_instance(data, name):
    """A trace.dat (version 7) with a buffer instance NAME of no CPU, as
    trace-cmd record -B NAME describes one: a buffer option in an options
    section added at the end of the file, chained from the last one."""
    i = data.index(b"\0", 10) + 1
    order = ">" if data[i] else "<"
    off = data.index(b"\0", data.index(b"\0", i + 6) + 1) + 1
    sec, d = struct.unpack_from(order + "Q", data, off)[0], bytearray(data)
    while True:
        at = sec + 16
        while struct.unpack_from(order + "H", d, at)[0]:
            at += 6 + struct.unpack_from(order + "I", d, at + 2)[0]
        nxt = struct.unpack_from(order + "Q", d, at + 6)[0]
        if not nxt:
            break
        sec = nxt
    struct.pack_into(order + "Q", d, at + 6, len(d))
    opt = struct.pack(order + "Q", 0) + name + b"\0local\0" + \
        struct.pack(order + "II", 4096, 0)
    opts = struct.pack(order + "HI", 3, len(opt)) + opt + \
        struct.pack(order + "HIQ", 0, 8, 0)
    return bytes(d + struct.pack(order + "HHIQ", 0, 0, 0, len(opts)) + opts)


def run_bad_inputs(rn, only):
    """Inputs that must give one error line and exit 2, never a crash."""
    if only and "bad" not in only:
        return
    d = os.path.join(rn.work, "bad")
    os.makedirs(d, exist_ok=True)
    good = os.path.join(rn.work, "clean", "trace.dat")
    cases = []
    write(os.path.join(d, "empty"), b"")
    cases.append(("empty file", ["check", os.path.join(d, "empty")],
                  r"empty file"))
    png = (b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\x00\x00\x00\x01\x00\x00"
           b"\x00\x01\x08\x06\x00\x00\x00\x1f\x15\xc4\x89\x00\x00\x00\r"
           b"IDATx\x9cc\xf8\x0f\x00\x00\x01\x01\x00\x05\x18\xd8N\x00\x00"
           b"\x00\x00IEND\xaeB`\x82")
    write(os.path.join(d, "image.png"), png)
    cases.append(("PNG file", ["check", os.path.join(d, "image.png")],
                  r"unknown format"))
    write(os.path.join(d, "random.bin"), bytes((i * 7919 + 13) % 256
                                               for i in range(5000)))
    cases.append(("binary garbage", ["report", os.path.join(d, "random.bin")],
                  r"unknown format"))
    write(os.path.join(d, "readme.txt"), b"just some text\nno events\n")
    cases.append(("text without events",
                  ["check", os.path.join(d, "readme.txt")],
                  r"no kmap_stack events"))
    cases.append(("missing file", ["check", os.path.join(d, "nope.dat")],
                  r"No such file"))
    cases.append(("directory", ["check", d], r"is a directory"))
    if os.path.exists(good):
        with open(good, "rb") as f:
            data = f.read()
        for cut in (16, 200, len(data) // 2, len(data) - 1):
            p = os.path.join(d, "trunc%d.dat" % cut)
            write(p, data[:cut])
            cases.append(("trace.dat truncated at %d" % cut, ["check", p],
                          r"truncated or corrupt"))
        # only the magic of a trace.dat
        p = os.path.join(d, "magic.dat")
        write(p, data[:10] + b"\xff" * 300)
        cases.append(("trace.dat magic then junk", ["check", p],
                      r"truncated or corrupt"))
    # found by fuzz_tracedat: libtracecmd reads it for ever
    loop = os.path.join(HERE, "..", "fuzz", "regressions", "dat",
                        "libtracecmd-endless-loop.dat")
    cases.append(("trace.dat that libtracecmd reads for ever",
                  ["check", loop],
                  r"truncated or corrupt: zeros where a section should be, "
                  r"from byte \d+ to its end"))
    # found by fuzz_tracedat: libtraceevent returns one record for ever;
    # the pass stops where a CPU's record comes again
    stall = os.path.join(HERE, "..", "fuzz", "regressions", "dat",
                         "libtraceevent-kbuffer-endless.dat")
    cases.append(("trace.dat on which libtraceevent returns one record for "
                  "ever", ["check", stall],
                  r"truncated or corrupt: CPU 0's record at byte 8204 comes "
                  r"again after the one at byte 8204: a length in its data "
                  r"page leads back\)$"))
    # a padding event whose length leads back to its own header:
    # libtraceevent's kbuffer loops on it within one call, no record comes
    pad = os.path.join(HERE, "data",
                       "libtraceevent-kbuffer-padding-endless.dat")
    cases.append(("trace.dat on which libtraceevent loops without a record",
                  ["check", pad],
                  r"truncated or corrupt: libtracecmd did not end its pass "
                  r"within 10 s of CPU time"))
    if os.path.exists(good):
        for name, what, bad, rx in corrupt_headers(data):
            p = os.path.join(d, "headers-%s.dat" % name)
            write(p, bad)
            cases.append(("trace.dat with " + what, ["check", p], rx))
    other = os.path.join(rn.work, "other")
    r = subprocess.run([PY, GEN, "--system", "other",
                        os.path.join(HERE, "scenarios", "clean.scn"), other],
                       stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    if r.returncode == 0:
        cases.append(("trace.dat without kmap_stack events",
                      ["check", os.path.join(other, "trace.dat")],
                      r"no kmap_stack events"))
    none = os.path.join(rn.work, "no_events", "trace.dat")
    if os.path.exists(none):
        p = os.path.join(d, "instance.dat")
        with open(none, "rb") as f:
            write(p, with_instance(f.read(), b"kmaps"))
        cases.append(("trace.dat whose events are in a buffer instance",
                      ["check", p],
                      r"no kmap_stack events in this trace\.dat .*; not "
                      r"read: the buffer instance kmaps$"))
    cases.append(("live: no tracefs there",
                  ["live", "--duration", "1", "--tracefs",
                   os.path.join(d, "nowhere")], r"no tracefs"))
    cases.append(("live: tracefs without kmap_stack events",
                  ["live", "--duration", "1", "--tracefs", d],
                  r"no kmap_stack events"))
    # a tracefs with the formats (a scenario's fake one) but no instances/
    fake = os.path.join(rn.work, "mismatch", "tracefs")
    if os.path.isdir(fake):
        # what libtracefs looks for besides the formats
        for sysd in ("kmap_stack", "ftrace"):
            write(os.path.join(fake, "events", sysd, "enable"), b"0\n")
        for cpu in range(os.cpu_count() or 1):
            os.makedirs(os.path.join(fake, "per_cpu", "cpu%d" % cpu),
                        exist_ok=True)
        fake2 = os.path.join(d, "tracefs-noinst")
        shutil.rmtree(fake2, ignore_errors=True)
        shutil.copytree(fake, fake2)
        cases.append(("live: no tracefs instances",
                      ["live", "--duration", "1", "--tracefs", fake2],
                      r"cannot create the tracefs instance kmapstack-\d+"))
        fake3 = os.path.join(d, "tracefs-inst")
        shutil.rmtree(fake3, ignore_errors=True)
        shutil.copytree(fake, fake3)
        os.makedirs(os.path.join(fake3, "instances"))
        cases.append(("live: the events cannot be enabled",
                      ["live", "--duration", "1", "--buffer-size", "64",
                       "--tracefs", fake3],
                      r"cannot (set the buffer size|enable the kmap_stack "
                      r"events) .*kmapstack-\d+"))
    # usage errors
    cases.append(("no command", [], r"no command"))
    cases.append(("unknown command", ["frobnicate", "x"],
                  r"unknown command"))
    cases.append(("unknown option", ["check", "--bogus", "x"],
                  r"unrecognized option '--bogus'"))
    cases.append(("missing argument: getopt's reason",
                  ["check", "x", "--top"],
                  r"option '--top' requires an argument"))
    cases.append(("bad --since", ["check", "--since", "5 min", "x"],
                  r"bad --since"))
    cases.append(("--since in hex", ["check", "--since", "0x10", "x"],
                  r"bad --since"))
    cases.append(("--since after --until",
                  ["check", "--since", "2s", "--until", "1s", "x"],
                  r"--since is after --until"))
    cases.append(("bad --cpu list", ["check", "--cpu", "3-1", "x"],
                  r"bad --cpu"))
    cases.append(("bad --pid list", ["check", "--pid", "12,,3", "x"],
                  r"bad --pid"))
    cases.append(("bad --duration", ["live", "--duration", "10min"],
                  r"bad --duration"))
    cases.append(("live options on a file",
                  ["check", "--buffer-size", "1024", "x"],
                  r"are for live"))
    cases.append(("--kallsyms: missing file",
                  ["check", "--kallsyms", os.path.join(d, "nope"), "x"],
                  r"--kallsyms: .*No such file"))
    cases.append(("--kallsyms: not a kallsyms",
                  ["check", "--kallsyms", os.path.join(d, "readme.txt"),
                   "x"], r"not a kallsyms"))
    cases.append(("no file", ["check"], r"no input file"))
    cases.append(("bad threshold", ["report", "--hold-threshold", "abc",
                                    "x"], r"bad --hold-threshold"))
    cases.append(("json and folded", ["report", "--json", "--folded", "x"],
                  r"exclude each other"))
    cases.append(("bad --kind", ["check", "--kind", "mismatch,bogus", "x"],
                  r"bad --kind \(kinds: mismatch,unknown,"))
    cases.append(("json and svg", ["report", "--svg", "x", "--json"],
                  r"--json, --folded and --svg exclude each other"))
    for name, args, rx in cases:
        code, out, err = rn.run(args)
        errors = rn.sanitizer_errors(err)
        if code != 2:
            errors.append("exit %d, expected 2" % code)
        lines = [l for l in err.splitlines() if l.strip()]
        if not lines or not re.search(rx, lines[0]):
            errors.append("stderr first line lacks /%s/: %r" % (rx, err[:300]))
        if len(lines) > 2 or (len(lines) == 2 and
                              not lines[1].startswith("Try ")):
            errors.append("more than one error line: %r" % err[:500])
        if out:
            errors.append("stdout not empty: %r" % out[:200])
        rn.result("bad input: " + name, errors)
    # a live run that failed removed its instance
    inst = os.path.join(d, "tracefs-inst", "instances")
    if os.path.isdir(inst):
        left = os.listdir(inst)
        rn.result("live: a failed run leaves no instance",
                  ["left: %r" % left] if left else [])
    # corrupt data pages: any verdict, but no crash and at most one line
    if os.path.exists(good):
        with open(good, "rb") as f:
            data = bytearray(f.read())
        for k, off in enumerate(range(len(data) - 4096, len(data), 97)):
            bad = bytearray(data)
            for j in range(off, min(off + 64, len(bad))):
                bad[j] ^= 0x5a
            p = os.path.join(d, "corrupt%d.dat" % k)
            write(p, bytes(bad))
        for k in range(0, 4096 // 97 + 1):
            p = os.path.join(d, "corrupt%d.dat" % k)
            if not os.path.exists(p):
                continue
            code, out, err = rn.run(["report", p])
            errors = rn.sanitizer_errors(err)
            if code not in (0, 1, 2) or code < 0:
                errors.append("exit %d" % code)
            if code == 2 and len(err.strip().splitlines()) != 1:
                errors.append("error is not one line: %r" % err[:300])
            if errors:
                rn.result("corrupt trace.dat #%d" % k, errors)
                break
        else:
            rn.result("corrupt trace.dat data pages (%d files)" % (k + 1),
                      [])


def run_record_past_page(rn, only):
    """A record whose header claims more bytes than its page holds is
    malformed: none of the bytes past the page are read (found by
    fuzz_tracedat: ASan saw them read past libtracecmd's buffer)."""
    if only and "bad" not in only:
        return
    # the clean scenario's trace.dat, CPU 0's data moved to byte 6144, off
    # the page size: libtracecmd cannot map it and reads each page into a
    # buffer of the page's size; its page ends with a padding event and an
    # event of kmap_push's type whose length word claims 64 bytes, 8 of
    # them in the page
    past = os.path.join(HERE, "..", "fuzz", "regressions", "dat",
                        "libtraceevent-kbuffer-record-past-page.dat")
    code, out, err = rn.run(["report", past])
    errors = rn.sanitizer_errors(err)
    if code != 0:
        errors.append("exit %d, expected 0: %r" % (code, err[:300]))
    if not re.search(r"\(12 events\)\n1 malformed records skipped\n", out):
        errors.append("stdout lacks 12 events and 1 malformed record: %r" %
                      out[:300])
    if "held_at_end" in out:
        errors.append("a finding made of bytes past the page: %r" %
                      out[:300])
    rn.result("trace.dat with a record past its page: malformed", errors)


def run_unit(rn, unit):
    if not unit:
        return
    r = subprocess.run([os.path.abspath(unit)], stdout=subprocess.PIPE,
                       stderr=subprocess.PIPE, cwd=HERE)
    out = r.stdout.decode("utf-8", "replace")
    err = r.stderr.decode("utf-8", "replace")
    sys.stdout.write(out)
    m = re.search(r"^unit: (\d+) passed, (\d+) failed$", out, re.M)
    if not m or r.returncode not in (0, 1):
        rn.failed += 1
        print("FAIL unit tests did not finish (exit %d): %s" %
              (r.returncode, err[:2000]))
        return
    rn.passed += int(m.group(1))
    rn.failed += int(m.group(2))
    if rn.sanitizer_errors(err):
        rn.failed += 1
        print("FAIL unit tests: " + err[:2000])


def main():
    args = sys.argv[1:]
    kms, unit, work, only, sanitized = "./kmapstack", None, "build/tests", \
        [], False
    while args:
        a = args.pop(0)
        if a == "--kmapstack":
            kms = args.pop(0)
        elif a == "--unit":
            unit = args.pop(0)
        elif a == "--work":
            work = args.pop(0)
        elif a == "--sanitized":
            sanitized = True
        else:
            only.append(a)
    os.makedirs(work, exist_ok=True)
    rn = Runner(kms, work, sanitized)
    run_unit(rn, unit)
    run_scenarios(rn, only)
    run_two_files(rn, only)
    run_streams(rn, only)
    run_perf_data(rn, only)
    run_record(rn, only)
    run_outputs(rn, only)
    run_usage(rn, only)
    run_columns(rn, only)
    run_progress(rn, only)
    run_bad_inputs(rn, only)
    run_record_past_page(rn, only)
    if rn.failures:
        print("failed: " + ", ".join(rn.failures))
    print("%d passed, %d failed" % (rn.passed, rn.failed))
    return 1 if rn.failed else 0


if __name__ == "__main__":
    sys.exit(main())

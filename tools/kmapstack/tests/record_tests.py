# SPDX-License-Identifier: GPL-2.0
"""The tests of 'kmapstack record', with a stand-in trace-cmd on PATH.

The stand-in logs the command line it was given and its priority, runs
the command it was given (as trace-cmd record does) and writes a
scenario's trace.dat where -o says (default trace.dat). Run by
run_tests.py (run_record); see tests/README.md.
"""

import json
import os
import re
import shutil
import subprocess

HERE = os.path.dirname(os.path.abspath(__file__))
PY = "/usr/bin/python3"

FAKE_TRACE_CMD = r'''#!/usr/bin/python3
# a stand-in for trace-cmd record: logs its arguments, runs the command,
# copies $FAKE_TC_TRACE to the output file
import json, os, shutil, subprocess, sys
args = sys.argv[1:]
if not args or args[0] != "record":
    sys.exit(3)
with_arg = set("efpoObBsrlgnPNmMCSHRAvV")
out, i = "trace.dat", 1
while i < len(args) and args[i].startswith("-") and args[i] != "--":
    a = args[i]
    if len(a) == 2 and a[1] in with_arg:
        if a == "-o":
            out = args[i + 1]
        i += 2
    else:
        i += 1
if i < len(args) and args[i] == "--":
    i += 1
with open(os.environ["FAKE_TC_LOG"], "w") as f:
    json.dump({"argv": args, "nice": os.nice(0)}, f)
if os.environ.get("FAKE_TC_FAIL"):
    print("trace-cmd: Permission denied", file=sys.stderr)
    sys.exit(4)
subprocess.call(args[i:])
shutil.copyfile(os.environ["FAKE_TC_TRACE"], out)
'''


def nice_of(path):
    """The nice value in a /proc/PID/stat copy."""
    with open(path) as f:
        return int(f.read().rsplit(")", 1)[1].split()[16])


def buffer_rule():
    """The documented per-CPU buffer: 64 MiB, within a quarter of
    MemAvailable (and an eighth of LowFree) over all CPUs, >= 1 MiB."""
    mem = {}
    with open("/proc/meminfo") as f:
        for line in f:
            k, _, v = line.partition(":")
            mem[k] = int(v.split()[0])
    budget = mem["MemAvailable"] // 4
    if "LowFree" in mem:
        budget = min(budget, mem["LowFree"] // 8)
    kb = min(65536, budget // os.sysconf("SC_NPROCESSORS_CONF"))
    return max(kb, 1024)


def run_record(rn, only):
    if only and "record" not in only:
        return
    d = os.path.join(rn.work, "record")
    if os.path.isdir(d):
        shutil.rmtree(d)
    fake, nowhere = os.path.join(d, "bin"), os.path.join(d, "nowhere")
    os.makedirs(fake)
    os.makedirs(nowhere)
    with open(os.path.join(fake, "trace-cmd"), "w") as f:
        f.write(FAKE_TRACE_CMD)
    os.chmod(os.path.join(fake, "trace-cmd"), 0o755)
    traces = {}
    for scn in ("clean", "mismatch", "kallsyms", "lost_events"):
        out = os.path.join(d, "traces", scn)
        r = subprocess.run([PY, os.path.join(HERE, "gen_trace.py"),
                            os.path.join(HERE, "scenarios", scn + ".scn"),
                            out], stdout=subprocess.PIPE,
                           stderr=subprocess.STDOUT)
        if r.returncode:
            rn.result("record: the %s trace" % scn,
                      [r.stdout.decode(errors="replace")[:500]])
            return
        traces[scn] = os.path.join(out, "trace.dat")
    log = os.path.join(d, "trace-cmd.json")
    path = fake + os.pathsep + os.environ.get("PATH", "")
    base = {"PATH": path, "FAKE_TC_LOG": log}

    def run(name, args, trace="clean", env=None, cwd=None):
        """kmapstack ARGS in a fresh directory: (exit, out, err, the
        stand-in's log or None, the directory)"""
        cwd = cwd or os.path.join(d, re.sub(r"\W+", "_", name))
        os.makedirs(cwd, exist_ok=True)
        if os.path.exists(log):
            os.unlink(log)
        e = dict(os.environ, FAKE_TC_TRACE=traces[trace], **base)
        e.pop("KMAPSTACK_KALLSYMS", None)
        e.update(env or {})
        r = subprocess.run([rn.kms] + args, stdout=subprocess.PIPE,
                           stderr=subprocess.PIPE, cwd=cwd, env=e,
                           timeout=120)
        tc = None
        if os.path.exists(log):
            with open(log) as f:
                tc = json.load(f)
        return r.returncode, r.stdout.decode(errors="replace"), \
            r.stderr.decode(errors="replace"), tc, cwd

    def expect(name, got, want, out, err, extra=()):
        errors = rn.sanitizer_errors(err) + list(extra)
        if got != want:
            errors.append("exit %d, expected %d; stdout %r; stderr %r" %
                          (got, want, out[:300], err[:300]))
        rn.result("record: " + name, errors)

    def one_line(err, rx):
        lines = [l for l in err.splitlines() if l.strip()]
        if len(lines) != 1 or not re.search(rx, lines[0]):
            return ["stderr is not one line /%s/: %r" % (rx, err[:300])]
        return []

    # a clean run: trace-cmd record -e kmap_stack -b KB around the command
    name = "a clean trace: exit 0, the command ran, the trace in ."
    code, out, err, tc, cwd = run(name, [
        "record", "--", "sh", "-c", "echo ran > ran.txt"])
    errors = []
    if not tc:
        errors.append("trace-cmd was not run")
    else:
        a = tc["argv"]
        if a[:3] != ["record", "-e", "kmap_stack"]:
            errors.append("not trace-cmd record -e kmap_stack: %r" % a)
        want = str(buffer_rule())
        if "-b" not in a or a[a.index("-b") + 1] != want:
            errors.append("no -b %s (64 MiB per CPU within a quarter of "
                          "MemAvailable): %r" % (want, a))
    if not os.path.exists(os.path.join(cwd, "ran.txt")):
        errors.append("the command did not run")
    if not os.path.exists(os.path.join(cwd, "trace.dat")):
        errors.append("no trace.dat")
    if out:
        errors.append("stdout of a clean check is not empty: %r" % out)
    expect(name, code, 0, out, err, errors)

    # a violation: check's verdict and report
    name = "a trace with a violation: exit 1, the violation on stdout"
    code, out, err, tc, cwd = run(name, ["record", "--", "true"],
                                  "mismatch")
    expect(name, code, 1, out, err,
           [] if re.search(r"^WARNING: kmap stack violation: mismatch$",
                           out, re.M) else ["no violation: %r" % out])

    # kallsyms saved beside the trace, module functions named
    name = "kallsyms saved beside -o's trace, module functions named"
    code, out, err, tc, cwd = run(
        name, ["record", "-o", "k.dat", "--", "true"], "kallsyms",
        {"KMAPSTACK_KALLSYMS": os.path.join(HERE, "data",
                                            "kallsyms-kmapbug.txt")})
    errors = []
    if not re.search(r"^  unmapped at: +kmapbug_unmap_first\+0xf "
                     r"\[kmapbug\]$", out, re.M):
        errors.append("the module's function not named: %r" % out[:500])
    if not os.path.exists(os.path.join(cwd, "k.dat.kallsyms")):
        errors.append("no k.dat.kallsyms")
    expect(name, code, 1, out, err, errors)

    # a --kallsyms of the user's before record replaces the saved file
    nomod = os.path.join(d, "kallsyms-without-modules.txt")
    with open(nomod, "w") as f:
        f.write("ffffffff81000000 T _stext\nffffffff81000400 T outer_map\n")
    name = "--kallsyms=FILE before record replaces the saved kallsyms"
    code, out, err, tc, cwd = run(
        name, ["--kallsyms=" + os.path.join(HERE, "data",
                                            "kallsyms-kmapbug.txt"),
               "record", "--", "true"], "kallsyms",
        {"KMAPSTACK_KALLSYMS": nomod})
    expect(name, code, 1, out, err,
           [] if "kmapbug_unmap_first+0xf [kmapbug]" in out
           else ["the user's kallsyms not used: %r" % out[:500]])

    # kallsyms with its addresses hidden (not root): a warning, no --kallsyms
    hidden = os.path.join(d, "kallsyms-hidden.txt")
    with open(hidden, "w") as f:
        f.write("0000000000000000 T _stext\n0000000000000000 t "
                "kmapbug_map_first\t[kmapbug]\n")
    name = "kallsyms with hidden addresses: a warning, the trace checked"
    code, out, err, tc, cwd = run(name, ["record", "--", "true"],
                                  env={"KMAPSTACK_KALLSYMS": hidden})
    errors = []
    if not re.search(r"^kmapstack: record: warning: .*the functions of "
                     r"modules loaded during the recording stay addresses$",
                     err, re.M):
        errors.append("no warning: %r" % err[:300])
    if os.path.exists(os.path.join(cwd, "trace.dat.kallsyms")):
        errors.append("the useless trace.dat.kallsyms left")
    expect(name, code, 0, out, err, errors)

    # the user's -b, -o and -e
    name = "the user's -b, -o and -e go to trace-cmd, no -b of its own"
    code, out, err, tc, cwd = run(name, [
        "record", "-b", "2048", "-o", "x.dat", "-e", "sched_switch", "--",
        "true"])
    errors = []
    if not tc:
        errors.append("trace-cmd was not run")
    else:
        a = tc["argv"]
        if a.count("-b") != 1 or a[a.index("-b") + 1] != "2048":
            errors.append("-b: %r" % a)
        if "sched_switch" not in a or "kmap_stack" not in a:
            errors.append("-e: %r" % a)
    if not os.path.exists(os.path.join(cwd, "x.dat")):
        errors.append("no x.dat")
    expect(name, code, 0, out, err, errors)

    # check options before 'record'
    name = "--fail-on-gaps before record: lost events exit 1"
    code, out, err, tc, cwd = run(name, ["--fail-on-gaps", "record", "--",
                                         "true"], "lost_events")
    expect(name, code, 1, out, err,
           [] if "events lost" in err else ["no gap error: %r" % err])
    name = "lost events without --fail-on-gaps: exit 0, a warning"
    code, out, err, tc, cwd = run(name, ["record", "--", "true"],
                                  "lost_events")
    expect(name, code, 0, out, err,
           [] if "events lost" in err else ["no gap warning: %r" % err])

    # the command failed, the trace is clean
    name = "the command fails, the trace is clean: exit 3, said"
    code, out, err, tc, cwd = run(name, ["record", "--", "sh", "-c",
                                         "exit 5"])
    expect(name, code, 3, out, err,
           [] if re.search(r"^kmapstack: record: the command failed "
                           r"\(exit 5\)", err, re.M)
           else ["not said: %r" % err])

    # the priorities: the recorder above the command, the command at ours
    if os.geteuid() == 0:
        name = "the recorder at nice -10, the command at kmapstack's"
        code, out, err, tc, cwd = run(name, [
            "record", "--", "sh", "-c", "cat /proc/self/stat > stat"])
        errors = []
        mine = os.nice(0)
        if not tc or tc["nice"] != max(mine - 10, -20):
            errors.append("trace-cmd at nice %r, not %d" %
                          (tc and tc["nice"], max(mine - 10, -20)))
        st = os.path.join(cwd, "stat")
        if not os.path.exists(st) or nice_of(st) != mine:
            errors.append("the command at nice %r, not %d" % (
                os.path.exists(st) and nice_of(st), mine))
        expect(name, code, 0, out, err, errors)

    # errors: one line, exit 2
    name = "no command: exit 2"
    code, out, err, tc, cwd = run(name, ["record", "-e", "sched_switch"])
    expect(name, code, 2, out, err,
           ([] if re.search(r"^kmapstack: record: no command", err)
            else ["stderr: %r" % err]) +
           ([] if tc is None else ["trace-cmd ran"]))
    name = "trace-cmd not installed: one line naming the package"
    code, out, err, tc, cwd = run(name, ["record", "--", "true"],
                                  env={"PATH": nowhere})
    expect(name, code, 2, out, err,
           one_line(err, r"^kmapstack: record: trace-cmd is not installed "
                    r"here \(Debian: apt-get install trace-cmd\)$"))
    name = "trace-cmd record fails: exit 2, said"
    code, out, err, tc, cwd = run(name, ["record", "--", "true"],
                                  env={"FAKE_TC_FAIL": "1"})
    expect(name, code, 2, out, err,
           [] if re.search(r"^kmapstack: record: 'trace-cmd record' "
                           r"failed \(exit 4\)$", err, re.M)
           else ["stderr: %r" % err])
    name = "record --help: exit 0, the usage"
    code, out, err, tc, cwd = run(name, ["record", "--help"])
    expect(name, code, 0, out, err,
           [] if out.startswith("usage: kmapstack [check options] record ")
           else ["stdout: %r" % out[:200]])

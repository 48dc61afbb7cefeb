#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""Host tests of tools/drgn/kmapstack.py, without a vmcore.

What needs no kernel: the -p and -c arguments as the crash extension takes
them, and that a mistake raises KmapStackError, never SystemExit, so that
it ends a script but not drgn's interactive shell (a drgn Program with
no kernel in it is a kernel without kmap_stack). The listing itself is
tested on a real vmcore by scripts/test-postmortem.sh.

  /usr/bin/python3 tools/drgn/test_kmapstack.py [SCRIPT]

drgn (python3-drgn) is in /usr/bin/python3's path. SCRIPT: the script
under test (default: kmapstack.py next to this file). Ends with "N passed,
N failed"; exits 1 on any failure.
"""
import importlib.util
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))


def load(path):
    spec = importlib.util.spec_from_file_location("kmapstack_drgn", path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def raises_error(ks, fn):
    """fn() raises ks.KmapStackError (not SystemExit nor another error)."""
    try:
        fn()
    except BaseException as e:  # noqa: BLE001 (SystemExit is the point)
        err = getattr(ks, "KmapStackError", None)
        return err is not None and isinstance(e, err) and \
            str(e).startswith("kmapstack: ")
    return False


def run_script(path, *args):
    """python3 SCRIPT ARGS, as a user without drgn's wrapper would run it:
    (exit status, stdout, stderr)"""
    r = subprocess.run([sys.executable, path] + list(args),
                       stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                       timeout=60)
    return r.returncode, r.stdout.decode(), r.stderr.decode()


def help_ok(path):
    code, out, err = run_script(path, "--help")
    return code == 0 and out.startswith("usage: kmapstack.py ") and \
        "-p PID|TASK" in out and "drgn" in out and not err


def no_drgn_ok(path):
    code, out, err = run_script(path, "-p", "1")
    lines = err.splitlines()
    return code == 2 and not out and len(lines) == 1 and \
        lines[0].startswith("kmapstack: ") and "with drgn" in lines[0]


def cases(ks, drgn, path):
    prog = drgn.Program()
    yield "python3 kmapstack.py --help: the usage, exit 0", \
        lambda: help_ok(path)
    yield "python3 kmapstack.py -p 1: one line, run it with drgn, exit 2", \
        lambda: no_drgn_ok(path)
    yield "python3 kmapstack.py -p zz: the bad -p said, exit 2", \
        lambda: run_script(path, "-p", "zz")[0] == 2 and \
        "Traceback" not in run_script(path, "-p", "zz")[2]
    task = 0xffff888004a1c100
    yield "-c 0,2-3 of 4 CPUs", lambda: ks.parse_cpus("0,2-3", 4) == [0, 2, 3]
    yield "-c 1-1,0", lambda: ks.parse_cpus("1-1,0", 2) == [0, 1]
    yield "-c all and a: every CPU", lambda: (
        ks.parse_cpus("all", 3) == [0, 1, 2] and ks.parse_cpus("a", 1) == [0])
    for bad in ("3-1", "x", "0,,1", "", "-1"):
        yield "-c %r raises KmapStackError" % bad, \
            lambda bad=bad: raises_error(ks, lambda: ks.parse_cpus(bad, 4))
    yield "-c 4 of 4 CPUs: no such CPU", \
        lambda: raises_error(ks, lambda: ks.parse_cpus("2,4", 4))
    yield "-p 97: a pid", lambda: ks.parse_task("97") == (97, None)
    yield "-p TASK: a task_struct address", \
        lambda: ks.parse_task("%x" % task) == (None, task)
    yield "-p 0xTASK", lambda: ks.parse_task("0x%x" % task) == (None, task)
    yield "-p zz raises KmapStackError", \
        lambda: raises_error(ks, lambda: ks.parse_task("zz"))
    yield "kmapstack() on a kernel without kmap_stack raises KmapStackError", \
        lambda: raises_error(ks, lambda: ks.kmapstack(prog))
    yield "kmapstack(cpu='0-1') there too", \
        lambda: raises_error(ks, lambda: ks.kmapstack(prog, cpu="0-1"))
    yield "main() with a bad -p raises KmapStackError, no exit", \
        lambda: raises_error(ks, lambda: ks.main(prog, ["-p", "zz"]))
    yield "main() on that kernel raises KmapStackError, no exit", \
        lambda: raises_error(ks, lambda: ks.main(prog, ["-c", "0"]))
    yield "a stack depot handle without the depot: no frames", \
        lambda: ks.StackDepot(prog).frames(0x12345) == []


def main(argv):
    try:
        import drgn
    except ImportError:
        print("test_kmapstack: no drgn module (python3-drgn, run with "
              "/usr/bin/python3)")
        return 1
    path = argv[1] if len(argv) > 1 else os.path.join(HERE, "kmapstack.py")
    ks = load(path)
    passed = failed = 0
    for name, check in cases(ks, drgn, path):
        try:
            ok = check()
        except BaseException as e:  # noqa: BLE001 (reported as a failure)
            ok, name = False, "%s (%s: %s)" % (name, type(e).__name__, e)
        print("%s %s" % ("PASS" if ok else "FAIL", name))
        passed, failed = passed + bool(ok), failed + (not ok)
    print("%d passed, %d failed" % (passed, failed))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))

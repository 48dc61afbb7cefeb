#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""Seed corpora for the fuzz targets: the scenarios as trace.dat and text."""

import os
import shutil
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))


def main():
    out = sys.argv[1]
    text = os.path.join(out, "text")
    dat = os.path.join(out, "dat")
    work = os.path.join(out, "work")
    for d in (text, dat, work):
        os.makedirs(d, exist_ok=True)
    sdir = os.path.join(HERE, "scenarios")
    for name in sorted(os.listdir(sdir)):
        if not name.endswith(".scn") or name == "stats.scn":
            continue
        base = name[:-4]
        w = os.path.join(work, base)
        if os.path.isdir(w):
            shutil.rmtree(w)
        subprocess.run(["/usr/bin/python3", os.path.join(HERE, "gen_trace.py"),
                        os.path.join(sdir, name), w], check=True,
                       stdout=subprocess.DEVNULL)
        shutil.copy(os.path.join(w, "ftrace.txt"),
                    os.path.join(text, base + ".ftrace"))
        shutil.copy(os.path.join(w, "perf.txt"),
                    os.path.join(text, base + ".perf"))
        with open(os.path.join(text, base + ".report"), "w") as f:
            subprocess.run(["trace-cmd", "report", "-l",
                            os.path.join(w, "trace.dat")], stdout=f,
                           check=True)
        src = os.path.join(w, "trace.dat")
        if os.path.getsize(src) <= 65536:
            shutil.copy(src, os.path.join(dat, base + ".dat"))
    return 0


if __name__ == "__main__":
    sys.exit(main())

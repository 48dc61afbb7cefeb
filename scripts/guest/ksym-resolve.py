#!/usr/bin/python3
"""ksym-resolve.py KALLSYMS [FILE]: name module addresses in kmapstack output.

trace-cmd record saves /proc/kallsyms when the recording starts, so the
functions of a module loaded during the recording (tests/modules/kmapbug)
stay bare addresses in the trace.dat and in what kmapstack prints.
KALLSYMS is /proc/kallsyms read while the module was loaded (lines with a
"[module]" column; others are ignored).  Every 0x... address of FILE (default
stdin) that falls inside a module function becomes "name+0xoff [module]";
the rest of the text is copied as is.
"""
import bisect
import re
import sys


def load(path):
    syms = []
    for line in open(path, errors="replace"):
        parts = line.split()
        if len(parts) < 4 or not parts[3].startswith("["):
            continue
        if parts[1] not in "tTwW":
            continue
        syms.append((int(parts[0], 16), parts[2], parts[3].strip("[]")))
    syms.sort()
    return syms


def main():
    if len(sys.argv) not in (2, 3):
        sys.exit(__doc__)
    syms = load(sys.argv[1])
    addrs = [s[0] for s in syms]
    src = open(sys.argv[2]) if len(sys.argv) == 3 else sys.stdin

    def name(m):
        a = int(m.group(0), 16)
        i = bisect.bisect_right(addrs, a) - 1
        # no sizes in kallsyms: accept up to 64 KiB past the symbol, within
        # the same module's run of symbols
        if i < 0 or a - addrs[i] > 0x10000:
            return m.group(0)
        if i + 1 < len(syms) and syms[i + 1][2] != syms[i][2] and a >= addrs[i + 1]:
            return m.group(0)
        return f"{syms[i][1]}+0x{a - addrs[i]:x} [{syms[i][2]}]"

    pat = re.compile(r"0x[0-9a-f]{16}\b")
    for line in src:
        sys.stdout.write(pat.sub(name, line) if syms else line)


if __name__ == "__main__":
    main()

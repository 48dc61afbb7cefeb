#!/usr/bin/python3
# violation-sites.py SUMMARY.JSON ALL KERNEL: from 'kmapstack report --json',
# one line per violation for known_bugs (scripts/lib.sh) into ALL, and of
# those the kernel's kmap_violation events gave (source kernel or both)
# into KERNEL: the unmapping (or leaking) site; for a depth violation also
# the title and the sites of the stack at that moment, tab-separated, so
# that a depth the leaked entries of a known bug caused counts as that
# bug's, as its report in the kernel log does.  A last line says how many
# the summary left out.  Prints "maps unmaps kernel_violation_events
# lost_events violations", or "x x x x x" for an unreadable summary.
import json
import sys

DEPTH = "more mappings than the real stack holds"


def line(v):
    if v["kind"] != "depth":
        return v["caller"] + "\n"
    sites = " ".join(e["site"] or "?" for e in v.get("stack") or [])
    return "%s\t%s\t%s\n" % (v["caller"], DEPTH, sites)


try:
    j = json.load(open(sys.argv[1]))
    s = j["summary"]
    more = "(%d not shown)\n" % s["not_shown"] if s.get("not_shown") else ""
    with open(sys.argv[2], "w") as a, open(sys.argv[3], "w") as k:
        for v in j["violations"]:
            a.write(line(v))
            if v["source"] != "replay":
                k.write(line(v))
        a.write(more)
        k.write(more)
    print(s["maps"], s["unmaps"], s["kernel_violation_events"],
          s["lost_events"], s["violations"])
except Exception:
    print("x x x x x")

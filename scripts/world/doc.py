#!/usr/bin/python3
"""doc.py DOC RESULTS TOTAL_S PASS FAIL NPATCHES BASE FLAVOUR...

Writes the figures of scripts/check-world.sh (RESULTS/FLAVOUR.txt,
key=value lines) into DOC between the generated markers of BASE (the
kernel version the series was applied to: 7.3.4, 6.12.118); the rest of
DOC (the triage, written by people, and the other base's figures) is kept.
A DOC without the markers gets them appended."""
import datetime
import os
import sys

doc, res, total, npass, nfail, npatch, base = sys.argv[1:8]
ran = sys.argv[8:]
series = ".".join(base.split(".")[:2])
BEGIN = f"<!-- check-world {series}: generated, do not edit (scripts/check-world.sh) -->"
END = f"<!-- check-world {series}: end of generated part -->"
ARCH = {"amd64": "x86_64", "rt": "x86_64 PREEMPT_RT", "686-pae": "i386 PAE, 3 GiB (2.1 GiB highmem)"}


def load(f):
    d = {}
    p = os.path.join(res, f + ".txt")
    if os.path.exists(p):
        for line in open(p):
            k, _, v = line.rstrip("\n").partition("=")
            d[k] = v
    return d


def num(v):
    try:
        return f"{int(v):,}".replace(",", " ")
    except (TypeError, ValueError):
        return v if v else "–"


def mins(v):
    try:
        s = int(v)
    except (TypeError, ValueError):
        return "–"
    return f"{s // 60} min {s % 60:02d} s" if s >= 60 else f"{s} s"


# the flavours of this run, and those of earlier runs whose figures are
# still in RESULTS (each column says when it ran)
flavours = [f for f in ARCH if f in ran or os.path.exists(os.path.join(res, f + ".txt"))]
flavours += [f for f in ran if f not in flavours]

out = [BEGIN, "", f"### Linux {base}", ""]
out.append(f"Last run: {datetime.datetime.utcnow():%Y-%m-%d %H:%M} UTC, "
           f"`make check-world` ({' '.join(ran)}), series of {npatch} patch(es), "
           f"{mins(total)} in all on 2 shared vCPUs (QEMU TCG); "
           f"its checks: {npass} passed, {nfail} failed.")
out.append("")
rows = [
    ("run (this flavour's figures)", "run"), ("its checks", "checks"),
    ("Debian config", "origin"), ("derived config", "config"), ("kernel build (the last make, ccache)", "build.seconds"),
    ("suites: KUnit (with the option)", "kms.kunit"), ("suites: crypto (with the option)", "kms.crypto"),
    ("suites: kmap maps (debugfs)", "kms.maps"), ("suites: checks", "kms.checks"),
    ("suites: wall time", "kms.seconds"),
    ("without the option: run", "nokms.run"), ("without the option: Debian config", "nokms.origin"),
    ("without the option: kernel build (the last make, ccache)", "nokms.build.seconds"),
    ("suites: KUnit (without the option)", "nokms.kunit"), ("suites: crypto (without the option)", "nokms.crypto"),
    ("suites without the option: checks", "nokms.checks"), ("suites without the option: wall time", "nokms.seconds"),
    ("suites: KUnit or crypto totals differ with and without the option (checks rows above)", "regression"),
    ("workload: guest root", "workload.root"), ("workload: phases", "workload.phases"), ("workload: wall time (boot to power-off)", "workload.seconds"),
    ("workload: kmap maps (debugfs, during the workload)", "workload.maps"),
    ("workload: kmap maps (debugfs, since boot)", "workload.maps_total"),
    ("workload: traced maps (kmap_push)", "traced.maps"), ("workload: traced unmaps (kmap_pop)", "traced.unmaps"),
    ("untraced rounds after the trace (KMAPSTACK_WORLD_MAPS)", "untraced.rounds"),
    ("untraced rounds: kmap maps (debugfs)", "untraced.maps"),
    ("kmap maps since boot, at the end (debugfs)", "untraced.maps_total"),
    ("workload: trace.dat size (MiB)", "workload.trace_mb"),
    ("workload: lost events", "traced.lost"), ("workload: kmap_violation events", "traced.violation_events"),
    ("workload: `kmapstack check` violations (exit status)", "check.violations"),
    ("workload: of them, of the base kernel's known bugs", "check.violations_known"),
    ("workload: `kmapstack check` wall time", "check.seconds"),
    ("kmap_stack reports in the kernel log (workload)", "workload.reports"),
    ("of them, of the base kernel's known bugs (triage below)", "workload.reports_known"),
]


def regression(d):
    """Whether the KUnit and crypto totals differ with the option"""
    if not d.get("nokms.kunit") or not d.get("kms.kunit"):
        return None
    diff = [w for w in ("kunit", "crypto") if d.get("kms." + w) != d.get("nokms." + w)]
    return "no (the same totals)" if not diff else "YES: " + ", ".join(diff) + " differ"


data = {f: load(f) for f in flavours}
for f in flavours:
    r = regression(data[f])
    if r:
        data[f]["regression"] = r
out.append("| | " + " | ".join(f"{f} ({ARCH.get(f, f)})" for f in flavours) + " |")
out.append("|---|" + "---|" * len(flavours))
for label, key in rows:
    vals = []
    for f in flavours:
        v = data[f].get(key)
        if key.endswith("seconds"):
            v = mins(v)
        elif key in ("kms.maps", "workload.maps", "workload.maps_total", "traced.maps", "traced.unmaps",
                     "untraced.maps", "untraced.maps_total"):
            v = num(v)
        elif key == "check.violations" and v is not None:
            v = f"{v} ({data[f].get('check.exit', '?')})"
        vals.append(v if v not in (None, "") else "–")
    if all(v == "–" for v in vals):
        continue
    out.append(f"| {label} | " + " | ".join(vals) + " |")
out.append("")
for f in flavours:
    p = os.path.join(res, f + "-core-choices.txt")
    if os.path.exists(p):
        out.append(f"Debian's core choices kept, {f} (symbol, Debian, check-world):")
        out.append("")
        out.append("```")
        out.extend(open(p).read().rstrip("\n").split("\n"))
        out.append("```")
        out.append("")
out.append(END)
gen = "\n".join(out) + "\n"

text = open(doc).read() if os.path.exists(doc) else "# kmapstack in the real world\n\n"
if BEGIN in text and END in text:
    a = text.index(BEGIN)
    b = text.index(END) + len(END) + 1
    text = text[:a] + gen + text[b:]
else:
    text = text.rstrip("\n") + "\n\n" + gen
open(doc, "w").write(text)
print(f"doc.py: wrote the figures of {', '.join(flavours)} to {doc}")

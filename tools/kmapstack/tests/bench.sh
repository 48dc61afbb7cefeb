#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# kmapstack benchmark: a synthetic trace.dat of BENCH_EVENTS kmap_stack
# events on 2 CPUs (tests/gen_trace.py --bench), then
#   bench/floor trace.dat (tracecmd_iterate_events() and nothing else),
#   kmapstack stats trace.dat,
#   trace-cmd report trace.dat
# all with output to /dev/null, timed by hyperfine in one run; then floor
# and kmapstack in turn, whose median ratio is the goal's figure; prints
# the figures (wall and CPU time: on a loaded machine the CPU time is the
# steadier) and the ratios against the goals, also kept in
# build/bench/result.md. The peak memory is measured on the trace and on
# one of a tenth of its events: it must not grow with the events. Run
# from tools/kmapstack.
set -eu
N=${BENCH_EVENTS:-3000000}
PY=${PYTHON:-/usr/bin/python3}
DIR=build/bench
mkdir -p "$DIR"
trace() {
	if [ ! -f "$DIR/trace-$1.dat" ]; then
		echo "bench: generating $1 events into $DIR/trace-$1.dat"
		rm -rf "$DIR/gen"
		"$PY" tests/gen_trace.py --bench "$1" "$DIR/gen"
		mv "$DIR/gen/trace.dat" "$DIR/trace-$1.dat"
		rm -rf "$DIR/gen"
	fi
}
N10=$((N / 10))
trace "$N"
trace "$N10"
DAT=$DIR/trace-$N.dat
ls -l "$DAT"
FLOOR=build/bench/floor
${CC:-cc} -O2 -std=c11 $(pkg-config --cflags libtracecmd) -o "$FLOOR" \
	bench/floor.c $(pkg-config --libs libtracecmd libtraceevent)
KMS="./kmapstack stats --no-progress"
LOAD=$(cut -d' ' -f1-3 /proc/loadavg)
hyperfine -N --warmup 1 --runs 5 --export-json "$DIR/result.json" \
	-n floor "$FLOOR $DAT" \
	-n kmapstack "$KMS $DAT" \
	-n trace-cmd "trace-cmd report $DAT" --output=null
# peak RSS (KB) of a command; kmapstack's own memory at its end (RssAnon)
mem() { /usr/bin/time -f %M "$@" 2>&1 >/dev/null | tail -1; }
anon() {
	env KMAPSTACK_MEMSTAT=1 $KMS "$1" 2>&1 >/dev/null |
		awk '/RssAnon/ { print $3 }'
}
# the CPU time of each of kmapstack's processes, 5 runs: the reading child
# (libtracecmd) and the replaying parent run side by side on two CPUs
SPLIT=$(for i in 1 2 3 4 5; do
	env KMAPSTACK_MEMSTAT=1 $KMS "$DAT" 2>&1 >/dev/null |
		sed -n 's/^kmapstack: CPU: \([0-9.]*\) s, its trace.dat readers: \([0-9.]*\) s$/\1 \2/p'
done | awk '{ p += $1; c += $2 } END { printf "%.3f %.3f", p / NR, c / NR }')
# the goal's figure: floor and kmapstack in turn (in both orders), 11
# pairs; the median of the pairs' ratios (a busy neighbour on a shared
# host slows a pair, not one command's every run)
PAIRS=$("$PY" - "$FLOOR" "$DAT" $KMS <<'PYEOF'
import statistics, subprocess, sys, time
floor, dat, kms = sys.argv[1], sys.argv[2], sys.argv[3:]
def run(cmd):
    t = time.perf_counter()
    subprocess.run(cmd, stdout=subprocess.DEVNULL, check=True)
    return time.perf_counter() - t
r = []
for i in range(12):  # the order alternates; the first pair is a warm-up
    if i % 2:
        f = run([floor, dat])
        k = run(kms + [dat])
    else:
        k = run(kms + [dat])
        f = run([floor, dat])
    r.append(k / f)
r = r[1:]
print("%.2f %.2f %.2f" % (statistics.median(r), min(r), max(r)))
PYEOF
)
MEM=""
for d in "$DIR/trace-$N10.dat" "$DAT"; do
	MEM="$MEM $(mem $FLOOR $d) $(mem $KMS $d) $(anon $d)"
done
"$PY" - "$DIR/result.json" "$N" "$(nproc)" "$LOAD" "$N10" $SPLIT $PAIRS $MEM \
	> "$DIR/result.md" <<'PYEOF'
import json, sys
r = {x["command"]: x for x in json.load(open(sys.argv[1]))["results"]}
n, ncpu, load, n10 = sys.argv[2:6]
parent, child = float(sys.argv[6]), float(sys.argv[7])
pmed, pmin, pmax = (float(x) for x in sys.argv[8:11])
mem = sys.argv[11:]
def wall(c):
    return r[c]["mean"]
def cpu(c):
    return r[c]["user"] + r[c]["system"]
print("bench: %s events, %s CPUs, load average %s (hyperfine, 5 runs)"
      % (n, ncpu, load))
print("bench: wall   floor (tracecmd_iterate_events only) %.3f s, kmapstack "
      "%.3f s, trace-cmd report %.3f s"
      % tuple(wall(c) for c in ("floor", "kmapstack", "trace-cmd")))
print("bench: CPU    floor %.3f s, kmapstack %.3f s (both its processes), "
      "trace-cmd report %.3f s"
      % tuple(cpu(c) for c in ("floor", "kmapstack", "trace-cmd")))
print("bench: CPU    per process (KMAPSTACK_MEMSTAT, 5 runs): the reading "
      "child %.3f s (%.2fx the floor's), the replaying parent %.3f s; on two "
      "free CPUs the wall time is the larger" % (child, child / cpu("floor"),
                                               parent))
print("bench: kmapstack/floor %.2fx wall, %.2fx CPU (hyperfine's means)"
      % (wall("kmapstack") / wall("floor"), cpu("kmapstack") / cpu("floor")))
print("bench: kmapstack/floor %.2fx wall, the median of 11 pairs run in turn "
      "(%.2fx to %.2fx) (goal <= 1.3x: %s)"
      % (pmed, pmin, pmax, "met" if pmed <= 1.3 else "NOT met"))
t = wall("trace-cmd") / wall("kmapstack")
print("bench: trace-cmd report/kmapstack %.1fx wall, %.1fx CPU (goal >= 10x: "
      "%s)" % (t, cpu("trace-cmd") / cpu("kmapstack"),
               "met" if t >= 10 else "NOT met"))
print("bench: max RSS (KB) at %s -> %s events: floor %s -> %s, kmapstack "
      "%s -> %s" % (n10, n, mem[0], mem[3], mem[1], mem[4]))
print("bench: kmapstack's own memory at its end (RssAnon, KB, the replaying "
      "process) at %s -> %s events: %s -> %s" % (n10, n, mem[2], mem[5]))
PYEOF
cat "$DIR/result.md"

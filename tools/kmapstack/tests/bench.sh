#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# kmapstack benchmark: a synthetic trace.dat of BENCH_EVENTS kmap_stack
# events on 2 CPUs (tests/gen_trace.py --bench), then
#   bench/floor trace.dat (tracecmd_iterate_events() and nothing else),
#   kmapstack stats trace.dat as it runs by default (the pass it takes
#   depends on the load: see below), and with each pass forced
#   (KMAPSTACK_PASS=child: child processes read the trace, this one
#   replays it; KMAPSTACK_PASS=direct: all in this process),
#   trace-cmd report trace.dat
# all with output to /dev/null, timed by hyperfine in one run; prints the
# figures (wall and CPU time: on a loaded machine the CPU time is the
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
# the default: the pass kmapstack takes now (the child's when few enough
# other tasks want a CPU), as it says with KMAPSTACK_MEMSTAT=1
LOAD=$(cut -d' ' -f1-3 /proc/loadavg)
DEFAULT=$(env -u KMAPSTACK_PASS KMAPSTACK_MEMSTAT=1 $KMS "$DAT" 2>&1 >/dev/null |
	sed -n 's/^kmapstack: pass: //p')
[ -n "$DEFAULT" ] || DEFAULT="(kmapstack did not say)"
hyperfine -N --warmup 1 --runs 5 --export-json "$DIR/result.json" \
	-n floor "$FLOOR $DAT" \
	-n kmapstack "env -u KMAPSTACK_PASS $KMS $DAT" \
	-n child "env KMAPSTACK_PASS=child $KMS $DAT" \
	-n direct "env KMAPSTACK_PASS=direct $KMS $DAT" \
	-n trace-cmd "trace-cmd report $DAT" --output=null
# peak RSS (KB) of a command; kmapstack's own memory at its end (RssAnon)
mem() { /usr/bin/time -f %M "$@" 2>&1 >/dev/null | tail -1; }
anon() {
	env KMAPSTACK_MEMSTAT=1 KMAPSTACK_PASS=$1 $KMS "$2" 2>&1 >/dev/null |
		awk '/RssAnon/ { print $3 }'
}
MEM=""
for d in "$DIR/trace-$N10.dat" "$DAT"; do
	MEM="$MEM $(mem $FLOOR $d) $(mem env KMAPSTACK_PASS=child $KMS $d)"
	MEM="$MEM $(mem env KMAPSTACK_PASS=direct $KMS $d)"
	MEM="$MEM $(anon child $d) $(anon direct $d)"
done
"$PY" - "$DIR/result.json" "$N" "$(nproc)" "$LOAD" "$DEFAULT" "$N10" $MEM \
	> "$DIR/result.md" <<'PYEOF'
import json, sys
r = {x["command"]: x for x in json.load(open(sys.argv[1]))["results"]}
n, ncpu, load, default, n10 = sys.argv[2:7]
mem = sys.argv[7:]
def wall(c):
    return r[c]["mean"]
def cpu(c):
    return r[c]["user"] + r[c]["system"]
print("bench: %s events, %s CPUs, load average %s (hyperfine, 5 runs)"
      % (n, ncpu, load))
print("bench: at that load kmapstack takes the %s pass" % default)
print("bench: wall   floor (tracecmd_iterate_events only) %.3f s, kmapstack "
      "%.3f s (child pass %.3f s, direct pass %.3f s), trace-cmd report "
      "%.3f s" % tuple(wall(c) for c in ("floor", "kmapstack", "child",
                                         "direct", "trace-cmd")))
print("bench: CPU    floor %.3f s, kmapstack %.3f s (child pass %.3f s, all "
      "its processes; direct pass %.3f s), trace-cmd report %.3f s"
      % tuple(cpu(c) for c in ("floor", "kmapstack", "child", "direct",
                               "trace-cmd")))
for c, name in (("child", "child pass"), ("direct", "direct pass")):
    print("bench: %s/floor %.2fx wall, %.2fx CPU"
          % (name, wall(c) / wall("floor"), cpu(c) / cpu("floor")))
k = wall("kmapstack") / wall("floor")
print("bench: kmapstack/floor %.2fx wall, %.2fx CPU (goal <= 1.3x: %s)"
      % (k, cpu("kmapstack") / cpu("floor"), "met" if k <= 1.3 else "NOT met"))
t = wall("trace-cmd") / wall("kmapstack")
print("bench: trace-cmd report/kmapstack %.1fx wall, %.1fx CPU (goal >= 10x: "
      "%s)" % (t, cpu("trace-cmd") / cpu("kmapstack"),
               "met" if t >= 10 else "NOT met"))
m = [mem[:5], mem[5:]]
print("bench: max RSS (KB) at %s -> %s events: floor %s -> %s, kmapstack "
      "child pass %s -> %s, direct pass %s -> %s"
      % (n10, n, m[0][0], m[1][0], m[0][1], m[1][1], m[0][2], m[1][2]))
print("bench: kmapstack's own memory at its end (RssAnon, KB) at %s -> %s "
      "events: child pass %s -> %s (the replaying process), direct pass "
      "%s -> %s" % (n10, n, m[0][3], m[1][3], m[0][4], m[1][4]))
PYEOF
cat "$DIR/result.md"

#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# kmapstack benchmark: a synthetic trace.dat of BENCH_EVENTS kmap_stack
# events on 2 CPUs (tests/gen_trace.py --bench), then
#   bench/floor trace.dat (tracecmd_iterate_events() and nothing else),
#   kmapstack stats trace.dat, trace-cmd report trace.dat
# all with output to /dev/null, timed by hyperfine in one run; prints the
# figures (wall and CPU time: on a loaded machine the CPU time is the
# steadier) and the ratios against the goals, also kept in
# build/bench/result.md. Run from tools/kmapstack.
set -eu
N=${BENCH_EVENTS:-3000000}
PY=${PYTHON:-/usr/bin/python3}
DIR=build/bench
DAT=$DIR/trace-$N.dat
mkdir -p "$DIR"
if [ ! -f "$DAT" ]; then
	echo "bench: generating $N events into $DAT"
	rm -rf "$DIR/gen"
	"$PY" tests/gen_trace.py --bench "$N" "$DIR/gen"
	mv "$DIR/gen/trace.dat" "$DAT"
	rm -rf "$DIR/gen"
fi
ls -l "$DAT"
FLOOR=build/bench/floor
${CC:-cc} -O2 -std=c11 $(pkg-config --cflags libtracecmd) -o "$FLOOR" \
	bench/floor.c $(pkg-config --libs libtracecmd libtraceevent)
F="$FLOOR $DAT"
KMS="./kmapstack stats --no-progress $DAT"
TC="trace-cmd report $DAT"
# memory: flat in the number of events (a tenth of the trace against all)
mem() { /usr/bin/time -f %M "$@" 2>&1 >/dev/null | tail -1; }
hyperfine -N --warmup 1 --runs 5 --export-json "$DIR/result.json" \
	-n floor "$F" -n kmapstack "$KMS" -n trace-cmd "$TC" --output=null
"$PY" - "$DIR/result.json" "$(mem $FLOOR $DAT)" "$(mem $KMS)" "$N" "$(nproc)" \
	"$(cut -d' ' -f1-3 /proc/loadavg)" > "$DIR/result.md" <<'PYEOF'
import json, sys
r = {x["command"]: x for x in json.load(open(sys.argv[1]))["results"]}
def cpu(n):
    return r[n]["user"] + r[n]["system"]
f, k, t = (r[n]["mean"] for n in ("floor", "kmapstack", "trace-cmd"))
fc, kc, tc = (cpu(n) for n in ("floor", "kmapstack", "trace-cmd"))
print("bench: %s events, %s CPUs, load average %s (hyperfine, 5 runs)"
      % (sys.argv[4], sys.argv[5], sys.argv[6]))
print("bench: wall   floor (tracecmd_iterate_events only) %.3f s, kmapstack "
      "%.3f s, trace-cmd report %.3f s" % (f, k, t))
print("bench: CPU    floor %.3f s, kmapstack %.3f s (both processes), "
      "trace-cmd report %.3f s" % (fc, kc, tc))
print("bench: kmapstack/floor %.2fx wall, %.2fx CPU (goal <= 1.3x: %s)"
      % (k / f, kc / fc, "met" if k / f <= 1.3 else "NOT met"))
print("bench: trace-cmd report/kmapstack %.1fx wall, %.1fx CPU (goal >= 10x: %s)"
      % (t / k, tc / kc, "met" if t / k >= 10 else "NOT met"))
print("bench: max RSS floor %s KB, kmapstack %s KB" % (sys.argv[2], sys.argv[3]))
PYEOF
cat "$DIR/result.md"

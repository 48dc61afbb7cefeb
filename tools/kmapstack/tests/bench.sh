#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# kmapstack benchmark: a synthetic trace.dat of BENCH_EVENTS kmap_stack
# events on 2 CPUs (tests/gen_trace.py --bench), then
#   kmapstack stats trace.dat   versus   trace-cmd report trace.dat
# both with output to /dev/null, timed by hyperfine (or by date when
# hyperfine is missing); prints the ratio. Run from tools/kmapstack.
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
KMS="./kmapstack stats --no-progress $DAT"
TC="trace-cmd report $DAT"
if command -v hyperfine >/dev/null 2>&1; then
	hyperfine --warmup 1 --runs 5 --export-json "$DIR/result.json" \
		-n kmapstack "$KMS" -n trace-cmd "$TC" --output=null
	"$PY" - "$DIR/result.json" <<'PYEOF'
import json, sys
r = {x["command"]: x for x in json.load(open(sys.argv[1]))["results"]}
k, t = r["kmapstack"]["mean"], r["trace-cmd"]["mean"]
print("bench: kmapstack %.3f s, trace-cmd report %.3f s: %.1fx faster"
      % (k, t, t / k))
PYEOF
else
	t0=$(date +%s.%N); $KMS >/dev/null; t1=$(date +%s.%N)
	$TC >/dev/null; t2=$(date +%s.%N)
	echo "$t0 $t1 $t2" | awk '{k=$2-$1; t=$3-$2;
		printf "bench: kmapstack %.3f s, trace-cmd report %.3f s: %.1fx faster\n", k, t, t/k}'
fi

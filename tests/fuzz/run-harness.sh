#!/bin/sh
# tests/fuzz/run-harness.sh NAME SECONDS: runs the libFuzzer harness
# build/fuzz/NAME (make fuzz-build) for SECONDS on its corpus and seeds;
# prints the run's last lines, and the last 40 when it found a fault.
cd "$(dirname "$0")/../.." || exit 1
n=$1 secs=$2
mkdir -p "build/fuzz/corpus-$n" "tests/fuzz/seeds/$n"
"build/fuzz/$n" -max_total_time="$secs" "build/fuzz/corpus-$n" \
	"tests/fuzz/seeds/$n" >"build/fuzz/$n.log" 2>&1
rc=$?
if [ $rc -ne 0 ]; then
	tail -n 40 "build/fuzz/$n.log"
	exit 1
fi
tail -n 2 "build/fuzz/$n.log"

#!/bin/sh
# bench/record-ptrace-threads.sh: what --ptrace costs the recorder per
# tick in a process with many threads, most of them asleep (a thread
# pool): tests/programs/rec_idlers.c, one busy thread and IDLE sleeping
# ones.  Each tick looks at every thread's state, so the recorder's CPU
# grows with the threads, not only with the samples.  Runs each build
# given, alternately, ROUNDS times, and prints the recorder's task-clock
# (perf stat) per second of recording and per sample.
#   sh bench/record-ptrace-threads.sh BUILD_DIR... (env: IDLE=500 HZ=200
#   SECONDS=3 ROUNDS=3)
set -e
[ $# -ge 1 ] || { echo "usage: $0 build-dir..." >&2; exit 2; }
idle=${IDLE:-500} hz=${HZ:-200} secs=${SECONDS:-3} rounds=${ROUNDS:-3}
command -v perf >/dev/null || { echo "no perf tool" >&2; exit 77; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cc -O2 -pthread -o "$tmp/idlers" tests/programs/rec_idlers.c
echo "--ptrace -F $hz -d $secs on 1 busy + $idle sleeping threads"
i=0
while [ "$i" -lt "$rounds" ]; do
	for b in "$@"; do
		"$tmp/idlers" "$((secs + 3))" "$idle" &
		w=$!
		sleep 1
		perf stat -x, -e task-clock -o "$tmp/stat" -- \
			"$b/sp-record" --ptrace -F "$hz" -d "$secs" \
			-o "$tmp/x.spool" -p "$w" 2>/dev/null
		kill "$w" 2>/dev/null || true
		wait "$w" 2>/dev/null || true
		ms=$(grep task-clock "$tmp/stat" | cut -d, -f1)
		n=$("$b/sp-dump" "$tmp/x.spool" | grep -c '^sample')
		printf '%-28s %8.1f ms CPU  %6.1f ms/s  %5d samples  %7.1f us/sample\n' \
			"$b" "$ms" "$(echo "$ms / $secs" | bc -l)" "$n" \
			"$(echo "$ms * 1000 / $n" | bc -l)"
	done
	i=$((i + 1))
done

#!/bin/sh
# bench/record-python.sh: what reading Python frames costs the recorder
# (issue 27: at most 1.5x the same recording with --no-python).  For each
# interpreter, sp-record attaches with -p to tests/programs/py_work.py (a
# generator summed by sum(), then a recursive fib) at 999 Hz with DWARF
# stacks, ROUNDS times with the Python reader off and on, alternately, and
# prints per mode the recorder's CPU time (perf stat task-clock: user +
# system, the workload not counted) per sample, its process_vm_readv
# calls per sample, and the spool's bytes per sample, then
#   CPU per sample, Python reader on / off: N.NNx
# from the sums over the rounds.  The machine may be shared: the ratio of
# sums over alternating rounds is steadier than any one run.
#   sh bench/record-python.sh [SECONDS [ROUNDS [PYTHON...]]]
# (optimized build in $B; default Python: pyenv 3.11 and 3.12 when
# installed, and /usr/bin/python3)
set -e
secs=${1:-4}
rounds=${2:-3}
[ $# -gt 2 ] && shift 2 || set --
B=${B:-build}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
command -v perf >/dev/null && perf stat -e task-clock -- true \
	>/dev/null 2>&1 || { echo "no perf stat" >&2; exit 77; }
work=tests/programs/py_work.py
vmr=syscalls:sys_enter_process_vm_readv
perf stat -e "$vmr" -- true >/dev/null 2>&1 || vmr=

if [ $# -eq 0 ]; then
	for v in 3.11 3.12; do
		p=$(ls -d "$HOME"/.pyenv/versions/"$v".*/bin/python"$v" \
			2>/dev/null | tail -n 1)
		[ -n "$p" ] && set -- "$@" "$p"
	done
	[ -x /usr/bin/python3 ] && set -- "$@" /usr/bin/python3
fi
[ $# -gt 0 ] || { echo "no Python to record" >&2; exit 77; }

# one PYTHON MODE: records the workload for $secs s, attached, and
# appends "cpu_ms calls samples bytes" to $tmp/MODE.
one() {
	"$1" "$work" "$((secs + 3))c" &
	wpid=$!
	sleep 0.5
	opt=
	[ "$2" = off ] && opt=--no-python
	perf stat -x, -o "$tmp/stat" -e task-clock${vmr:+,$vmr} -- \
		"$B/sp-record" $opt -p "$wpid" -d "$secs" \
		-o "$tmp/x.spool" 2>"$tmp/err" || cat "$tmp/err" >&2
	kill "$wpid" 2>/dev/null || true
	wait "$wpid" 2>/dev/null || true
	cpu=$(awk -F, '$3 == "task-clock" { print $1 }' "$tmp/stat")
	calls=$(awk -F, '$3 ~ /process_vm_readv/ { print $1 }' "$tmp/stat")
	n=$("$B/sp-dump" "$tmp/x.spool" | grep -c '^sample' || true)
	echo "$cpu ${calls:-0} $n $(wc -c <"$tmp/x.spool")" >>"$tmp/$2"
}

# row MODE: the sums of a mode's rounds, per sample
row() {
	awk -v m="$1" '{ c += $1; v += $2; n += $3; b += $4 }
	END { if (n == 0) n = 1
	      printf "  reader %-3s %7.1f us CPU/sample %6.2f process_vm_readv/sample %6.1f B/sample (%d samples)\n",
		m, c * 1000 / n, v / n, b / n, n
	      print c * 1000 / n >"'"$tmp/$1.us"'" }' "$tmp/$1"
}

for py in "$@"; do
	: >"$tmp/on"
	: >"$tmp/off"
	r=0
	while [ "$r" -lt "$rounds" ]; do
		one "$py" off
		one "$py" on
		r=$((r + 1))
	done
	echo "$py ($("$py" -c 'import sys; print(sys.version.split()[0])'))," \
		"$rounds x $secs s:"
	row off
	row on
	printf '  CPU per sample, Python reader on / off: %.2fx\n' \
		"$(echo "$(cat "$tmp/on.us") / $(cat "$tmp/off.us")" | bc -l)"
done

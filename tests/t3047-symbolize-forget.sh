#!/bin/sh
# sp-symbolize frees what it kept for a process once a forget record says
# it is gone: a stream of N short-lived processes, each with a module of
# a real file, a JIT module named by its own perf map, a frame in each, a
# thread, a sample and a forget, ends with no module, frame or perf map
# kept, and never held more than one process's (the stats line,
# SP_SYMBOLIZE_CACHE_STATS).  The forget records pass through unchanged,
# and the output is the same record for record as the stream's without
# them, which keeps all N processes' state to the end.
. "$(dirname "$0")/lib.sh"

cc_prog elf sym_elf.c -O2 -g -fPIE -pie
export SP_SYMBOLIZE_CACHE_STATS=1
N=300
maps=$TMP/maps
mkdir "$maps"

va=$(nm "$TMP/elf" | awk '$3 == "sym_work" { print $1 }')
[ -n "$va" ] || fail "no sym_work in nm"
off=$(file_offset "$TMP/elf" "$va")
[ -n "$off" ] || fail "no segment holds sym_work"

i=0
{
	printf 'spool\t1\t0\t1000\n'
	while [ $i -lt $N ]; do
		pid=$((1000 + i)) m=$((2 * i)) j=$((2 * i + 1))
		printf '5000 100 jit_fn_%d\n' $pid >"$maps/perf-$pid.map"
		printf 'module\t%d\t%d\t0x7f0000000000\t0x7f0000100000\t0x0\t0\tuser\t%s\n' \
			$m $pid "$TMP/elf"
		printf 'module\t%d\t%d\t0x4000\t0x6000\t0x0\t0\tuser\t//anon\n' \
			$j $pid
		printf 'frame\t%d\tuser\t0x%x\t%d\t0x%x\n' $m \
			$((0x7f0000000000 + off)) $m "$off"
		printf 'frame\t%d\tuser\t0x5010\t%d\t0x1010\n' $j $j
		printf 'stack\t%d\t-\t%d\nstack\t%d\t%d\t%d\n' $m $m $j $m $j
		printf 'thread\t%d\t%d\t%d\n' $i $pid $pid
		printf 'sample\t%d\t%d\t%d\t%d\n' $((i * 1000)) $pid $pid $j
		printf 'forget\t%d\n' $pid
		i=$((i + 1))
	done
} >"$TMP/in"
grep -v '^forget' "$TMP/in" >"$TMP/in.kept"

# run NAME INPUT: output in NAME.out, the two stats lines in NAME.err.
run() {
	"$SP_SYMBOLIZE" --no-cache --perf-map-dir "$maps" "$2" \
		>"$TMP/$1.out" 2>"$TMP/$1.err" ||
		fail "$1: exit $?: $(cat "$TMP/$1.err")"
	[ "$(grep -vc '^sp-symbolize: \(cache\|kept\): ' "$TMP/$1.err")" -eq 0 ] ||
		fail "$1: stderr: $(cat "$TMP/$1.err")"
}
run forget "$TMP/in"
run kept "$TMP/in.kept"

grep -q "^sp-symbolize: kept: $N processes forgotten; modules 0 at the end, at most 2; frames 0 at the end, at most 2; perf maps of 0 processes\$" \
	"$TMP/forget.err" || fail "forget: $(cat "$TMP/forget.err")"
# Without the forgets every process stays: the counts above are the
# forgets' doing.
grep -q "^sp-symbolize: kept: 0 processes forgotten; modules $((2 * N)) at the end, at most $((2 * N)); frames $((2 * N)) at the end, at most $((2 * N)); perf maps of $N processes\$" \
	"$TMP/kept.err" || fail "kept: $(cat "$TMP/kept.err")"

grep '^forget' "$TMP/forget.out" >"$TMP/forgets.out"
grep '^forget' "$TMP/in" | diff -u - "$TMP/forgets.out" ||
	fail "forget records changed"
grep -v '^forget' "$TMP/forget.out" | diff -u "$TMP/kept.out" - ||
	fail "the forgets changed other records"
# Every frame named: the file's function and each process's JIT entry.
[ "$(grep -c '^symbol.*	sym_work$' "$TMP/forget.out")" -eq $N ] ||
	fail "sym_work: $(grep '^symbol' "$TMP/forget.out" | head -3)"
[ "$(grep -c '^symbol	[0-9]*	-	0	j	0x10	-	jit_fn_[0-9]*$' \
	"$TMP/forget.out")" -eq $N ] ||
	fail "jit: $(grep '^symbol' "$TMP/forget.out" | head -4)"
grep -q '^symbol	599	-	0	j	0x10	-	jit_fn_1299$' "$TMP/forget.out" ||
	fail "the last process's JIT frame: $(tail -n 3 "$TMP/forget.out")"
exit 0

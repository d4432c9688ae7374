#!/bin/sh
# A long-running sp-symbolize keeps at most --max-open module files open:
# a stream whose frames move through 20 files, then come back to each,
# resolves every frame as an unbounded run does, while the stats line
# (SP_SYMBOLIZE_CACHE_STATS) shows files closed and opened again and
# never more open than the bound.  With --max-dwarf below one file's
# DWARF, each file drops it when another is used and opens it again for
# the second pass, with the same output.  A bad bound is a usage error.
. "$(dirname "$0")/lib.sh"

cc_prog elf sym_elf.c -O2 -g -fPIE -pie
export SP_SYMBOLIZE_CACHE_STATS=1
N=20

vaddr() { nm "$TMP/elf" | awk -v s="$1" '$3 == s { printf "%d\n", "0x" $1 }'; }
outer=$(vaddr sym_outer) work=$(vaddr sym_work)
[ -n "$outer" ] && [ -n "$work" ] || fail "no sym_outer or sym_work in nm"

# Module i maps its own copy of the program (another path, another
# inode) at 0x7f00000000000 + i MiB; the PIE's file offsets are its
# virtual addresses in its first segments, as the frames below use.
i=0
{
	printf 'spool\t1\t0\t1000\n'
	while [ $i -lt $N ]; do
		cp "$TMP/elf" "$TMP/copy$i"
		printf 'module\t%d\t42\t0x%x\t0x%x\t0x0\t%s\tuser\t%s\n' $i \
			$((0x7f0000000000 + i * 0x100000)) \
			$((0x7f0000000000 + i * 0x100000 + 0x100000)) \
			"$(stat -c %i "$TMP/copy$i")" "$TMP/copy$i"
		i=$((i + 1))
	done
	# Two passes over the modules: the second finds each file closed.
	id=0
	for sym in $outer $work; do
		i=0
		while [ $i -lt $N ]; do
			printf 'frame\t%d\tuser\t0x%x\t%d\t0x%x\n' $id \
				$((0x7f0000000000 + i * 0x100000 + sym)) $i $sym
			id=$((id + 1)) i=$((i + 1))
		done
	done
} >"$TMP/in"

# run NAME ARGS...: output in NAME.out, the stats line in NAME.stats.
run() {
	n=$1
	shift
	"$SP_SYMBOLIZE" --no-cache "$@" "$TMP/in" >"$TMP/$n.out" \
		2>"$TMP/$n.err" || fail "$n: exit $?: $(cat "$TMP/$n.err")"
	grep '^sp-symbolize: cache: ' "$TMP/$n.err" >"$TMP/$n.stats" ||
		fail "$n: no stats line: $(cat "$TMP/$n.err")"
	[ "$(grep -vc '^sp-symbolize: \(cache\|kept\): ' "$TMP/$n.err")" -eq 0 ] ||
		fail "$n: stderr: $(cat "$TMP/$n.err")"
}
run all --max-open 100
run four --max-open 4
run one --max-open 1
run nodwarf --max-open 100 --max-dwarf 1

grep -q "$N files opened.* 0 files closed, at most $N open" "$TMP/all.stats" ||
	fail "unbounded: $(cat "$TMP/all.stats")"
# LRU: every file of the second pass was closed by the first one's end.
grep -q "$((2 * N)) files opened.* $((2 * N - 4)) files closed, at most 4 open" \
	"$TMP/four.stats" || fail "--max-open 4: $(cat "$TMP/four.stats")"
grep -q "at most 1 open" "$TMP/one.stats" ||
	fail "--max-open 1: $(cat "$TMP/one.stats")"
# Each use of another file dropped the last one's DWARF: 2N - 1 times.
grep -q "$N files opened.* 0 files closed, at most $N open, DWARF dropped $((2 * N - 1)) times" \
	"$TMP/nodwarf.stats" || fail "--max-dwarf 1: $(cat "$TMP/nodwarf.stats")"
grep -q "at most 4 open, DWARF dropped 0 times" "$TMP/four.stats" ||
	fail "--max-open 4 dropped DWARF: $(cat "$TMP/four.stats")"
for n in four one nodwarf; do
	cmp -s "$TMP/all.out" "$TMP/$n.out" ||
		fail "$n differs: $(diff "$TMP/all.out" "$TMP/$n.out" | head)"
done
[ "$(grep -c '^symbol.*	sym_outer$' "$TMP/all.out")" -eq $N ] ||
	fail "sym_outer: $(grep -c '^symbol' "$TMP/all.out") symbols"
[ "$(grep -c '^symbol.*	sym_work$' "$TMP/all.out")" -eq $N ] ||
	fail "sym_work: $(grep '^symbol' "$TMP/all.out" | head)"

for bad in 0 -3 x 99999999999; do
	"$SP_SYMBOLIZE" --max-open "$bad" "$TMP/in" >/dev/null 2>"$TMP/bad.err"
	rc=$?
	[ $rc -eq 2 ] || fail "--max-open $bad: exit $rc"
	grep -q "^sp-symbolize: bad count '$bad'" "$TMP/bad.err" ||
		fail "--max-open $bad: $(cat "$TMP/bad.err")"
done
for bad in 0 -1 x 1T; do
	"$SP_SYMBOLIZE" --max-dwarf "$bad" "$TMP/in" >/dev/null 2>"$TMP/bad.err"
	rc=$?
	[ $rc -eq 2 ] || fail "--max-dwarf $bad: exit $rc"
	grep -q "^sp-symbolize: bad size '$bad'" "$TMP/bad.err" ||
		fail "--max-dwarf $bad: $(cat "$TMP/bad.err")"
done
exit 0

#!/bin/sh
# Counts that meet a period do not wrap (issue 39 item 8): a run record of
# 10^14 samples at a 10 ms period is 10^21 ns, more than an int64 holds,
# so pprof's cpu/nanoseconds value stops at INT64_MAX instead of wrapping
# to 7866279631452241920; a count past INT64_MAX stops there too, and a
# count that fits keeps its exact value.  The folded output keeps the
# exact count, and speedscope's duration is not wrapped either.
. "$(dirname "$0")/lib.sh"

# stream COUNT: a record stream with one run of COUNT samples of a
# two-frame stack, and one plain sample, at 10 ms (100 Hz).
stream() {
	printf 'spool\t1\t1700000000000000\t10000\n'
	printf 'module\t0\t1\t0x400000\t0x480000\t0x0\t1\tuser\t/usr/bin/p\n'
	printf 'frame\t0\tuser\t0x400100\t0\t0x100\n'
	printf 'frame\t1\tuser\t0x400200\t0\t0x200\n'
	printf 'stack\t0\t-\t0\nstack\t1\t0\t1\nthread\t0\t100\t100\n'
	printf 'run\t1000\t2000\t%s\t100\t100\t1\n' "$1"
	printf 'run\t3000\t3000\t1\t100\t100\t0\n'
}
max=9223372036854775807

# values COUNT: the pprof sample values for COUNT, sorted.
values() {
	stream "$1" >"$TMP/in"
	"$SP_FOLD" --format pprof "$TMP/in" >"$TMP/p.pb.gz" 2>"$TMP/err" ||
		fail "sp-fold --format pprof, count $1: $(cat "$TMP/err")"
	python3 "$PROGRAMS/pprof_names.py" --values "$TMP/p.pb.gz" | sort
}

got=$(values 100000000000000 | tr '\n' ' ')
[ "$got" = "1 10000000 100000000000000 $max " ] ||
	fail "10^14 samples at 10 ms: pprof values '$got'"
got=$(values 9300000000000000000 | tr '\n' ' ')
[ "$got" = "1 10000000 $max $max " ] ||
	fail "a count past INT64_MAX: pprof values '$got'"
got=$(values 900000000000 | tr '\n' ' ')
[ "$got" = "1 10000000 900000000000 9000000000000000000 " ] ||
	fail "a product that fits: pprof values '$got'"

stream 100000000000000 >"$TMP/in"
"$SP_FOLD" "$TMP/in" >"$TMP/folded" || fail "sp-fold, folded"
grep -q ' 100000000000000$' "$TMP/folded" ||
	fail "the folded count is not exact: $(cat "$TMP/folded")"
"$SP_FOLD" --format speedscope "$TMP/in" >"$TMP/ss.json" 2>"$TMP/err" ||
	grep -q 'run record' "$TMP/err" ||
	fail "sp-fold --format speedscope: $(cat "$TMP/err")"
exit 0

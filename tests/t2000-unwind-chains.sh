#!/bin/sh
# t2000-unwind-chains.sh: sp-record -g dwarf on unw_chains (threads in
# qsort with a comparator, a 121-deep recursion, a shared library, a
# signal handler), built -O2 without and with frame pointers: at least 99%
# of the samples must hold their thread's expected call chain, in order,
# from main or the thread start function, with no truncated marker.
. "$(dirname "$0")/lib.sh"
need_perf

# syms PROG LIB: the functions of both, for unw_judge.awk.
syms() {
	for f in "$@"; do
		delta=$(readelf -lW "$f" | awk '$1 == "LOAD" && / E / {
			printf "%x\n", strtonum_(substr($3, 3)) - strtonum_(substr($2, 3)) }
			function strtonum_(s,  i, v) { v = 0
				for (i = 1; i <= length(s); i++)
					v = v * 16 + index("0123456789abcdef", substr(s, i, 1)) - 1
				return v }' | head -n 1)
		nm -S --defined-only "$f" | awk -v p="$f" -v d="$delta" \
			'NF == 4 && ($3 == "t" || $3 == "T") {
				printf "%s\t%s\t%s\t%s\t%s\n", p, d, $1, $2, $4 }'
	done
}

for fp in -fomit-frame-pointer -fno-omit-frame-pointer; do
	cc -O2 -g $fp -fPIC -shared -o "$TMP/libunw_lib.so" \
		"$PROGRAMS/unw_lib.c" || fail "cannot build unw_lib.c"
	cc_prog unw_chains unw_chains.c -O2 -g $fp -pthread -L"$TMP" \
		-lunw_lib -Wl,-rpath,"$TMP"
	syms "$TMP/unw_chains" "$TMP/libunw_lib.so" >"$TMP/syms"
	"$SP_RECORD" -g dwarf -d 3 -o "$TMP/out.spool" -- \
		"$TMP/unw_chains" 1.5 2>"$TMP/err" ||
		fail "sp-record $fp exited $?: $(cat "$TMP/err")"
	"$SP_DUMP" "$TMP/out.spool" >"$TMP/dump" || fail "sp-dump exited $?"
	echo "-- $fp"
	awk -f "$PROGRAMS/unw_judge.awk" "$TMP/syms" "$TMP/dump" ||
		fail "$fp: too few samples unwound through their chain"
done
exit 0

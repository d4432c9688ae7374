#!/bin/sh
# t2000-unwind-chains.sh: sp-record -g dwarf on unw_chains (threads in
# qsort with a comparator, a 121-deep recursion, a shared library, a
# signal handler), built -O2 without and with frame pointers: at least 99%
# of the samples must hold their thread's expected call chain, in order,
# from main or the thread start function, with no truncated marker.
. "$(dirname "$0")/lib.sh"
need_perf

for fp in -fomit-frame-pointer -fno-omit-frame-pointer; do
	cc -O2 -g $fp -fPIC -shared -o "$TMP/libunw_lib.so" \
		"$PROGRAMS/unw_lib.c" || fail "cannot build unw_lib.c"
	cc_prog unw_chains unw_chains.c -O2 -g $fp -pthread -L"$TMP" \
		-lunw_lib -Wl,-rpath,"$TMP"
	unw_syms "$TMP/unw_chains" "$TMP/libunw_lib.so" >"$TMP/syms"
	"$SP_RECORD" -g dwarf -o "$TMP/out.spool" -- \
		"$TMP/unw_chains" 0.4c 2>"$TMP/err" ||
		fail "sp-record $fp exited $?: $(cat "$TMP/err")"
	"$SP_DUMP" "$TMP/out.spool" >"$TMP/dump" || fail "sp-dump exited $?"
	echo "-- $fp"
	awk -f "$PROGRAMS/unw_judge.awk" "$TMP/syms" "$TMP/dump" ||
		fail "$fp: too few samples unwound through their chain"
done
exit 0

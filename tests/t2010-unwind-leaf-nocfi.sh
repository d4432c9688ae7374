#!/bin/sh
# t2010-unwind-leaf-nocfi.sh: a leaf function without CFI (a library's
# _init, which ld.so calls through a pointer; hand-written assembly) is
# stepped by the return address its stack copy holds, found right after
# a call that may have called it, not cut at the leaf.  unw_nocfi's
# leaves, one called through a pointer, one directly and one that keeps
# a frame pointer's frame (left to the frame-pointer step, which restores
# rbp for a caller built with frame pointers), must each reach _start
# through their callers in at least 99% of their samples, without and
# with frame pointers, and no stack may name another caller; so must a
# leaf called by a function without CFI either (as _init calls).  A
# leaf reached by a tail jump holds its caller's return address where
# a call of another function left it: its stacks are cut, never shown
# without that caller (as a frame-pointer step or a return address
# found above it would show them).
. "$(dirname "$0")/lib.sh"
need_perf

main='unw_nocfi;_start;__libc_start_main;__libc_start_call_main;main'
for fp in -fomit-frame-pointer -fno-omit-frame-pointer; do
	cc_prog unw_nocfi unw_nocfi.c -O2 -g $fp
	"$SP_RECORD" -g dwarf -o "$TMP/x.spool" -- "$TMP/unw_nocfi" 0.5c \
		2>"$TMP/err" || fail "sp-record exited $?: $(cat "$TMP/err")"
	"$SP_DUMP" "$TMP/x.spool" >"$TMP/dump" || fail "sp-dump exited $?"
	pipeline "$SP_SYMBOLIZE" \| "$SP_FOLD" <"$TMP/dump" >"$TMP/folded" ||
		fail "sp-symbolize | sp-fold failed"
	awk -v main="$main" -v fp="$fp" '/;spin_tail [0-9]+$/ {
			tail += $NF; s = $0; sub(/ [0-9]+$/, "", s)
			if (s != main ";tailed;spin_tail" &&
			    s != "unw_nocfi;<stack truncated>;spin_tail") {
				print "wrong: " $0; wrong += $NF }
			next }
		/;spin_[a-z]* [0-9]+$/ {
			n += $NF; s = $0; sub(/ [0-9]+$/, "", s)
			if (s == main ";via_pointer;spin_indirect" ||
			    s == main ";via_pointer;spin_outer;spin_inner" ||
			    s == main ";via_pointer;spin_outer" ||
			    s == main ";direct;spin_direct" ||
			    s == main ";framed;spin_fp")
				ok += $NF
			else if (s !~ /^unw_nocfi;<stack truncated>;spin_/) {
				print "wrong: " $0; wrong += $NF } }
		END { printf "%s: %d samples in the leaves, %d complete, " \
			"%d wrong; %d in the tail-called leaf\n", fp, n, ok,
			wrong, tail
		      exit n < 250 || tail < 50 || wrong > 0 ||
			ok * 100 < n * 99 }' \
		"$TMP/folded" >&2 ||
		fail "$fp: leaves without CFI are not stepped right"
	grep '^stats' "$TMP/dump" | tr '\t' '\n' |
		grep -q '^unwind.leaf_return_pcs=' ||
		fail "$fp: no unwind.leaf_return_pcs in the stats"
done
exit 0

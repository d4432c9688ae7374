#!/bin/sh
# t2006-unwind-no-garbage.sh: where neither CFI nor the frame pointer can
# be trusted (unw_baddata's leaf has no CFI and its frame pointer points
# at data holding impossible return addresses), sp-record must end the
# stack with the truncated marker instead of writing those addresses as
# frames: every user frame of the spool lies in a module of the process.
. "$(dirname "$0")/lib.sh"
need_perf

cc_prog unw_baddata unw_baddata.c -O2 -g -fno-omit-frame-pointer
"$SP_RECORD" -g dwarf -o "$TMP/x.spool" -- "$TMP/unw_baddata" 1c \
	2>"$TMP/err" || fail "sp-record exited $?: $(cat "$TMP/err")"
grep -q 'return_address_not_code' "$TMP/err" ||
	fail "no step was refused as not code: $(cat "$TMP/err")"
"$SP_DUMP" "$TMP/x.spool" >"$TMP/dump" || fail "sp-dump exited $?"
# A user frame without module must resolve in some process (pframe).
awk -F'\t' '
	$1 == "frame" && $3 == "user" && $5 == "-" { loose[$2] = $4 }
	$1 == "pframe" && $4 != "-" { delete loose[$2] }
	END { for (f in loose) { print "frame " f " at " loose[f]; bad++ }
	      exit bad > 0 }' "$TMP/dump" >"$TMP/loose" ||
	fail "frames outside every executable mapping: $(cat "$TMP/loose")"
pipeline "$SP_SYMBOLIZE" \| "$SP_FOLD" <"$TMP/dump" >"$TMP/folded" ||
	fail "sp-symbolize | sp-fold failed"
# Every sample in spin_nocfi: the marker, then the leaf, or then its true
# caller, found by the return address the leaf's frame holds (t2010)
# before its frame pointer stops the walk.
awk '/spin_nocfi/ { n += $NF; s = $0; sub(/ [0-9]+$/, "", s)
		if (s != "unw_baddata;<stack truncated>;spin_nocfi" &&
		    s != "unw_baddata;<stack truncated>;run;spin_nocfi") {
			print; bad += $NF } }
	END { printf "%d samples in spin_nocfi, %d wrong\n", n, bad
	      exit n < 200 || bad > n / 100 }' "$TMP/folded" ||
	fail "spin_nocfi stacks are not cut at the leaf"
exit 0

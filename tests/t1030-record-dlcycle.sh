#!/bin/sh
# t1030-record-dlcycle.sh: six libraries, each loaded with dlopen, run for
# 10 ms of CPU time and closed, in turn, all most likely at one address
# (issue 24).  Each must get its share of the samples (a sixth each, by
# CPU time), in the default DWARF mode, with -g fp and with --ptrace: a
# library that comes back is a new module, and every sample resolves
# through the mapping live at its time.  The old module table handed the
# first load's module id back to every later load of a library, wrote no
# module record, and resolved the address to the newest id: about 98% of
# the samples went to the sixth library.
. "$(dirname "$0")/lib.sh"
need_perf

cc_prog rec_dlcycle rec_dlcycle.c -O2 -ldl
libs=""
for n in 1 2 3 4 5 6; do
	cc_prog libspin$n.so rec_dlcycle_lib.c -DVERSION=$n -O0 \
		-fno-omit-frame-pointer -shared -fPIC
	libs="$libs $TMP/libspin$n.so"
done

# shares MODE...: records 1.2 s of CPU time of the loop and checks each
# library's share of the samples in its spin_vN.
shares() {
	# shellcheck disable=SC2086
	"$SP_RECORD" "$@" -o "$TMP/x.spool" -- "$TMP/rec_dlcycle" 1.2 0.01 \
		$libs 2>"$TMP/err" ||
		fail "sp-record $* exited $?: $(cat "$TMP/err")"
	"$SP_DUMP" "$TMP/x.spool" >"$TMP/dump" ||
		fail "sp-dump rejected the spool of $*"
	# The case under test: two libraries at one address.
	awk -F'\t' '$1 == "module" && $9 ~ /libspin[1-6][.]so$/ {
		if (seen[$4] && seen[$4] != $9) same = 1; seen[$4] = $9 }
		END { exit !same }' "$TMP/dump" ||
		skip "the libraries never shared an address: nothing to test"
	pipeline "$SP_SYMBOLIZE" --no-cache "$TMP/dump" \| "$SP_FOLD" \
		>"$TMP/folded" ||
		fail "sp-symbolize | sp-fold failed on the spool of $*"
	awk -v mode="${*:-dwarf}" '
	match($0, /;spin_v[1-6](;|[ ])/) {
		v = substr($0, RSTART + 7, 1); n[v] += $NF; total += $NF }
	END {
		if (total < 600) {
			printf "only %d samples in spin_vN (%s)\n", total, mode
			exit 1
		}
		for (v = 1; v <= 6; v++) {
			pct = 100 * n[v] / total
			printf "%s spin_v%d: %d of %d (%.1f%%)\n", mode, v, n[v],
			    total, pct
			if (pct < 8 || pct > 30)
				bad = 1
		}
		exit bad
	}' "$TMP/folded" >"$TMP/shares"
	rc=$?
	cat "$TMP/shares" >&2
	[ $rc -eq 0 ] || fail "a library's share is out of 8%..30% ($*)"
}

shares
shares -g fp
if ! "$SP_RECORD" --ptrace -d 0.1 -o "$TMP/probe.spool" -- true \
	2>"$TMP/err"; then
	grep -qi 'ptrace.*\(not permitted\|denied\)' "$TMP/err" ||
		fail "sp-record --ptrace failed: $(cat "$TMP/err")"
	[ "${CI:-}" = true ] && fail "ptrace refused under CI=true"
	skip "ptrace refused: $(head -n 1 "$TMP/err")"
fi
shares --ptrace
exit 0

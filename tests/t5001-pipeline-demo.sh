#!/bin/sh
# The whole pipeline on the demo workload: sp-record | sp-dump |
# sp-symbolize | sp-fold finds the demo's own call chains, by name, with
# the shares a profile of it must show.
. "$(dirname "$0")/lib.sh"
need_perf

cc_prog demo demo.c -O2 -g -pthread
"$SP_RECORD" -F 499 -g dwarf -o "$TMP/demo.spool" -- "$TMP/demo" 1.5c \
	>"$TMP/rec.out" 2>"$TMP/rec.err" || fail "sp-record: $(cat "$TMP/rec.err")"
grep -q 'demo: done' "$TMP/rec.out" || fail "the demo did not run to its end"
"$SP_DUMP" "$TMP/demo.spool" >"$TMP/records" || fail "sp-dump failed"
"$SP_SYMBOLIZE" <"$TMP/records" >"$TMP/symbols" || fail "sp-symbolize failed"
"$SP_FOLD" <"$TMP/symbols" >"$TMP/folded" || fail "sp-fold failed"

# share PATTERN: percent of samples whose folded stack matches PATTERN.
share() {
	awk -v pat="$1" '{ n = $NF; total += n; if ($0 ~ pat) hit += n }
		END { if (total) printf "%d\n", 100 * hit / total; else print 0 }' \
		"$TMP/folded"
}
total=$(awk '{ t += $NF } END { print t + 0 }' "$TMP/folded")
# Two busy threads for 1.5 s of CPU each at 499 Hz: about 1500 samples,
# however loaded the machine.
[ "$total" -gt 200 ] || fail "only $total samples"
[ "$(share '^demo;')" -ge 95 ] || fail "stacks do not start with the comm"
[ "$(share ';worker;')" -ge 90 ] || fail "only $(share ';worker;')% reach worker"
# GCC may clone functions (checksum_blocks.constprop.0) and turns the
# qsort at the end of sort_records into a tail call.
[ "$(share ';worker;checksum_blocks[^;]*;mix')" -ge 20 ] ||
	fail "checksum_blocks;mix share $(share ';worker;checksum_blocks[^;]*;mix')%"
[ "$(share ';worker;(sort_records[^;]*;)?qsort[^;]*;.*compare_records')" -ge 2 ] ||
	fail "the qsort comparator is not under worker;qsort"
[ "$(share ';walk_tree;walk_tree;walk_tree')" -ge 5 ] ||
	fail "recursion share $(share ';walk_tree;walk_tree;walk_tree')%"
exit 0

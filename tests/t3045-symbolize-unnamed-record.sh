#!/bin/sh
# A program recorded while it spins in a stripped shared library:
# sp-symbolize names no frame of the library's hidden function, and its
# summary says so for the library, pointing to --debug-dir.
. "$(dirname "$0")/lib.sh"
need_perf
command -v strip >/dev/null || skip "no strip"

cc_prog libunnamed.so sym_unnamed_lib.c -O1 -fPIC -shared \
	-fno-omit-frame-pointer
strip "$TMP/libunnamed.so" || fail "strip failed"
cc_prog sym_unnamed sym_unnamed.c -O1 -fno-omit-frame-pointer \
	-L"$TMP" -lunnamed -Wl,-rpath,"$TMP"
# One second of CPU time, however loaded the machine.
"$SP_RECORD" -o "$TMP/x.spool" -- "$TMP/sym_unnamed" 1 \
	>"$TMP/rec.out" 2>"$TMP/rec.err" ||
	fail "sp-record: exit $?: $(cat "$TMP/rec.err")"
grep -q 'sym_unnamed: done' "$TMP/rec.out" || fail "the program did not finish"
pipeline "$SP_DUMP" "$TMP/x.spool" \| "$SP_SYMBOLIZE" --no-cache \
	>"$TMP/sym" 2>"$TMP/err" || fail "sp-dump | sp-symbolize: $(cat "$TMP/err")"
n=$(awk -F'\t' '$1 == "symbol" && $5 ~ /u/ && $8 ~ /^libunnamed\.so\+0x/' \
	"$TMP/sym" | wc -l)
[ "$n" -ge 1 ] || fail "no unnamed frame in the library"
grep -q "^sp-symbolize: '[^']*/libunnamed\.so': $n frames\{0,1\} without names: stripped, and no debug file found; give --debug-dir DIR" \
	"$TMP/err" || fail "no hint for libunnamed.so ($n frames): $(cat "$TMP/err")"
[ "$(grep -c "libunnamed\.so'" "$TMP/err")" -eq 1 ] ||
	fail "not once: $(cat "$TMP/err")"
exit 0

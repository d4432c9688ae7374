#!/bin/sh
# Record a program, then sp-dump | sp-symbolize: its own function names
# come back with their file:line, the inlined one as an inlined frame.
. "$(dirname "$0")/lib.sh"
need_perf

T='	'
cc_prog sym_spin sym_spin.c -O2 -g -fno-omit-frame-pointer
"$SP_RECORD" -d 2 -o "$TMP/x.spool" "$TMP/sym_spin" 2>"$TMP/rec.err" ||
	fail "sp-record: exit $?: $(cat "$TMP/rec.err")"
"$SP_DUMP" "$TMP/x.spool" >"$TMP/x.txt" || fail "sp-dump: exit $?"
"$SP_SYMBOLIZE" "$TMP/x.txt" >"$TMP/x.sym" 2>"$TMP/err" ||
	fail "sp-symbolize: exit $?: $(cat "$TMP/err")"
grep -Ev '^(symbol|funcline)' "$TMP/x.sym" | diff -u "$TMP/x.txt" - ||
	fail "records changed"
grep -q "^symbol${T}[0-9]*${T}-${T}0${T}-${T}0x[0-9a-f]*${T}[^$T]*/sym_spin.c:[0-9]*${T}sym_spin_hot\$" \
	"$TMP/x.sym" || fail "no sym_spin_hot: $(grep '^symbol' "$TMP/x.sym" | head)"
# Each DWARF symbol's function start line follows it (pprof's
# Function.start_line): sym_spin_hot begins where its name is defined.
want=$(grep -n '^sym_spin_hot(' "$PROGRAMS/sym_spin.c" | cut -d: -f1)
awk -F '\t' -v want="$want" '
	$1 == "symbol" { last = ($NF == "sym_spin_hot") ? $2 "\t" $3 "\t" $4 : "" }
	$1 == "funcline" && last != "" && $2 "\t" $3 "\t" $4 == last {
		got = $5; if (got == want) ok = 1 }
	END { exit !ok }' "$TMP/x.sym" ||
	fail "no funcline $want after sym_spin_hot: $(grep -A1 sym_spin_hot "$TMP/x.sym" | head -4)"
# The leaf sets up no frame, so frame pointers skip sym_spin_caller.
grep -q "${T}[^$T]*/sym_spin.c:[0-9]*${T}main\$" "$TMP/x.sym" ||
	fail "no main (frame pointers)"
line=$(grep -n 'sym_spin_inlined body' "$PROGRAMS/sym_spin.c" | cut -d: -f1)
grep -q "^symbol${T}[0-9]*${T}-${T}1${T}i${T}-${T}[^$T]*/sym_spin.c:$line${T}sym_spin_inlined\$" \
	"$TMP/x.sym" || fail "no inlined frame for sym_spin_inlined (its body is
	about half of the loop: thousands of samples land there)"
# Piped straight through, as a live pipeline would be.
pipeline "$SP_DUMP" "$TMP/x.spool" \| "$SP_SYMBOLIZE" >"$TMP/x.rec" ||
	fail "pipeline"
grep -q "${T}sym_spin_hot\$" "$TMP/x.rec" || fail "no sym_spin_hot"
exit 0

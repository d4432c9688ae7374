#!/bin/sh
# sp-symbolize fallbacks and errors: missing files warn once and keep
# address names, kernel frames use --kallsyms or fall back for another
# kernel, malformed input stops with "line N", bad usage exits 2.
. "$(dirname "$0")/lib.sh"

T='	'
cat >"$TMP/in" <<EOF
spool${T}1${T}0${T}1000
module${T}0${T}7${T}0x1000${T}0x2000${T}0x0${T}5${T}user${T}/no/such/libfoo.so
module${T}1${T}8${T}0x1000${T}0x2000${T}0x0${T}5${T}user${T}/no/such/libfoo.so
module${T}2${T}8${T}0x3000${T}0x4000${T}0x0${T}6${T}user${T}/no/such/python3.11
frame${T}0${T}user${T}0x1a2b${T}0${T}0xa2b
frame${T}1${T}user${T}0x1a2b${T}1${T}0xa2b
frame${T}2${T}user${T}0x3010${T}2${T}0x10
frame${T}3${T}user${T}0x0${T}-${T}-
frame${T}4${T}truncated${T}0x0${T}-${T}-
frame${T}5${T}kernel${T}0xffffffff81100014${T}-${T}-
frame${T}6${T}kernel${T}0xffffffffc0010010${T}-${T}-
EOF
printf 'ffffffff81100000 T vfs_read\nffffffffc0010000 t wg_packet_receive\t[wireguard]\n' \
	>"$TMP/kallsyms"
cat >"$TMP/want" <<EOF
symbol${T}0${T}-${T}0${T}u${T}-${T}-${T}libfoo.so+0xa2b
symbol${T}1${T}-${T}0${T}u${T}-${T}-${T}libfoo.so+0xa2b
symbol${T}2${T}-${T}0${T}phu${T}-${T}-${T}python3.11+0x10
symbol${T}3${T}-${T}0${T}u${T}-${T}-${T}<0x0>
symbol${T}4${T}-${T}0${T}t${T}-${T}-${T}<stack truncated>
symbol${T}5${T}-${T}0${T}k${T}0x14${T}-${T}vfs_read+0x14
symbol${T}6${T}-${T}0${T}k${T}0x10${T}-${T}wg_packet_receive+0x10 [wireguard]
EOF
"$SP_SYMBOLIZE" --kallsyms "$TMP/kallsyms" <"$TMP/in" >"$TMP/out" \
	2>"$TMP/err" || fail "exit $?"
grep '^symbol' "$TMP/out" | diff -u "$TMP/want" - || fail "symbols differ"
[ "$(grep -c "libfoo.so': No such file" "$TMP/err")" = 1 ] ||
	fail "want one warning for libfoo.so: $(cat "$TMP/err")"
[ "$(wc -l <"$TMP/err")" = 2 ] || fail "stderr: $(cat "$TMP/err")"

# A recording from another kernel: host kallsyms are not used.
{ head -n 1 "$TMP/in"; printf 'host\trelease=0.0.0-elsewhere\tbootid=x\n'
	tail -n +2 "$TMP/in"; } |
	"$SP_SYMBOLIZE" >"$TMP/out" 2>"$TMP/err" || fail "exit $?"
grep -q "^symbol${T}5${T}-${T}0${T}ku${T}-${T}-${T}\[kernel\]+0xffffffff81100014\$" \
	"$TMP/out" || fail "kernel frame of another kernel: $(grep '^symbol.5' "$TMP/out")"
grep -q 'another kernel (0.0.0-elsewhere)' "$TMP/err" ||
	fail "no warning about the kernel: $(cat "$TMP/err")"
# ... unless --kallsyms gives its symbols.
{ head -n 1 "$TMP/in"; printf 'host\trelease=0.0.0-elsewhere\n'
	tail -n +2 "$TMP/in"; } >"$TMP/in.other"
"$SP_SYMBOLIZE" --kallsyms "$TMP/kallsyms" "$TMP/in.other" >"$TMP/out" \
	2>/dev/null || fail "--kallsyms exited $?"
grep -q "${T}vfs_read+0x14\$" "$TMP/out" || fail "--kallsyms ignored"

# Malformed input: what came before is passed through, then exit 1.
head -n 5 "$TMP/in" >"$TMP/in.5"
{ cat "$TMP/in.5"; printf 'frame\t9\tuser\t0x1\t-\t-\n'; } >"$TMP/bad"
"$SP_SYMBOLIZE" "$TMP/bad" >"$TMP/out" 2>"$TMP/err"
rc=$?
[ $rc = 1 ] || fail "malformed input: exit $rc"
grep -Ev '^(symbol|funcline)' "$TMP/out" | diff -u "$TMP/in.5" - || fail "output before"
grep -q "^sp-symbolize: '$TMP/bad': line 6: frame id 9 did not match expected 1\$" \
	"$TMP/err" || fail "message: $(cat "$TMP/err")"
printf 'spool\t1\t0\t0\nframe\t0\tuser\t0x1\t-\n' |
	"$SP_SYMBOLIZE" >/dev/null 2>"$TMP/err"
[ $? = 1 ] || fail "short frame: exit status"
grep -q '^sp-symbolize: line 2: frame record with 5 fields, not 6$' "$TMP/err" ||
	fail "stdin message: $(cat "$TMP/err")"

# Usage errors exit 2; an unreadable --kallsyms file exits 1.
"$SP_SYMBOLIZE" --bogus </dev/null 2>"$TMP/err"
[ $? = 2 ] || fail "bad option: exit status"
grep -q '^usage: sp-symbolize' "$TMP/err" || fail "no usage"
"$SP_SYMBOLIZE" a b </dev/null 2>/dev/null
[ $? = 2 ] || fail "two operands: exit status"
"$SP_SYMBOLIZE" --kallsyms /no/such/kallsyms </dev/null 2>"$TMP/err"
[ $? = 1 ] || fail "missing kallsyms: exit status"
grep -q "^sp-symbolize: '/no/such/kallsyms': No such file" "$TMP/err" ||
	fail "kallsyms message: $(cat "$TMP/err")"
printf 'ffffffff81000000 T a\nnot kallsyms\n' >"$TMP/badks"
"$SP_SYMBOLIZE" --kallsyms "$TMP/badks" </dev/null 2>"$TMP/err"
[ $? = 1 ] || fail "malformed kallsyms: exit status"
grep -q "^sp-symbolize: '$TMP/badks': line 2: not a kallsyms line\$" \
	"$TMP/err" || fail "kallsyms line: $(cat "$TMP/err")"
: >"$TMP/emptyks"
"$SP_SYMBOLIZE" --kallsyms "$TMP/emptyks" </dev/null 2>"$TMP/err"
[ $? = 0 ] || fail "empty kallsyms: exit status"
grep -q "^sp-symbolize: '$TMP/emptyks': no kernel symbols" "$TMP/err" ||
	fail "empty kallsyms: no warning: $(cat "$TMP/err")"
"$SP_SYMBOLIZE" /no/such/input 2>"$TMP/err"
[ $? = 1 ] || fail "missing input: exit status"
exit 0

#!/bin/sh
# A record stream line longer than any record (issue 24 item 3): sp-
# symbolize writes every record before it, then stops with an error that
# names the line, exit 1.  The old code read the line whole (300 MB
# under a memory limit: getline's ENOMEM taken for the end of input,
# exit 0 with half the records and no word).
. "$(dirname "$0")/lib.sh"

T='	'
{
	printf 'spool\t1\t0\t1000\n'
	printf 'frame\t0\tuser\t0x1000\t-\t-\n'
	printf 'frame\t1\tuser\t0x2000\t-\t-\n'
	head -c 68000000 /dev/zero | tr '\0' x
	printf '\nframe\t2\tuser\t0x3000\t-\t-\n'
} >"$TMP/in"
"$SP_SYMBOLIZE" --no-cache "$TMP/in" >"$TMP/out" 2>"$TMP/err"
rc=$?
[ $rc -eq 1 ] || fail "exit $rc, want 1: $(cat "$TMP/err")"
one_error sp-symbolize "$TMP/err"
grep -q "^sp-symbolize: '$TMP/in': line 4: longer than 64 MiB, not a record" \
	"$TMP/err" || fail "error: $(cat "$TMP/err")"
[ "$(grep -c '^frame' "$TMP/out")" -eq 2 ] ||
	fail "not the two frames before it: $(cat "$TMP/out")"
grep -q "^symbol${T}1${T}" "$TMP/out" || fail "frame 1 has no symbol"
grep -q "^frame${T}2" "$TMP/out" && fail "a frame after the long line"

# The same from standard input.
"$SP_SYMBOLIZE" --no-cache <"$TMP/in" >"$TMP/out2" 2>"$TMP/err2"
[ $? -eq 1 ] || fail "stdin: not exit 1"
grep -q "^sp-symbolize: line 4: longer than 64 MiB" "$TMP/err2" ||
	fail "stdin: $(cat "$TMP/err2")"
cmp -s "$TMP/out" "$TMP/out2" || fail "stdin: other output"
exit 0

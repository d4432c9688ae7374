#!/bin/sh
# What sp-fold makes of its input (issue 26): a record stream whose
# frames have no symbol records came through sp-dump without
# sp-symbolize, and sp-fold says so once, with the pipe to type (a
# symbolized stream, or one without code frames, draws no such word).
# Folded stacks and perf script text are read without --from, as
# flamegraph.pl and difffolded.pl users type them (--diff too), and a
# tool that reads record streams names the tool that reads them.
. "$(dirname "$0")/lib.sh"
{
	printf 'spool\t1\t0\t1000\n'
	printf 'module\t0\t7\t0x1000\t0x2000\t0x0\t0\tuser\t/bin/app\n'
	printf 'frame\t0\tuser\t0x1010\t0\t0x10\nframe\t1\tuser\t0x1020\t0\t0x20\n'
	printf 'stack\t0\t-\t0\nstack\t1\t0\t1\ncomm\t5\t7\t7\texec\tapp\n'
	printf 'sample\t10\t7\t7\t1\nsample\t20\t7\t7\t1\n'
} >"$TMP/raw.rec"
{
	head -n 3 "$TMP/raw.rec"
	printf 'symbol\t0\t-\t0\t-\t0x0\t-\tmain\n'
	sed -n 4p "$TMP/raw.rec"
	printf 'symbol\t1\t-\t0\t-\t0x0\t-\twork\n'
	tail -n +5 "$TMP/raw.rec"
} >"$TMP/sym.rec"

"$SP_FOLD" "$TMP/raw.rec" >"$TMP/out" 2>"$TMP/err" || fail "raw: exit $?"
grep -q '^app;\[app\];\[app\] 2$' "$TMP/out" || fail "raw: $(cat "$TMP/out")"
one_error sp-fold "$TMP/err"
grep -qx "sp-fold: '$TMP/raw.rec': frames are not symbolized: put sp-symbolize before sp-fold (sp-dump FILE | sp-symbolize | sp-fold)" \
	"$TMP/err" || fail "raw: $(cat "$TMP/err")"
for f in top svg pprof; do
	"$SP_FOLD" --format $f -o "$TMP/x" "$TMP/raw.rec" 2>"$TMP/err" ||
		fail "raw --format $f: exit $?"
	[ "$(grep -c 'not symbolized' "$TMP/err")" -eq 1 ] ||
		fail "raw --format $f: $(cat "$TMP/err")"
done

"$SP_FOLD" "$TMP/sym.rec" >"$TMP/out" 2>"$TMP/err" || fail "sym: exit $?"
grep -q '^app;main;work 2$' "$TMP/out" || fail "sym: $(cat "$TMP/out")"
[ -s "$TMP/err" ] && fail "a symbolized stream warned: $(cat "$TMP/err")"
printf 'spool\t1\t0\t1000\nframe\t0\ttruncated\t0x0\t-\t-\nstack\t0\t-\t0\nsample\t1\t7\t7\t0\n' |
	"$SP_FOLD" >/dev/null 2>"$TMP/err" || fail "truncated only: exit $?"
grep -q 'not symbolized' "$TMP/err" && fail "a stream without code frames warned"

# Folded stacks and perf script text, told from their first line.
printf 'app;main;work 3\napp;main 1\n' >"$TMP/a.folded"
printf 'app;main;work 5\n' >"$TMP/b.folded"
"$SP_FOLD" "$TMP/a.folded" >"$TMP/out" 2>"$TMP/err" || fail "a.folded: exit $?"
printf 'app;main 1\napp;main;work 3\n' | diff -u - "$TMP/out" ||
	fail "a.folded read as folded stacks"
[ -s "$TMP/err" ] && fail "a.folded: $(cat "$TMP/err")"
"$SP_FOLD" <"$TMP/a.folded" >"$TMP/out" || fail "folded on stdin: exit $?"
grep -q '^app;main;work 3$' "$TMP/out" || fail "folded on stdin"
"$SP_FOLD" --diff "$TMP/a.folded" "$TMP/b.folded" >"$TMP/out" ||
	fail "--diff a.folded b.folded: exit $?"
printf 'app;main 1 0\napp;main;work 3 5\n' | diff -u - "$TMP/out" ||
	fail "--diff of folded files"
printf 'app 7/7 1.000000: 1000 cpu-clock:\n\t401000 work (/bin/app)\n\t401100 main (/bin/app)\n\n' \
	>"$TMP/ps.txt"
"$SP_FOLD" "$TMP/ps.txt" >"$TMP/out" 2>"$TMP/err" || fail "perf script: exit $?"
grep -q '^app;main;work 1000$' "$TMP/out" || fail "perf script: $(cat "$TMP/out" "$TMP/err")"
# Options for a record stream, on folded input: a usage error.
"$SP_FOLD" --view wall "$TMP/a.folded" >/dev/null 2>"$TMP/err"
[ $? -eq 2 ] || fail "--view wall on folded stacks: exit status"
grep -q 'the input is folded stacks' "$TMP/err" || fail "--view wall: $(cat "$TMP/err")"
# sp-symbolize given folded stacks or perf script text says who reads them.
"$SP_SYMBOLIZE" "$TMP/a.folded" >/dev/null 2>"$TMP/err"
[ $? -eq 1 ] || fail "sp-symbolize on folded stacks: exit status"
grep -q "line 1: folded stacks, not a record stream: sp-fold reads them" \
	"$TMP/err" || fail "sp-symbolize on folded: $(cat "$TMP/err")"
"$SP_SYMBOLIZE" "$TMP/ps.txt" >/dev/null 2>"$TMP/err"
grep -q "line 1: perf script output, not a record stream: sp-fold reads it" \
	"$TMP/err" || fail "sp-symbolize on perf script: $(cat "$TMP/err")"
exit 0

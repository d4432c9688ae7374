#!/bin/sh
# sp-dump streams: records of a growing file appear as they are written
# (--follow), and a consumer that closes the pipe ends sp-dump quietly.
. "$(dirname "$0")/lib.sh"

gen() { python3 "$TOP/tests/spoolgen.py"; }

printf 'header 1 2\nframe 0 1 0x10\nstack 0 - 0\nthread 0 5 5\n' | gen >"$TMP/head"
printf 'sample 100 0 0\n' | gen >"$TMP/one"
cat "$TMP/head" >"$TMP/grow.spool"
"$SP_DUMP" -f "$TMP/grow.spool" >"$TMP/out" 2>"$TMP/err" &
pid=$!
# wait_for PATTERN: up to 10 s for a line in the output.
wait_for() {
	i=0
	while ! grep -q "$1" "$TMP/out"; do
		i=$((i + 1))
		[ $i -gt 100 ] && { kill $pid; fail "no '$1' in: $(cat "$TMP/out")"; }
		sleep 0.1
	done
}
wait_for '^thread	0	5	5'
grep -q '^sample' "$TMP/out" && fail "sample printed before it was written"
# Half a record first: nothing may be printed for it until it is whole.
head -c 2 "$TMP/one" >>"$TMP/grow.spool"
sleep 0.3
grep -q '^sample' "$TMP/out" && fail "a partial record was printed"
tail -c +3 "$TMP/one" >>"$TMP/grow.spool"
wait_for '^sample	100	5	5	0'
kill $pid
wait $pid 2>/dev/null
[ -s "$TMP/err" ] && fail "unexpected stderr: $(cat "$TMP/err")"

# A closed pipe: exit 0 or 141 (SIGPIPE), no message, no crash.
{
	cat "$TMP/head"
	i=0
	{
		while [ $i -lt 3000 ]; do echo 'sample 1 0 0'; i=$((i + 1)); done
		echo 'stats samples 3000' # the recorder's closing record
	} | gen
} >"$TMP/big.spool"
("$SP_DUMP" "$TMP/big.spool" 2>"$TMP/err"; echo $? >"$TMP/rc") | head -n 1 >/dev/null
rc=$(cat "$TMP/rc")
[ "$rc" -eq 0 ] || [ "$rc" -eq 141 ] || fail "closed pipe: exit $rc"
[ -s "$TMP/err" ] && fail "closed pipe: $(cat "$TMP/err")"
exit 0

#!/bin/sh
# LeakSanitizer over every tool's main paths.  The other end-to-end tests
# run the sanitizer build without leak checks: LSan costs about 45 ms of
# CPU at the exit of every process on this kind of VM (it scans the
# sanitizer runtimes' untouched .bss), a fifth to a third of the suite.
# Here leaks are checked on a real recording (launch, fork, threads,
# Python, frame pointers, ptrace), the spool read whole and cut short,
# symbolization cold and from the cache, every sp-fold output and input
# kind, and each tool's error exits.  The unit tests and the fuzzers
# check leaks too; SP_LEAKS=1 turns them on in every test.
. "$(dirname "$0")/lib.sh"
need_perf
export ASAN_OPTIONS="$ASAN_OPTIONS:detect_leaks=1"
nleak=0
leak() {	# WHAT CMD...: CMD must not end with a sanitizer's status
	nleak=$((nleak + 1))
	_what=$1
	shift
	"$@" >"$TMP/out" 2>"$TMP/err"
	_rc=$?
	grep -q 'LeakSanitizer\|AddressSanitizer\|runtime error' "$TMP/err" ||
		[ $_rc -eq 86 ] || [ $_rc -eq 87 ] || return $_rc
	fail "$_what: exit $_rc: $(grep -m3 -A3 'Sanitizer\|runtime error' \
		"$TMP/err")"
}
cc_prog demo demo.c -O1 -g -pthread
cc_prog chain rec_chain.c -O0 -fno-omit-frame-pointer -pthread

leak "record a command" "$SP_RECORD" -o "$TMP/x.spool" -- "$TMP/demo" 0.2c ||
	fail "recording: exit $?: $(cat "$TMP/err")"
leak "record -f with frame pointers" "$SP_RECORD" -f -g fp -o "$TMP/fp.spool" \
	-- sh -c "'$TMP/chain' 1 2 >/dev/null; exit 0" ||
	fail "recording -f: exit $?: $(cat "$TMP/err")"
leak "record with ptrace" "$SP_RECORD" --ptrace -F 200 -o "$TMP/pt.spool" \
	-- "$TMP/demo" 0.1c || fail "recording --ptrace: exit $?: $(cat "$TMP/err")"
leak "record Python" "$SP_RECORD" -o "$TMP/py.spool" -- python3 \
	"$PROGRAMS/py_work.py" 0.2c || fail "recording Python: exit $?"
leak "record: a usage error" "$SP_RECORD" --frequency x -- true
[ $? -eq 2 ] || fail "a usage error does not exit 2"
leak "record: no such command" "$SP_RECORD" -o "$TMP/n.spool" -- "$TMP/none"
[ $? -eq 0 ] && fail "a missing command succeeded"

for s in x fp pt py; do
	leak "dump $s" "$SP_DUMP" "$TMP/$s.spool" || fail "dump $s: exit $?"
	cp "$TMP/out" "$TMP/$s.dump"
	leak "symbolize $s" env XDG_CACHE_HOME="$TMP/cache" "$SP_SYMBOLIZE" \
		"$TMP/$s.dump" || fail "symbolize $s: exit $?: $(cat "$TMP/err")"
	cp "$TMP/out" "$TMP/$s.rec"
done
leak "symbolize from the cache" env XDG_CACHE_HOME="$TMP/cache" "$SP_SYMBOLIZE" \
	"$TMP/x.dump" || fail "symbolize again: exit $?"
cmp -s "$TMP/out" "$TMP/x.rec" || fail "the cache names differently"
leak "symbolize --no-cache --no-lines" "$SP_SYMBOLIZE" --no-cache --no-lines \
	"$TMP/x.dump" || fail "symbolize --no-lines: exit $?"
size=$(wc -c <"$TMP/x.spool")
head -c $((size * 2 / 3)) "$TMP/x.spool" >"$TMP/cut.spool"
leak "dump a cut spool" "$SP_DUMP" "$TMP/cut.spool"
# 0 when the cut falls between two records (t0002 checks which is which).
[ $? -le 1 ] || fail "a cut spool exits $?"
printf 'spool\tnonsense\n' >"$TMP/bad.rec"
leak "symbolize bad input" "$SP_SYMBOLIZE" "$TMP/bad.rec"
[ $? -eq 1 ] || fail "bad input to sp-symbolize does not exit 1"
leak "fold bad input" "$SP_FOLD" "$TMP/bad.rec"
[ $? -eq 1 ] || fail "bad input to sp-fold does not exit 1"

for f in folded top svg pprof speedscope perf-script threads; do
	leak "fold --format $f" "$SP_FOLD" --format $f -o "$TMP/o.$f" \
		"$TMP/x.rec" || fail "--format $f: exit $?"
done
leak "fold Python frames" "$SP_FOLD" --format top "$TMP/py.rec" ||
	fail "Python frames: exit $?"
grep -q 'work_b\|fib' "$TMP/out" || fail "no Python function: $(cat "$TMP/out")"
leak "fold a flame chart" "$SP_FOLD" --format svg --flamechart --view wall \
	"$TMP/fp.rec" || fail "--flamechart: exit $?"
leak "fold --interval" "$SP_FOLD" --interval 0.05 -o "$TMP/i-%t.folded" \
	"$TMP/x.rec" || fail "--interval: exit $?"
leak "fold perf script text" "$SP_FOLD" --inline "$TMP/o.perf-script" ||
	fail "perf script input: exit $?"
leak "fold folded text" "$SP_FOLD" --format svg "$TMP/o.folded" ||
	fail "folded input: exit $?"
leak "fold --diff" "$SP_FOLD" --diff --format svg "$TMP/o.folded" \
	"$TMP/o.folded" || fail "--diff: exit $?"
leak "fold: a usage error" "$SP_FOLD" --format flamegraph "$TMP/x.rec"
[ $? -eq 2 ] || fail "a usage error does not exit 2"
echo "no leak in $nleak tool runs"

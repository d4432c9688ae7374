#!/bin/sh
# The scope of a recording beyond a process tree (issue 14): -a sees a
# process that started before it and two that started during it, with
# their names and stacks, and never the recorder itself; -C 0 only what
# ran on CPU 0; -u only one user's processes; -t only the thread named.
. "$(dirname "$0")/lib.sh"
need_perf
T='	'
cc_prog rec_chain rec_chain.c -O0 -g -fno-omit-frame-pointer -pthread
for n in before after1 after2 cpu0 cpu1 mine theirs; do
	cp "$TMP/rec_chain" "$TMP/$n" || fail "cp"
done
CHAIN=';main;run;chain_a;chain_b;chain_c;spin'

folded() { # SPOOL: its folded stacks
	"$SP_DUMP" "$1" | "$SP_SYMBOLIZE" 2>/dev/null | "$SP_FOLD"
}
# count FOLDED COMM: samples of COMM's main-thread chain
count() {
	awk -v c="$2" -v s="$CHAIN" 'index($0, c ";") == 1 &&
		index($0, s " ") { n += $NF } END { print n + 0 }' "$1"
}

# -a: one process before, two started while recording.
"$TMP/before" 2.5 >/dev/null &
b=$!
sleep 0.3
( sleep 0.4; "$TMP/after1" 0.6 >/dev/null ) &
( sleep 0.6; "$TMP/after2" 0.6 >/dev/null ) &
"$SP_RECORD" -a -d 1.8 -o "$TMP/a.spool" 2>"$TMP/err" &
rp=$!
wait $rp
rc=$?
cat "$TMP/err" >&2
wait
[ $rc -eq 0 ] || fail "-a exited $rc"
folded "$TMP/a.spool" >"$TMP/a.folded"
for n in before after1 after2; do
	c=$(count "$TMP/a.folded" "$n")
	echo "$n: $c samples" >&2
	[ "$c" -ge 100 ] || fail "-a: $c samples of $n's stack"
done
# By its pid: another test's sp-record on the machine may be sampled.
"$SP_DUMP" "$TMP/a.spool" | awk -F'\t' -v p=$rp '$1 == "sample" && $3 == p' |
	grep -q . && fail "-a recorded itself"
"$SP_DUMP" "$TMP/a.spool" | grep -q "^comm${T}.*${T}after2\$" ||
	fail "-a: no comm record for after2"

# -a -C 0: a process pinned to CPU 1 is not seen.
if [ "$(nproc)" -ge 2 ] && command -v taskset >/dev/null; then
	taskset -c 0 "$TMP/cpu0" 1.5 >/dev/null &
	taskset -c 1 "$TMP/cpu1" 1.5 >/dev/null &
	sleep 0.2
	"$SP_RECORD" -q -a -C 0 -d 1 -o "$TMP/c.spool" 2>"$TMP/err" ||
		fail "-C 0: exit $?: $(cat "$TMP/err")"
	wait
	folded "$TMP/c.spool" >"$TMP/c.folded"
	c0=$(count "$TMP/c.folded" cpu0) c1=$(count "$TMP/c.folded" cpu1)
	echo "-C 0: cpu0 $c0, cpu1 $c1" >&2
	[ "$c0" -ge 100 ] && [ "$c1" -eq 0 ] ||
		fail "-C 0 saw cpu0 $c0 times and cpu1 $c1 times"
else
	echo "-C part skipped: one CPU or no taskset" >&2
fi

# -a -u nobody: only that user's process.
if [ "$(id -u)" = 0 ] && command -v setpriv >/dev/null; then
	setpriv --reuid=nobody --regid=nogroup --clear-groups \
		"$TMP/theirs" 1.5 >/dev/null &
	"$TMP/mine" 1.5 >/dev/null &
	sleep 0.2
	"$SP_RECORD" -q -a -u nobody -d 1 -o "$TMP/u.spool" 2>"$TMP/err" ||
		fail "-u: exit $?: $(cat "$TMP/err")"
	wait
	folded "$TMP/u.spool" >"$TMP/u.folded"
	t=$(count "$TMP/u.folded" theirs)
	cut -d';' -f1 "$TMP/u.folded" | sort -u | grep -vx theirs &&
		fail "-u nobody recorded other users' processes"
	[ "$t" -ge 100 ] || fail "-u nobody: $t samples of nobody's process"
else
	echo "-u part skipped: not root or no setpriv" >&2
fi

# -t: the worker thread only.
"$TMP/rec_chain" 2 1 >/dev/null &
pid=$!
sleep 0.3
wtid=""
for t in /proc/$pid/task/*; do
	[ "$(cat "$t/comm")" = worker ] && wtid=${t##*/}
done
[ -n "$wtid" ] || fail "no worker thread in $pid"
"$SP_RECORD" -q -t "$wtid" -d 1 -o "$TMP/t.spool" 2>"$TMP/err" ||
	fail "-t: exit $?: $(cat "$TMP/err")"
wait
"$SP_DUMP" "$TMP/t.spool" >"$TMP/t.dump"
awk -F'\t' -v w="$wtid" '$1 == "sample" { n++; if ($4 != w) bad++ }
	END { printf "-t: %d samples, %d of other threads\n", n, bad > "/dev/stderr"
	      exit !(n >= 100 && !bad) }' "$TMP/t.dump" ||
	fail "-t sampled other threads or too little"
folded "$TMP/t.spool" | grep -q "^worker;.*;worker_main;run;chain_a;chain_b" ||
	fail "-t: no worker_main stack"

# Scope errors are usage errors; so is a CPU the machine cannot have
# (t1041 tries more).
for args in "-C 0 -- true" "-u root -- true" "-a -p 1" "-t 1 -- true" \
	"-a --ptrace" "-a -C 99999 -d 0.1"; do
	# shellcheck disable=SC2086
	"$SP_RECORD" $args -o "$TMP/x" 2>"$TMP/err"
	rc=$?
	case "$args" in
	*99999*) [ $rc -eq 2 ] && grep -q "CPU 99999 is out of range" "$TMP/err" ||
		fail "'$args': exit $rc: $(cat "$TMP/err")" ;;
	*) [ $rc -eq 2 ] || fail "'$args': exit $rc, not 2" ;;
	esac
done
exit 0

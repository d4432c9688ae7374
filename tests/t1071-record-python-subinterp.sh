#!/bin/sh
# t1071-record-python-subinterp.sh: a thread ("subrunner") runs sub_work
# in a subinterpreter while the main thread runs main_work in the main
# interpreter (tests/programs/py_subinterp.py).  The thread has a state
# in each interpreter; the reader took the first matching its thread id,
# the subinterpreter's or the main one's, and wrote another interpreter's
# frames or inconsistent stacks (no sub_work found on main's build).  Now
# the state that runs is taken (3.12+: marked active; 3.8-3.11: the one
# holding the GIL), its chain written truncated (the outer interpreter's
# frames are not joined to it): sub_work must be in 60% of the thread's
# samples, main_work in 60% of the main thread's, neither under the
# other's thread (0.5%), and at most 10% of the stacks inconsistent.
# (The rest is the loops' own frames and their clock reads, which grow
# on a loaded machine: 79% main_work was seen under make check.)
# 3.8-3.12 run a subinterpreter created by another thread in a state
# with the creator's thread id: which runs cannot be told, and the
# running thread's stacks are marked, not given the creator's frames
# (3.12 here: the creator's main_work still 60% of its samples, sub_work
# never under it); 3.13 makes a state for the thread that runs it.
. "$(dirname "$0")/lib.sh"
need_perf

# check PY WHERE: records py_subinterp.py WHERE and judges as above.
check() {
	"$SP_RECORD" -o "$TMP/s.spool" -- "$1" "$PROGRAMS/py_subinterp.py" \
		"$2" 0.5 >/dev/null 2>"$TMP/err" ||
		fail "sp-record $1 exited $?: $(cat "$TMP/err")"
	pipeline "$SP_DUMP" "$TMP/s.spool" \| "$SP_SYMBOLIZE" --no-lines \| \
		"$SP_FOLD" >"$TMP/folded" 2>/dev/null ||
		fail "pipeline failed on $1"
	awk '{ n = $NF; s = $0; sub(/ [0-9]+$/, "", s); split(s, f, ";")
		sub_ = s ~ /;sub_work(;|$)/; main_ = s ~ /;main_work(;|$)/
		if (f[1] == "subrunner") { t += n; ts += sub_ * n; tw += main_ * n }
		else { m += n; mm += main_ * n; mw += sub_ * n } }
		END { printf "%d %d %d %d %d %d\n", t, ts, tw, m, mm, mw }' \
		"$TMP/folded" >"$TMP/n"
	read -r t ts tw m mm mw <"$TMP/n"
	inc=$(sed -n 's/.*Python: \([0-9]*\) stacks read from.* \([0-9]*\) inconsistent.*/\1 \2/p' "$TMP/err")
	set -- "$1" "$2" $inc
	echo "# $1 ($2 made it): thread $t samples, sub_work in $ts," \
		"main_work in $tw; main thread $m, main_work in $mm, sub_work" \
		"in $mw; $4 of $3 stacks inconsistent" >&2
	[ "$t" -ge 200 ] && [ "$m" -ge 200 ] ||
		fail "$1: only $t and $m samples of the two threads"
	[ $((mm * 10)) -ge $((m * 6)) ] ||
		fail "$1 ($2): main_work in $mm of $m samples of the main thread"
	[ $((tw * 200)) -le "$t" ] && [ $((mw * 200)) -le "$m" ] ||
		fail "$1 ($2): $tw main_work under the subinterpreter's thread, $mw sub_work under the main thread"
	if [ "$marked" = yes ]; then
		[ "$ts" -eq 0 ] || [ $((ts * 10)) -ge $((t * 6)) ] ||
			fail "$1 ($2): sub_work in $ts of $t samples"
		return
	fi
	[ $((ts * 10)) -ge $((t * 6)) ] ||
		fail "$1 ($2): sub_work in $ts of $t samples of its thread"
	[ $(($4 * 10)) -le "$3" ] ||
		fail "$1 ($2): $4 of $3 stacks inconsistent"
}

ran=0
for v in 3.10 3.11 3.12 3.13; do
	for p in "${PYENV_ROOT:-$HOME/.pyenv}"/versions/"$v".*/bin/"python$v"; do
		[ -x "$p" ] || continue
		marked=no
		check "$p" thread
		if [ "$v" = 3.12 ]; then
			marked=yes
			check "$p" main
		elif [ "$v" = 3.13 ]; then
			check "$p" main
		fi
		ran=$((ran + 1))
		break
	done
done
[ "$ran" -gt 0 ] || skip "no pyenv CPython 3.10-3.13 with subinterpreters"
exit 0

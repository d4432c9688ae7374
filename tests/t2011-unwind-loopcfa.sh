#!/bin/sh
# t2011-unwind-loopcfa.sh: CFI whose DWARF expressions jump back without
# end (unw_loopcfa's spin functions: a CFA rule { DW_OP_skip -3 }, one
# by DW_OP_bra, a register rule, a value rule reading the stack) cannot
# hang the recorder (issue 39 item 1): libunwind evaluated them without
# end, sp-record spun and its spool was lost.  Now libunwind's reads of
# a sample are bounded: sp-record must exit 0 by itself, the samples in
# each spin function must end in the truncated marker, counted as
# unwind_error.budget_exceeded, and a normal process recorded beside it
# (rec_cpuspin, a child under -f) must keep its samples and its complete
# stacks.  Both programs run a CPU-time budget; the 60 s limit only
# tells a hang (which it kills) from an exit.
. "$(dirname "$0")/lib.sh"
need_perf
cc_prog unw_loopcfa unw_loopcfa.c -O2
cc_prog rec_cpuspin rec_cpuspin.c -O2

# record NAME CMD...: records CMD into $TMP/NAME.{dump,folded}; a hang
# (the kill at 60 s) fails.
record() {
	_n=$1
	shift
	timeout -s KILL 60 "$SP_RECORD" -g dwarf -f -o "$TMP/$_n.spool" -- \
		"$@" 2>"$TMP/err"
	_rc=$?
	[ $_rc -ne 137 ] || fail "sp-record ($_n) hung: killed after 60 s"
	[ $_rc -eq 0 ] || fail "sp-record ($_n) exited $_rc: $(cat "$TMP/err")"
	"$SP_DUMP" "$TMP/$_n.spool" >"$TMP/$_n.dump" || fail "sp-dump exited $?"
	pipeline "$SP_SYMBOLIZE" \| "$SP_FOLD" <"$TMP/$_n.dump" \
		>"$TMP/$_n.folded" || fail "pipeline failed on $_n"
}

# counter NAME KEY: the value of a stats counter of $TMP/NAME.dump, or 0.
counter() { stats_counter "$TMP/$1.dump" "$2"; }

# cut_in_loops NAME: each spin function's samples (at least 50) must all
# end in the truncated marker, counted; the budget of reads is spent in
# full only a few times (unwind_walk.c remembers the steps that did).
cut_in_loops() {
	awk '/;(loop|bra|rip|deref)_spin [0-9]+$/ {
			f = $0; sub(/ [0-9]+$/, "", f); sub(/.*;/, "", f)
			n[f] += $NF
			if ($0 ~ /^unw_loopcfa;<stack truncated>;[a-z]+_spin [0-9]+$/)
				cut[f] += $NF
			else
				print "not cut: " $0 }
		END { split("loop_spin bra_spin rip_spin deref_spin", fs, " ")
		      for (i = 1; i <= 4; i++) {
			f = fs[i]
			printf "%s: %d samples, %d cut\n", f, n[f], cut[f]
			if (n[f] < 50 || cut[f] != n[f])
				bad = 1 }
		      exit bad }' "$TMP/$1.folded" >&2 ||
		fail "$1: the spin functions' stacks are not cut at the truncated marker"
	[ "$(counter "$1" unwind_error.budget_exceeded)" -gt 0 ] ||
		fail "$1: no unwind_error.budget_exceeded in the stats"
	# the whole budget is spent at most 16 times a file, not per sample
	_spent=$(counter "$1" unwind.reads_exhausted)
	[ "$_spent" -ge 1 ] && [ "$_spent" -le 16 ] ||
		fail "$1: the read budget was spent $_spent times, not 1 to 16"
}

record alone "$TMP/unw_loopcfa" 0.5c >/dev/null
cut_in_loops alone

# Beside it, the normal process's 1 s of CPU keeps at least half its
# samples, 99% of them through main to _start.
record beside sh -c "\"$TMP/unw_loopcfa\" 1c & \"$TMP/rec_cpuspin\" 1; wait" \
	>/dev/null
cut_in_loops beside
awk '/^rec_cpuspin;/ { n += $NF
		if ($0 ~ /^rec_cpuspin;_start;__libc_start_main;__libc_start_call_main;main[; ]/)
			ok += $NF }
	END { printf "rec_cpuspin: %d samples, %d complete\n", n, ok
	      exit n < 500 || ok * 100 < n * 99 }' "$TMP/beside.folded" >&2 ||
	fail "the normal process lost samples or stacks beside loop_spin"
exit 0

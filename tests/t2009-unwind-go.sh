#!/bin/sh
# t2009-unwind-go.sh: a Go program that spends its time allocating
# (tests/programs/go_gc.go), a third of its samples under
# runtime.systemstack on the thread's g0 stack: at least 99% of the
# samples must reach the end of a Go stack (runtime.goexit under a
# goroutine; runtime.mstart, runtime.rt0_go or runtime.mcall, where Go's
# own traceback ends, on g0; runtime.sigtramp and its return trampoline
# in a signal handler; runtime.clone in a thread just made, and the ELF
# entry _rt0_amd64_linux or _rt0_amd64, which it jumps to) without a
# truncated marker; no caller among the program's own functions may be
# one that does not call it, directly or not, in its source; the frames past a stack switch must come from the
# kernel's frame-pointer walk of the sample
# (unwind_go.fpchain_completed).  The program runs for 2 s of its own
# CPU time, so the sample count does not depend on how loaded the
# machine is.  Then launched by env(1), a C program that execs it (0.5 s
# of CPU), and recorded system-wide (-a, 1 s): sp-record must ask for
# the kernel's walk there too, not only when the command it starts is
# Go, and the child it forks is its own until its exec (no go_gc sample
# there, in the recorder's code, with no module of go_gc's: [unknown]);
# and under --ptrace (0.5 s), where it walks the frame pointers itself.
. "$(dirname "$0")/lib.sh"
need_perf
if ! command -v go >/dev/null; then
	[ "${CI:-}" = true ] && fail "go is missing (.ci/install-deps: golang-go)"
	skip "go is missing: no Go program to record"
fi

GOCACHE="$TMP/gocache" go build -o "$TMP/go_gc" \
	"$PROGRAMS/go_gc.go" 2>"$TMP/err" ||
	fail "go build failed: $(cat "$TMP/err")"
"$SP_RECORD" -g dwarf -o "$TMP/go.spool" -- "$TMP/go_gc" 2c \
	>/dev/null 2>"$TMP/err" || fail "sp-record exited $?: $(cat "$TMP/err")"
"$SP_DUMP" "$TMP/go.spool" >"$TMP/go.dump" || fail "sp-dump exited $?"
pipeline "$SP_SYMBOLIZE" \| "$SP_FOLD" <"$TMP/go.dump" >"$TMP/folded" ||
	fail "pipeline failed"
# 2 s of CPU at 999 Hz: far fewer samples is a recorder fault.
rooted "$TMP/folded" \
	'(runtime\.(goexit|mstart|rt0_go|mcall|sigtramp|sigreturn|clone)(\.abi0)?|_rt0_amd64(_linux)?)' \
	"go_gc" 1000 99
# No wrong frame among the program's own: each main.* caller of a
# main.* function calls it in the source, directly or through others
# (a function sampled before it saved its frame pointer hides its
# caller: frame pointers skip a frame there, they do not invent one).
awk '{ s = $0; sub(/ [0-9]+$/, "", s); k = split(s, f, ";")
	for (i = 2; i < k; i++)
		if (f[i] ~ /^main\./ && f[i + 1] ~ /^main\./ &&
		    !((f[i] " " f[i + 1]) in ok)) { print s; exit 1 } }
	BEGIN { split("main.main.func1 main.worker,main.worker main.churn," \
		"main.worker main.cpuSeconds,main.churn main.build," \
		"main.build main.build,main.main.func1 main.churn," \
		"main.main.func1 main.build,main.main.func1 main.cpuSeconds," \
		"main.worker main.build", e, ",")
		for (j in e) ok[e[j]] = 1 }' "$TMP/folded" >"$TMP/wrong" ||
	fail "a wrong caller: $(cat "$TMP/wrong")"
under=$(awk '/runtime\.systemstack/ { n += $NF } END { print n + 0 }' \
	"$TMP/folded")
[ "$under" -ge 100 ] ||
	fail "only $under samples under runtime.systemstack: not the workload"
spliced=$(stats_counter "$TMP/go.dump" unwind_go.fpchain_completed)
[ "$spliced" -gt 0 ] || fail "no unwind_go.fpchain_completed in the stats"

# go_only SPOOL: the folded stacks of the go_gc process alone.
go_only() {
	pipeline "$SP_DUMP" "$1" \| "$SP_SYMBOLIZE" \| "$SP_FOLD" >"$1.all" ||
		fail "pipeline failed on $1"
	grep '^go_gc;' "$1.all" >"$1.folded"
}
"$SP_RECORD" -g dwarf -o "$TMP/env.spool" -- env "$TMP/go_gc" 0.5c \
	>/dev/null 2>"$TMP/err" || fail "sp-record exited $?: $(cat "$TMP/err")"
go_only "$TMP/env.spool"
rooted "$TMP/env.spool.folded" \
	'(runtime\.(goexit|mstart|rt0_go|mcall|sigtramp|sigreturn|clone)(\.abi0)?|_rt0_amd64(_linux)?)' \
	"go_gc under env" 250 99
"$SP_RECORD" -a -g dwarf -o "$TMP/all.spool" -- "$TMP/go_gc" 1c \
	>/dev/null 2>"$TMP/err" || fail "sp-record -a exited $?: $(cat "$TMP/err")"
go_only "$TMP/all.spool"
rooted "$TMP/all.spool.folded" \
	'(runtime\.(goexit|mstart|rt0_go|mcall|sigtramp|sigreturn|clone)(\.abi0)?|_rt0_amd64(_linux)?)' \
	"go_gc under -a" 500 99
! grep -F '[unknown]' "$TMP/all.spool.folded" >"$TMP/unknown" ||
	fail "-a: go_gc samples in no module: $(head -3 "$TMP/unknown")"
"$SP_RECORD" --ptrace -g dwarf -o "$TMP/pt.spool" -- "$TMP/go_gc" 0.5c \
	>/dev/null 2>"$TMP/err" ||
	fail "sp-record --ptrace exited $?: $(cat "$TMP/err")"
go_only "$TMP/pt.spool"
rooted "$TMP/pt.spool.folded" \
	'(runtime\.(goexit|mstart|rt0_go|mcall|sigtramp|sigreturn|clone)(\.abi0)?|_rt0_amd64(_linux)?)' \
	"go_gc under --ptrace" 250 99
exit 0

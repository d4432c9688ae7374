#!/bin/sh
# -g dwarf: sp-record asks for user registers and a stack copy and hands
# them to the DWARF unwinder, which recovers the frame that frame-pointer
# chains lose (in_syscalls, the caller of libc's write, which keeps no
# frame pointer); the summary and stats carry the unwinder's counters.
. "$(dirname "$0")/lib.sh"
need_perf
cc_prog rec_syscall rec_syscall.c -O0 -fno-omit-frame-pointer

"$SP_RECORD" -g dwarf -d 10 -o "$TMP/x.spool" -- "$TMP/rec_syscall" 0.5c \
	2>"$TMP/err"
rc=$?
cat "$TMP/err" >&2
[ $rc -eq 0 ] || fail "exit status $rc"
grep -q 'DWARF unwinding is not available' "$TMP/err" &&
	skip "this build has no DWARF unwinder"
grep -q 'dwarf stacks' "$TMP/err" || fail "the summary does not say dwarf"
grep -q '^sp-record: unwound [1-9][0-9]* stacks, [0-9.]* frames each$' \
	"$TMP/err" || fail "no unwinder counters in the summary"
"$SP_DUMP" "$TMP/x.spool" >"$TMP/dump" || fail "sp-dump rejected the spool"
grep -q "$(printf '^stats\t.*unwind[.]samples=')" "$TMP/dump" ||
	fail "no unwinder counters in the stats record"
nm -n --defined-only "$TMP/rec_syscall" |
	awk -f "$PROGRAMS/rec_stacks.awk" -v prog="$TMP/rec_syscall" - \
	"$TMP/dump" >"$TMP/stacks"
n=$(grep -c ';main;in_syscalls;libc[.]so[.]6' "$TMP/stacks")
[ "$n" -gt 10 ] || fail "only $n samples unwound through in_syscalls"
exit 0

#!/bin/sh
# -k adds kernel frames (from the kernel callchain) under the user frames
# of a program busy in system calls, against a kernel module record built
# from /proc/kallsyms; without -k the same samples keep user frames only.
# Where kernel sampling is not permitted, -k says so once and goes on.
. "$(dirname "$0")/lib.sh"
need_perf
cc_prog rec_syscall rec_syscall.c -O0 -fno-omit-frame-pointer

"$SP_RECORD" -k -d 10 -o "$TMP/k.spool" -- "$TMP/rec_syscall" 0.6c \
	2>"$TMP/err"
rc=$?
cat "$TMP/err" >&2
[ $rc -eq 0 ] || fail "exit status $rc"
"$SP_DUMP" "$TMP/k.spool" >"$TMP/dump" || fail "sp-dump rejected the spool"
nm -n --defined-only "$TMP/rec_syscall" |
	awk -f "$PROGRAMS/rec_stacks.awk" -v prog="$TMP/rec_syscall" - \
	"$TMP/dump" >"$TMP/stacks"
if grep -q 'kernel stacks are not permitted' "$TMP/err"; then
	grep -q "$(printf '^frame\t[0-9]*\tkernel')" "$TMP/dump" &&
		fail "kernel frames despite the warning"
	[ "$(grep -c 'not permitted' "$TMP/err")" -eq 1 ] ||
		fail "the warning is not said once"
	skip "kernel stacks not permitted here (checked the warning only)"
fi
grep -q "$(printf '^module\t.*\t-1\t0x[0-9a-f]*\t0x[0-9a-f]*\t.*\tkernel\t')" \
	"$TMP/dump" || fail "no kernel module record"
# Frame-pointer chains skip in_syscalls itself: libc's write() keeps no
# frame pointer, so its caller's return address is lost.
n=$(grep -Ec ';main;(in_syscalls;)?libc[.]so[.]6;\[k\]' "$TMP/stacks")
[ "$n" -gt 10 ] || fail "only $n samples with kernel frames under main"
awk -F'\t' '$1 == "frame" && $3 == "kernel" && $5 == "-" { bad++ }
	$1 == "frame" && $3 == "kernel" { n++ }
	END { exit !(n > 0 && bad < n) }' "$TMP/dump" ||
	fail "kernel frames do not resolve against the kernel module"

"$SP_RECORD" -d 10 -o "$TMP/u.spool" -- "$TMP/rec_syscall" 0.4c \
	2>"$TMP/err" || fail "recording without -k failed"
"$SP_DUMP" "$TMP/u.spool" >"$TMP/dump"
grep -q "$(printf '^frame\t[0-9]*\tkernel')" "$TMP/dump" &&
	fail "kernel frames without -k"
nm -n --defined-only "$TMP/rec_syscall" |
	awk -f "$PROGRAMS/rec_stacks.awk" -v prog="$TMP/rec_syscall" - \
	"$TMP/dump" >"$TMP/stacks"
# Samples in write() end in libc under in_syscalls (DWARF stacks, the
# default) or under main (frame pointers); few end in in_syscalls itself.
n=$(grep -Ec ';main;(in_syscalls|(in_syscalls;)?libc[.]so[.]6)$' "$TMP/stacks")
[ "$n" -gt 10 ] || fail "only $n samples in system calls without -k"
exit 0

#!/bin/sh
# t2003-ptrace-dlopen.sh: --ptrace has no MMAP2 records, so libraries
# mapped after the /proc/PID/maps snapshot are learnt from maps refreshes.
# The snapshot of a launched command is taken at its exec, before ld.so
# maps libc: while main_spin runs, libc is only a caller frame
# (__libc_start_call_main), found when the unwinder meets a pc without
# module.  Then a library loaded with dlopen is only ever a caller too
# (its lib_spin calls memset in libc).  Both must resolve to their
# modules and unwind on with their CFI to _start.  Last, that library is
# closed and another one opened, most likely in its place, with its code
# elsewhere in the file: only a periodic maps refresh tells, and its
# samples must resolve to it and unwind with its own CFI.
. "$(dirname "$0")/lib.sh"

"$SP_RECORD" --ptrace -d 0.1 -o "$TMP/probe.spool" -- true 2>"$TMP/err"
case $? in
0) ;;
*) if grep -qi 'ptrace.*\(not permitted\|denied\)' "$TMP/err"; then
	[ "${CI:-}" = true ] && fail "ptrace refused under CI=true"
	skip "ptrace refused: $(head -n 1 "$TMP/err")"
   fi
   fail "sp-record --ptrace failed: $(cat "$TMP/err")" ;;
esac

cc_prog rec_dlopen rec_dlopen.c -O0 -fno-omit-frame-pointer -ldl
cc_prog librec_dllibc.so rec_dllibc.c -O2 -fomit-frame-pointer -shared -fPIC
cc_prog librec_dllibc2.so rec_dllibc.c -DPAD -O2 -fomit-frame-pointer \
	-shared -fPIC
lib=$TMP/librec_dllibc.so
lib2=$TMP/librec_dllibc2.so

# 2.4 s of CPU time (0.8 s a phase), however loaded the machine.
"$SP_RECORD" --ptrace -F 500 -o "$TMP/x.spool" -- \
	"$TMP/rec_dlopen" 2.4c "$lib" "$lib2" 2>"$TMP/err" ||
	fail "sp-record --ptrace exited $?: $(cat "$TMP/err")"
"$SP_DUMP" "$TMP/x.spool" >"$TMP/dump" || fail "sp-dump rejected the spool"
awk -F'\t' -v l="$lib" '$1 == "module" && $9 == l { f = 1 }
	END { exit !f }' "$TMP/dump" ||
	fail "no module record for the dlopen'ed library: $(cat "$TMP/err")"
# stacks PROG OUT: names the frames of PROG's functions.
stacks() {
	nm -n --defined-only "$1" |
		awk -f "$PROGRAMS/rec_stacks.awk" -v prog="$1" - "$TMP/dump" |
		cut -d' ' -f3 >"$2"
}
stacks "$TMP/rec_dlopen" "$TMP/main"
stacks "$lib" "$TMP/lib"
stacks "$lib2" "$TMP/lib2"
libc='libc[.]so[.]6;libc[.]so[.]6'
# check_phase FILE WHAT PATTERN START: most samples of a phase reach
# START (_start, however named), through __libc_start_main.
check_phase() {
	total=$(grep -c "$3" "$1")
	whole=$(grep -c "^$4;$libc.*$3" "$1")
	[ "$total" -gt 50 ] || fail "only $total samples resolved $2"
	# All but a few (say, in the middle of a refresh) reach _start.
	[ $((whole * 100)) -ge $((total * 95)) ] ||
		fail "only $whole of $total samples in $2 unwound to _start"
}
check_phase "$TMP/main" main_spin ';main;main_spin$' _start
check_phase "$TMP/lib" lib_spin 'rec_dlopen;lib_spin;' rec_dlopen
check_phase "$TMP/lib2" "lib_spin of the second library" \
	'rec_dlopen;lib_spin;' rec_dlopen
grep -q "$(printf '^stats\t.*maps_refreshes=[1-9]')" "$TMP/dump" ||
	fail "no maps refresh counted"
exit 0

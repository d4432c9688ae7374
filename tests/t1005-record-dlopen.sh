#!/bin/sh
# A library loaded with dlopen in the middle of the recording gets a module
# record from its MMAP2 event before the samples that run in it, so those
# resolve to the library without a /proc/PID/maps refresh.
. "$(dirname "$0")/lib.sh"
need_perf
cc_prog rec_dlopen rec_dlopen.c -O0 -fno-omit-frame-pointer -ldl
cc_prog librec_dllib.so rec_dllib.c -O0 -fno-omit-frame-pointer -shared -fPIC
lib=$TMP/librec_dllib.so

"$SP_RECORD" -o "$TMP/x.spool" -- "$TMP/rec_dlopen" 1c "$lib" \
	2>"$TMP/err"
rc=$?
cat "$TMP/err" >&2
[ $rc -eq 0 ] || fail "exit status $rc"
"$SP_DUMP" "$TMP/x.spool" >"$TMP/dump" || fail "sp-dump rejected the spool"

libmod=$(awk -F'\t' -v l="$lib" '$1 == "module" && $9 == l { print NR; exit }' \
	"$TMP/dump")
[ -n "$libmod" ] || fail "no module record for the dlopen'ed library"

nm -n --defined-only "$lib" |
	awk -f "$PROGRAMS/rec_stacks.awk" -v prog="$lib" - "$TMP/dump" \
	>"$TMP/lib"
nm -n --defined-only "$TMP/rec_dlopen" |
	awk -f "$PROGRAMS/rec_stacks.awk" -v prog="$TMP/rec_dlopen" - \
	"$TMP/dump" >"$TMP/main"
n=$(grep -c ';lib_spin;lib_inner$' "$TMP/lib")
[ "$n" -gt 10 ] || fail "only $n samples resolved inside the library"
n=$(grep -c ';main;main_spin$' "$TMP/main")
[ "$n" -gt 10 ] || fail "only $n samples in main_spin before dlopen"
# Every sample in the library comes after its module record.
awk -F'\t' -v m="$libmod" '$1 == "sample" { s++ }
	NR == m { before = s } END { exit !(before > 5) }' "$TMP/dump" ||
	fail "the library's module record does not precede its samples"
# At most one refresh: a sample taken inside execve, after the kernel
# announced the exec but before the new image's registers are in place,
# carries the old image's pc (seen in about one run in four under load:
# a user pc in no module of the new image, a millisecond after the exec
# record) and costs one refresh; it is no sample of the library, and is
# dropped (check_record_recorder's samples_inside_an_exec_are_dropped).
grep -Eq "$(printf '^stats\t.*maps_refreshes=[01]\t')" "$TMP/dump" ||
	fail "samples needed maps refreshes: records came out of order"
exit 0

#!/bin/sh
# Issue 29: a process that ends before the recorder handles its first
# sample (tens of milliseconds: a sorter round after the ring is read)
# is still named afterwards, when its binary existed only in its mount
# namespace or was deleted right after exec, or when its code was a
# library loaded from a memfd it closed since.  sp-record pins each
# executable file mapping as it reads it from the ring, while the
# process lives (an O_PATH descriptor), and the build id, the CFI and
# the kept copy come from that pin once the process is gone.
# tests/programs/rec_short.c waits until its parent (sp-record) holds
# its file by such a descriptor, then spins 0.03 s of CPU and exits,
# so that its samples are handled after it is gone; it exits 3 when no
# pin comes (the recorder before pins), failing this test.
. "$(dirname "$0")/lib.sh"
need_perf
[ "$(id -u)" = 0 ] || skip "needs root for a mount namespace"
command -v unshare >/dev/null || skip "no unshare"
cc_prog rec_short rec_short.c -O0 -g -fno-omit-frame-pointer -Wl,--build-id \
	-ldl
cc_prog libdl.so rec_dllib.c -shared -fPIC -O0 -g -fno-omit-frame-pointer \
	-Wl,--build-id
# rel FILE: FILE's place in a build-id tree.
rel() {
	_id=$(readelf -n "$1" | awk '/Build ID:/ { print $3 }')
	[ -n "$_id" ] || fail "no build id in '$1'"
	echo ".build-id/$(echo "$_id" | cut -c1-2)/$(echo "$_id" | cut -c3-)"
}
mkdir "$TMP/ns" "$TMP/del"

# check NAME FILE STACK: sp-record exited 0 (the program saw its pin),
# FILE was kept, and the pipeline names STACK from the kept file.
check() {
	[ "$(cat "$TMP/$1.rc")" = 0 ] ||
		fail "$1: exit $(cat "$TMP/$1.rc"): $(cat "$TMP/$1.err")"
	cmp "$2" "$TMP/$1/stackpulse/$(rel "$2")" ||
		fail "$1: not kept: $(cat "$TMP/$1.err")"
	XDG_CACHE_HOME=$TMP/$1
	pipeline "$SP_DUMP" "$TMP/$1.spool" \| "$SP_SYMBOLIZE" \| "$SP_FOLD" \
		>"$TMP/$1.folded" 2>"$TMP/$1.ferr" ||
		fail "$1: pipeline: $(cat "$TMP/$1.ferr")"
	grep -q "^$3 [0-9]" "$TMP/$1.folded" ||
		fail "$1: not named: $(sort -k2n "$TMP/$1.folded" | tail -3)"
}
spin='.*;main;run;short_a;short_b;spin'


# A binary only in a private mount namespace, gone with it.
XDG_CACHE_HOME=$TMP/ns_x "$SP_RECORD" -q -f -o "$TMP/ns_x.spool" -- \
	unshare -m --propagation private sh -c '
	mount -t tmpfs none "$1" && cp "$2" "$1/inner" &&
	exec "$1/inner" 0.03c' sh "$TMP/ns" "$TMP/rec_short" \
	>/dev/null 2>"$TMP/ns_x.err"
echo $? >"$TMP/ns_x.rc"
[ -e "$TMP/ns/inner" ] && fail "the namespace's file is outside"
check ns_x "$TMP/rec_short" "inner$spin"

# A binary that deletes itself as it starts.
cp "$TMP/rec_short" "$TMP/del/gone"
XDG_CACHE_HOME=$TMP/del_x "$SP_RECORD" -q -f -o "$TMP/del_x.spool" -- \
	"$TMP/del/gone" 0.03c unlink >/dev/null 2>"$TMP/del_x.err"
echo $? >"$TMP/del_x.rc"
[ -e "$TMP/del/gone" ] && fail "the program did not delete itself"
check del_x "$TMP/rec_short" "gone$spin"

# Code in a memfd, reached only through the mapping once closed.
XDG_CACHE_HOME=$TMP/mfd_x "$SP_RECORD" -q -f -o "$TMP/mfd_x.spool" -- \
	"$TMP/rec_short" 0.03c memfd "$TMP/libdl.so" >/dev/null 2>"$TMP/mfd_x.err"
echo $? >"$TMP/mfd_x.rc"
check mfd_x "$TMP/libdl.so" "rec_short;.*;main;run_lib;lib_spin;lib_inner"
exit 0

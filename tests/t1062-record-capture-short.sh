#!/bin/sh
# Issue 29: a process that ends before the recorder handles its first
# sample (tens of milliseconds: a sorter round after the ring is read)
# is still named afterwards, when its binary existed only in its mount
# namespace or was deleted right after exec.  sp-record pins each
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
cc_prog rec_short rec_short.c -O0 -g -fno-omit-frame-pointer -Wl,--build-id
id=$(readelf -n "$TMP/rec_short" | awk '/Build ID:/ { print $3 }')
[ -n "$id" ] || fail "no build id in the fixture"
rel=.build-id/$(echo "$id" | cut -c1-2)/$(echo "$id" | cut -c3-)
mkdir "$TMP/ns" "$TMP/del"

# check NAME: sp-record exited 0 (the program saw its pin), its file was
# kept, and the pipeline names its stacks from the kept file.
check() {
	[ "$(cat "$TMP/$1.rc")" = 0 ] ||
		fail "$1: exit $(cat "$TMP/$1.rc"): $(cat "$TMP/$1.err")"
	cmp "$TMP/rec_short" "$TMP/$1/stackpulse/$rel" ||
		fail "$1: not kept: $(cat "$TMP/$1.err")"
	XDG_CACHE_HOME=$TMP/$1
	pipeline "$SP_DUMP" "$TMP/$1.spool" \| "$SP_SYMBOLIZE" \| "$SP_FOLD" \
		>"$TMP/$1.folded" 2>"$TMP/$1.ferr" ||
		fail "$1: pipeline: $(cat "$TMP/$1.ferr")"
	grep -q "^$2;.*;main;run;short_a;short_b;spin [0-9]" "$TMP/$1.folded" ||
		fail "$1: not named: $(sort -k2n "$TMP/$1.folded" | tail -3)"
}

# A binary only in a private mount namespace, gone with it.
XDG_CACHE_HOME=$TMP/ns_x "$SP_RECORD" -q -f -o "$TMP/ns_x.spool" -- \
	unshare -m --propagation private sh -c '
	mount -t tmpfs none "$1" && cp "$2" "$1/inner" &&
	exec "$1/inner" 0.03c' sh "$TMP/ns" "$TMP/rec_short" \
	>/dev/null 2>"$TMP/ns_x.err"
echo $? >"$TMP/ns_x.rc"
[ -e "$TMP/ns/inner" ] && fail "the namespace's file is outside"
check ns_x inner

# A binary that deletes itself as it starts.
cp "$TMP/rec_short" "$TMP/del/gone"
XDG_CACHE_HOME=$TMP/del_x "$SP_RECORD" -q -f -o "$TMP/del_x.spool" -- \
	"$TMP/del/gone" 0.03c unlink >/dev/null 2>"$TMP/del_x.err"
echo $? >"$TMP/del_x.rc"
[ -e "$TMP/del/gone" ] && fail "the program did not delete itself"
check del_x gone
exit 0

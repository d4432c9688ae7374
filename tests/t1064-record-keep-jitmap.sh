#!/bin/sh
# Issue 29: a JIT's perf map and jitdump are kept with the recording.
# tests/programs/rec_jitmap.c names one function of its anonymous code
# in /tmp/perf-PID.map, another in /tmp/jit-PID.dump.  sp-record keeps
# copies of both in its capture tree (.jit/BOOTID-START_US-PID.*), so
# that once /tmp is cleaned sp-archive bundles the copies (which name
# both), and a map another process of the same pid writes there later
# is not used for the old samples by the plain pipeline, which names
# both from the copies without being told where they are.  A
# JIT in a container (its own mount and pid namespaces, its own /tmp)
# that writes both files only as it exits has them kept too.
. "$(dirname "$0")/lib.sh"
need_perf
[ "$(uname -m)" = x86_64 ] || skip "rec_jitmap writes x86-64 code"
cc_prog rec_jitmap rec_jitmap.c -O0 -g -fno-omit-frame-pointer
made=""
trap 'rm -rf "$TMP" $made' EXIT

"$SP_RECORD" -o "$TMP/x.spool" -- "$TMP/rec_jitmap" 0.1c \
	>/dev/null 2>"$TMP/err" || fail "sp-record: $(cat "$TMP/err")"
"$SP_DUMP" "$TMP/x.spool" >"$TMP/x.dump" || fail "sp-dump"
grep -q "kept 2 JIT symbol files" "$TMP/err" &&
	grep -q "	capture_jit_files=2" "$TMP/x.dump" ||
	fail "no JIT files kept: $(cat "$TMP/err")"
pid=$(awk -F'\t' '$1 == "sample" { print $3; exit }' "$TMP/x.dump")
made="/tmp/perf-$pid.map /tmp/jit-$pid.dump"
[ -f "/tmp/perf-$pid.map" ] || fail "rec_jitmap wrote no map"
rm -f $made

names() { # names OUT SPOOL [OPTION...]: both JIT functions named, none planted
	_out=$1 _spool=$2
	shift 2
	pipeline "$SP_DUMP" "$_spool" \| "$SP_SYMBOLIZE" "$@" \| "$SP_FOLD" \
		>"$_out" 2>"$TMP/err" || fail "pipeline: $(cat "$TMP/err")"
	for f in jit_hot_loop jit_dump_loop; do
		grep -q ";main;run_jit;$f [0-9]" "$_out" ||
			fail "$f not named: $(sort -k2n "$_out" | tail -3)"
	done
	grep -q planted "$_out" && fail "another process's map was used"
	return 0
}
kept=$(ls "$XDG_CACHE_HOME"/stackpulse/.jit/*-"$pid".map) ||
	fail "no kept map"

# /tmp cleaned: sp-archive bundles the kept copies.
"$SP_ARCHIVE" --max-file 100K -o "$TMP/x.tar.gz" "$TMP/x.spool" \
	2>"$TMP/err" || fail "sp-archive: $(cat "$TMP/err")"
grep -q ", 2 JIT maps, " "$TMP/err" || fail "sp-archive: $(cat "$TMP/err")"
# (Unpacked with tar: t1063 checks sp-archive -x.)
mkdir "$TMP/x" && tar -xzf "$TMP/x.tar.gz" -C "$TMP/x" || fail "cannot unpack"
cmp "$kept" "$TMP/x/perf-$pid.map" || fail "the bundle's map is not the kept one"
names "$TMP/x.folded" "$TMP/x/x.spool" --debug-dir "$TMP/x" \
	--perf-map-dir "$TMP/x"

# Another process of the same pid writes its map over the JIT's code
# (the jitdump stays gone): the plain pipeline names from the kept copies.
awk '{ print $1, $2, "planted_" NR }' "$kept" >"/tmp/perf-$pid.map"
names "$TMP/planted.folded" "$TMP/x.spool"

# In a container, written at exit: found through the /tmp sp-record held
# (the program is run from a descriptor: the tmpfs hides $TMP).
if [ "$(id -u)" = 0 ] && unshare -m -p -f true 2>/dev/null; then
	XDG_CACHE_HOME=$TMP/xdg2 "$SP_RECORD" -q -f -o "$TMP/ns.spool" -- \
		unshare -m -p -f sh -c 'exec 3<"$0" && mount -t tmpfs none /tmp &&
		exec /proc/self/fd/3 0.05c late' "$TMP/rec_jitmap" \
		>/dev/null 2>"$TMP/err" ||
		fail "sp-record in a container: $(cat "$TMP/err")"
	grep -q " jit_hot_loop\$" "$TMP"/xdg2/stackpulse/.jit/*.map &&
		[ -s "$(ls "$TMP"/xdg2/stackpulse/.jit/*.dump)" ] ||
		fail "container: $(ls -la "$TMP/xdg2/stackpulse/.jit" 2>&1)"
fi
exit 0

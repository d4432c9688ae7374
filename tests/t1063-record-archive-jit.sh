#!/bin/sh
# Issue 29: JIT names travel with the profile.  tests/programs/
# rec_jitmap.c runs code it wrote into anonymous memory and names one
# function in /tmp/perf-PID.map, another in /tmp/jit-PID.dump, as JITs
# do for perf.  sp-archive bundles the map and dump of each process with
# sampled JIT frames, -x checks it like any member and prints the
# command with --perf-map-dir, and that command names the JIT frame
# once the map is gone from /tmp.  A damaged map is refused, naming it;
# a map that is neither root's nor the user's is not stored.
. "$(dirname "$0")/lib.sh"
need_perf
[ "$(uname -m)" = x86_64 ] || skip "rec_jitmap writes x86-64 code"
cc_prog rec_jitmap rec_jitmap.c -O0 -g -fno-omit-frame-pointer
made=""
trap 'rm -rf "$TMP" $made' EXIT

# Record, bundle (--max-file leaves the C library out: it costs time,
# not names this test looks at), then take the JIT's files from /tmp.
"$SP_RECORD" -q -o "$TMP/x.spool" -- "$TMP/rec_jitmap" 0.15c \
	>/dev/null 2>"$TMP/err" || fail "sp-record: $(cat "$TMP/err")"
"$SP_DUMP" "$TMP/x.spool" >"$TMP/x.dump" || fail "sp-dump"
pid=$(awk -F'\t' '$1 == "sample" { print $3; exit }' "$TMP/x.dump")
map=perf-$pid.map dump=jit-$pid.dump
made="/tmp/$map /tmp/$dump"
[ -f "/tmp/$map" ] && [ -f "/tmp/$dump" ] || fail "rec_jitmap wrote no map"
"$SP_ARCHIVE" --max-file 100K -o "$TMP/x.tar.gz" "$TMP/x.spool" \
	2>"$TMP/err" || fail "sp-archive: $(cat "$TMP/err")"
grep -q ", 2 JIT maps, " "$TMP/err" || fail "sp-archive: $(cat "$TMP/err")"
mv "/tmp/$map" "/tmp/$dump" "$TMP"

# The bundle, extracted, names both JIT functions; without it, neither.
"$SP_ARCHIVE" -x "$TMP/x.tar.gz" -C "$TMP/x" >"$TMP/cmd" 2>"$TMP/err" ||
	fail "sp-archive -x: $(cat "$TMP/err")"
grep -q -- "--perf-map-dir $TMP/x | sp-fold\$" "$TMP/cmd" ||
	fail "-x printed: $(cat "$TMP/cmd")"
cmp "$TMP/$map" "$TMP/x/$map" && cmp "$TMP/$dump" "$TMP/x/$dump" ||
	fail "the bundled maps differ"
pipeline "$SP_DUMP" "$TMP/x/x.spool" \| "$SP_SYMBOLIZE" --debug-dir "$TMP/x" \
	--perf-map-dir "$TMP/x" \| "$SP_FOLD" >"$TMP/x.folded" 2>"$TMP/err" ||
	fail "pipeline: $(cat "$TMP/err")"
for f in jit_hot_loop jit_dump_loop; do
	grep -q ";main;run_jit;$f [0-9]" "$TMP/x.folded" ||
		fail "$f not named: $(sort -k2n "$TMP/x.folded" | tail -3)"
done
mkdir "$TMP/none"
pipeline "$SP_DUMP" "$TMP/x.spool" \| "$SP_SYMBOLIZE" \
	--perf-map-dir "$TMP/none" \| "$SP_FOLD" >"$TMP/bare" 2>/dev/null
grep -q 'jit_[a-z]*_loop' "$TMP/bare" && fail "named without the maps"

# A damaged map is refused, and the error names it.
mkdir "$TMP/bad"
tar -xzf "$TMP/x.tar.gz" -C "$TMP/bad" || fail "cannot unpack"
m=$map
echo "1000 10 planted" >>"$TMP/bad/$m"
(cd "$TMP/bad" && tar -czf "$TMP/bad.tar.gz" MANIFEST $(ls -A | grep -v MANIFEST)) ||
	fail "cannot repack"
"$SP_ARCHIVE" -x "$TMP/bad.tar.gz" -C "$TMP/bad.x" >/dev/null 2>"$TMP/err" &&
	fail "a damaged map was taken"
grep -q "member '$m' is damaged" "$TMP/err" || fail "damaged: $(cat "$TMP/err")"

# Another user's map at the JIT's path is not stored (sp-record's copy,
# which sp-archive takes first, removed: t1064 tests that).
if [ "$(id -u)" = 0 ] && id nobody >/dev/null 2>&1; then
	rm -rf "$XDG_CACHE_HOME/stackpulse/.jit"
	cp "$TMP/$m" "/tmp/$m"
	chown nobody "/tmp/$m"
	"$SP_ARCHIVE" --max-file 100K -o "$TMP/o.tar.gz" "$TMP/x.spool" \
		2>"$TMP/err" ||
		fail "other user's map: $(cat "$TMP/err")"
	grep -q "'/tmp/$m': neither root's nor yours; not stored" "$TMP/err" ||
		fail "other user's map: $(cat "$TMP/err")"
	tar -tzf "$TMP/o.tar.gz" | grep -q perf- && fail "another user's map stored"
fi
exit 0

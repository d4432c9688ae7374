#!/bin/sh
# A process in its own mount namespace (a container, as far as its files
# go) maps a binary that exists only there (issue 14).  The recorder reads
# it through /proc/PID (map_files, root) and writes its true build id, so
# once the process is gone sp-symbolize still names its frames from a
# copy found by build id under --debug-dir.
. "$(dirname "$0")/lib.sh"
need_perf
T='	'
[ "$(id -u)" = 0 ] || skip "needs root for a mount namespace"
command -v unshare >/dev/null || skip "no unshare"
cc_prog rec_chain rec_chain.c -O0 -g -fno-omit-frame-pointer -pthread \
	-Wl,--build-id
id=$(readelf -n "$TMP/rec_chain" | awk '/Build ID:/ { print $3 }')
[ -n "$id" ] || fail "no build id in the fixture"
mkdir -p "$TMP/ns"
# Something else at the same path outside, as a host's own file would be.
printf 'not the binary\n' >"$TMP/ns/inner"
unshare -m --propagation private sh -c '
	mount -t tmpfs none "$1" && cp "$2" "$1/inner" && exec "$1/inner" 2' \
	sh "$TMP/ns" "$TMP/rec_chain" >/dev/null &
pid=$!
for _ in 1 2 3 4 5 6 7 8 9 10; do
	grep -q "$TMP/ns/inner" "/proc/$pid/maps" 2>/dev/null && break
	sleep 0.1
done
grep -q "$TMP/ns/inner" "/proc/$pid/maps" || fail "the namespaced program did not start"
"$SP_RECORD" -q -p "$pid" -d 1 -o "$TMP/x.spool" 2>"$TMP/err" ||
	fail "sp-record: exit $?: $(cat "$TMP/err")"
wait
"$SP_DUMP" "$TMP/x.spool" >"$TMP/dump" || fail "sp-dump"
mid=$(awk -F'\t' -v p="$TMP/ns/inner" '$1 == "module" && $NF == p {
	print $2; exit }' "$TMP/dump")
[ -n "$mid" ] || fail "no module for the namespaced binary"
got=$(awk -F'\t' -v m="$mid" '$1 == "buildid" && $2 == m { print $3 }' \
	"$TMP/dump")
[ "$got" = "$id" ] || fail "build id '$got', not the binary's $id"

# The process is gone, its file too: names come by build id.
dir=$(printf '%s' "$id" | cut -c1-2) rest=$(printf '%s' "$id" | cut -c3-)
mkdir -p "$TMP/debug/.build-id/$dir"
cp "$TMP/rec_chain" "$TMP/debug/.build-id/$dir/$rest.debug"
pipeline "$SP_SYMBOLIZE" --debug-dir "$TMP/debug" \| "$SP_FOLD" \
	<"$TMP/dump" >"$TMP/folded" 2>"$TMP/err" || fail "pipeline: $(cat "$TMP/err")"
grep -q ';main;run;chain_a;chain_b;chain_c;spin ' "$TMP/folded" ||
	fail "not named by build id: $(sort -t' ' -k2n "$TMP/folded" | tail -3)"
exit 0

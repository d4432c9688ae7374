#!/bin/sh
# Issue 29: a binary that exists only in a private mount namespace (a
# container, as far as its files go), launched under -f (or found by -a),
# is named once the namespace is gone: sp-record keeps its file by build
# id in the build-id tree under the symbol cache's directory (0700
# directories, a 0600 file), where sp-symbolize looks without being
# told, and the summary says so; sp-archive bundles it from there.
# --no-capture keeps nothing (address names, as before); --capture-dir
# puts the tree elsewhere, for --debug-dir.
. "$(dirname "$0")/lib.sh"
need_perf
[ "$(id -u)" = 0 ] || skip "needs root for a mount namespace"
command -v unshare >/dev/null || skip "no unshare"
cc_prog rec_chain rec_chain.c -O0 -g -fno-omit-frame-pointer -pthread \
	-Wl,--build-id
id=$(readelf -n "$TMP/rec_chain" | awk '/Build ID:/ { print $3 }')
[ -n "$id" ] || fail "no build id in the fixture"
rel=.build-id/$(echo "$id" | cut -c1-2)/$(echo "$id" | cut -c3-)
mkdir "$TMP/ns"

# record NAME [OPTIONS]: sp-record -f of the namespaced program, with
# XDG_CACHE_HOME=$TMP/NAME, into $TMP/NAME.spool.
record() {
	_n=$1
	shift
	env XDG_CACHE_HOME="$TMP/$_n" "$SP_RECORD" -q -f "$@" \
		-o "$TMP/$_n.spool" -- unshare -m --propagation private sh -c '
		mount -t tmpfs none "$1" && cp "$2" "$1/inner" &&
		exec "$1/inner" 0.3c' sh "$TMP/ns" "$TMP/rec_chain" \
		>/dev/null 2>"$TMP/$_n.err"
	# rec_chain exits 7, and sp-record passes that on.
	[ $? -eq 7 ] || fail "$_n: sp-record: $(cat "$TMP/$_n.err")"
	[ -e "$TMP/ns/inner" ] && fail "$_n: the namespace's file is outside"
	return 0
}
# fold NAME [OPTIONS]: the folded stacks of $TMP/NAME.spool, symbolized
# with XDG_CACHE_HOME=$TMP/NAME.
fold() {
	_n=$1
	shift
	XDG_CACHE_HOME=$TMP/$_n
	pipeline "$SP_DUMP" "$TMP/$_n.spool" \| "$SP_SYMBOLIZE" "$@" \| \
		"$SP_FOLD" >"$TMP/$_n.folded" 2>"$TMP/$_n.ferr" ||
		fail "$_n: pipeline: $(cat "$TMP/$_n.ferr")"
}
named() {
	grep -q '^inner;.*;main;run;chain_a;chain_b;chain_c;spin ' "$TMP/$1.folded"
}

record x
tree=$TMP/x/stackpulse
grep -qx "sp-record: kept [0-9]* module files\{0,1\}, [0-9]* bytes, by build id in '$tree'" \
	"$TMP/x.err" || fail "no summary line: $(cat "$TMP/x.err")"
cmp "$TMP/rec_chain" "$tree/$rel" || fail "the kept file is not the binary"
for d in "$tree" "$tree/.build-id" "$(dirname "$tree/$rel")"; do
	[ "$(stat -c %a "$d")" = 700 ] || fail "'$d': mode $(stat -c %a "$d")"
done
[ "$(stat -c %a "$tree/$rel")" = 600 ] ||
	fail "the kept file's mode: $(stat -c %a "$tree/$rel")"
ls "$(dirname "$tree/$rel")" | grep -q tmp && fail "a temporary file is left"
fold x
named x || fail "not named from the kept file: $(sort -k2n "$TMP/x.folded" | tail -3)"
# ... with --no-cache too: the tree holds files, not cached results.
fold x --no-cache
named x || fail "--no-cache: $(sort -k2n "$TMP/x.folded" | tail -3)"

# sp-archive takes the namespace's binary from the kept tree (nothing
# is at its path), and the bundle names it with no tree at all.
XDG_CACHE_HOME=$TMP/x "$SP_ARCHIVE" -o "$TMP/x.tar.gz" "$TMP/x.spool" \
	2>"$TMP/arc.err" || fail "sp-archive: $(cat "$TMP/arc.err")"
grep -q "module files (1 of them kept by sp-record)" "$TMP/arc.err" ||
	fail "sp-archive did not take the kept file: $(cat "$TMP/arc.err")"
"$SP_ARCHIVE" -x "$TMP/x.tar.gz" -C "$TMP/ex" >/dev/null 2>"$TMP/arc.err" ||
	fail "sp-archive -x: $(cat "$TMP/arc.err")"
mkdir "$TMP/e"
cp "$TMP/ex/x.spool" "$TMP/e.spool"
fold e --debug-dir "$TMP/ex"
named e || fail "the bundle: $(sort -k2n "$TMP/e.folded" | tail -3)"

# -a: the process found as the whole machine is recorded, kept alike.
record s -a
cmp "$TMP/rec_chain" "$TMP/s/stackpulse/$rel" ||
	fail "-a: not kept: $(cat "$TMP/s.err")"
fold s
named s || fail "-a: $(sort -k2n "$TMP/s.folded" | tail -3)"

# --no-capture: nothing kept, frames keep address names.
record n --no-capture
[ -e "$TMP/n/stackpulse/.build-id" ] && fail "--no-capture kept files"
grep -q 'kept' "$TMP/n.err" && fail "--no-capture: $(cat "$TMP/n.err")"
fold n
named n && fail "--no-capture: named all the same"
grep -q "'$TMP/ns/inner': No such file or directory" "$TMP/n.ferr" ||
	fail "--no-capture: $(cat "$TMP/n.ferr")"

# --capture-dir: the tree where it says, read with --debug-dir.
record c --capture-dir "$TMP/tree"
cmp "$TMP/rec_chain" "$TMP/tree/$rel" || fail "--capture-dir: not kept there"
[ -e "$TMP/c/stackpulse/.build-id" ] && fail "--capture-dir: kept in the cache"
fold c --debug-dir "$TMP/tree"
named c || fail "--capture-dir: $(sort -k2n "$TMP/c.folded" | tail -3)"
exit 0

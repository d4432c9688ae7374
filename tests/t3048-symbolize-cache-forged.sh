#!/bin/sh
# A build id another file claims does not poison the symbol cache (issue
# 39 item 3).  A library linked with the build id of a genuine one, the
# same size, and its function renamed (pwn_leaf for sym_leaf) is
# symbolized first, with the cache; then the genuine library: its names
# must be those of --no-cache, and one warning names the build id and
# both files.  Twice: the forged file root's own (the same cache key:
# an entry of another file, not used), then another user's (a key of
# its own; the conflict still said).  A later run of the genuine file
# hits the cache without a word.  The old code printed pwn_leaf for the
# genuine library.
. "$(dirname "$0")/lib.sh"

T='	'
ID=5eed3048c0ffee00112233445566778899aabbcc
cc_prog genuine.so sym_elf.c -O2 -g -fPIC -shared -DSYM_LIB \
	-Wl,--build-id=0x$ID
cc_prog forged.so sym_elf.c -O2 -g -fPIC -shared -DSYM_LIB \
	-Wl,--build-id=0x$ID -Dsym_leaf=pwn_leaf
for f in genuine.so forged.so; do
	readelf -n "$TMP/$f" | grep -q "Build ID: $ID" ||
		skip "the linker did not take --build-id=0x$ID"
done
[ "$(stat -c %s "$TMP/genuine.so")" = "$(stat -c %s "$TMP/forged.so")" ] ||
	fail "the forged library's size differs: the test proves nothing"
unset SP_SYMBOLIZE_CACHE_SIZE
export SP_SYMBOLIZE_CACHE_STATS=1

# offset FILE SYMBOL: the file offset of SYMBOL's first byte, in hex.
offset() {
	_a=$(nm "$1" | awk -v s="$2" '$3 == s { print $1 }')
	[ -n "$_a" ] || fail "no $2 in $1"
	printf '%x\n' "$(file_offset "$1" "$_a")"
}
off=$(offset "$TMP/genuine.so" sym_leaf)
[ "$off" = "$(offset "$TMP/forged.so" pwn_leaf)" ] ||
	fail "pwn_leaf is not where sym_leaf is: the test proves nothing"

# stream FILE: one frame at sym_leaf's offset in a module mapping FILE.
stream() {
	printf 'spool\t1\t0\t1000\n'
	printf 'module\t0\t42\t0x7f0000000000\t0x7f0000100000\t0x0\t%s\tuser\t%s\n' \
		"$(stat -c %i "$1")" "$1"
	printf 'frame\t0\tuser\t0x%x\t0\t0x%s\n' $((0x7f0000000000 + 0x$off)) "$off"
}
stream "$TMP/genuine.so" >"$TMP/g.in"
stream "$TMP/forged.so" >"$TMP/f.in"

# run NAME IN [ARGS...]: sp-symbolize with the cache $TMP/$CACHE into
# NAME.out, NAME.err (without the stats lines) and NAME.stats.
run() {
	_n=$1 _in=$2
	shift 2
	XDG_CACHE_HOME=$TMP/$CACHE "$SP_SYMBOLIZE" "$@" "$_in" \
		>"$TMP/$_n.out" 2>"$TMP/$_n.all" ||
		fail "$_n: exit $?: $(cat "$TMP/$_n.all")"
	grep -v '^sp-symbolize: \(cache\|kept\): ' "$TMP/$_n.all" >"$TMP/$_n.err"
	sed -n 's/^sp-symbolize: cache: \([^;]*\);.*/\1/p' "$TMP/$_n.all" \
		>"$TMP/$_n.stats"
}
CACHE=none
run ref "$TMP/g.in" --no-cache
grep -q "${T}sym_leaf\$" "$TMP/ref.out" || fail "ref: $(cat "$TMP/ref.out")"
run fref "$TMP/f.in" --no-cache
grep -q "${T}pwn_leaf\$" "$TMP/fref.out" || fail "fref: $(cat "$TMP/fref.out")"

# attack CASE: the forged library, then the genuine one, in a fresh
# cache: the genuine names, one warning naming both files.
attack() {
	CACHE=$1
	run "$1-forged" "$TMP/f.in"
	cmp -s "$TMP/fref.out" "$TMP/$1-forged.out" ||
		fail "$1: the forged library's own names changed"
	[ -s "$TMP/$1-forged.err" ] &&
		fail "$1: forged run: $(cat "$TMP/$1-forged.err")"
	run "$1-genuine" "$TMP/g.in"
	grep -q pwn_leaf "$TMP/$1-genuine.out" &&
		fail "$1: the genuine library named by the forged one's cache entry"
	cmp -s "$TMP/ref.out" "$TMP/$1-genuine.out" ||
		fail "$1: output differs from --no-cache: $(cat "$TMP/$1-genuine.out")"
	one_error sp-symbolize "$TMP/$1-genuine.err"
	grep -q "'$TMP/genuine.so': build id $ID: the cache holds results of another file with this build id, '$TMP/forged.so': they are not used" \
		"$TMP/$1-genuine.err" ||
		fail "$1: warning: $(cat "$TMP/$1-genuine.err")"
	# The genuine results are cached now: a hit, nothing said.
	run "$1-again" "$TMP/g.in"
	cmp -s "$TMP/ref.out" "$TMP/$1-again.out" ||
		fail "$1: again: $(cat "$TMP/$1-again.out")"
	[ -s "$TMP/$1-again.err" ] && fail "$1: again: $(cat "$TMP/$1-again.err")"
	[ "$(cat "$TMP/$1-again.stats")" = \
	  "1 hits, 0 misses, 0 files opened, 0 cache files written" ] ||
		fail "$1: again: stats $(cat "$TMP/$1-again.stats")"
}

# 1. Both files root's (the running user's): one cache key.
attack same

# 2. The forged library another user's.
[ "$(id -u)" = 0 ] || {
	[ "${CI:-}" = true ] && fail "CI=true runs as root: id -u is $(id -u)"
	skip "creating a second user to own the forged library needs root"
}
command -v useradd >/dev/null && command -v userdel >/dev/null ||
	fail "no useradd or userdel"
U=sp3048u$$
useradd -M -N -s /bin/false "$U" 2>"$TMP/useradd.err" ||
	fail "useradd $U: $(cat "$TMP/useradd.err")"
trap 'userdel "$U" 2>/dev/null; rm -rf "$TMP"' EXIT
chown "$U" "$TMP/forged.so" || fail "chown $U"
attack owner
# The other user's file is kept apart: two cache files for the build id.
[ "$(ls "$TMP/owner/stackpulse" | grep -c "^$ID-")" -eq 2 ] ||
	fail "owner: $(ls "$TMP/owner/stackpulse")"
exit 0

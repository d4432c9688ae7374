#!/bin/sh
# The symbol cache trusts and removes only what is its own (issue 24
# items 7 and 8): a cache directory that is a symbolic link (to a
# directory of other files), another user's or writable by others is not
# used (one warning, output as with --no-cache) and the files there
# stay; a file not named as the cache names it survives eviction; an
# entry resealed by another user (its checksum is plain XXH3) is not
# believed.  The old code evicted the linked directory's files and
# printed the planted name.
. "$(dirname "$0")/lib.sh"

T='	'
cc_prog pie sym_elf.c -O2 -g -fPIE -pie
cc_prog reseal sym_reseal.c -lxxhash
readelf -n "$TMP/pie" | grep -q 'Build ID' ||
	skip "the toolchain writes no build ids"
unset SP_SYMBOLIZE_CACHE_SIZE SP_SYMBOLIZE_CACHE_STATS

addr=$(nm "$TMP/pie" | awk '$3 == "sym_leaf" { print $1 }')
off=$(readelf -lW "$TMP/pie" | while read -r type o va _pa sz _rest; do
	[ "$type" = LOAD ] || continue
	if [ $((0x$addr)) -ge $((va)) ] && [ $((0x$addr)) -lt $((va + sz)) ]; then
		printf '%x\n' $((0x$addr - va + o))
	fi
done)
[ -n "$off" ] || fail "no segment holds sym_leaf"
{
	printf 'spool\t1\t0\t1000\n'
	printf 'module\t0\t42\t0x7f0000000000\t0x7f0000100000\t0x0\t%s\tuser\t%s\n' \
		"$(stat -c %i "$TMP/pie")" "$TMP/pie"
	printf 'frame\t0\tuser\t0x%x\t0\t0x%s\n' $((0x7f0000000000 + 0x$off)) "$off"
} >"$TMP/in"
"$SP_SYMBOLIZE" --no-cache "$TMP/in" >"$TMP/ref.out" ||
	fail "--no-cache run failed"
grep -q "${T}sym_leaf\$" "$TMP/ref.out" || fail "ref: $(cat "$TMP/ref.out")"

# run NAME ARGS...: sp-symbolize with XDG_CACHE_HOME=$TMP/NAME, exit 0,
# the output of --no-cache.
run() {
	_n=$1
	shift
	XDG_CACHE_HOME=$TMP/$_n "$SP_SYMBOLIZE" "$@" "$TMP/in" \
		>"$TMP/$_n.out" 2>"$TMP/$_n.err" ||
		fail "$_n: exit $?: $(cat "$TMP/$_n.err")"
	cmp -s "$TMP/ref.out" "$TMP/$_n.out" ||
		fail "$_n: output differs: $(cat "$TMP/$_n.out")"
}
# others DIR: three old files that are not the cache's.
others() {
	mkdir -p "$1"
	for f in photo.jpg notes.txt 0123456789abcdef-0123456789abcdef.bak; do
		head -c 100000 /dev/zero >"$1/$f"
		touch -d 2001-01-01 "$1/$f"
	done
}
# kept DIR: the three are still there.
kept() {
	for f in photo.jpg notes.txt 0123456789abcdef-0123456789abcdef.bak; do
		[ "$(stat -c %s "$1/$f" 2>/dev/null)" = 100000 ] ||
			fail "'$1/$f' was removed: $(ls -l "$1")"
	done
}

# 1. The cache directory a link to a directory of other files.
others "$TMP/other"
mkdir "$TMP/link"
ln -s "$TMP/other" "$TMP/link/stackpulse"
run link --cache-size 1K
one_error sp-symbolize "$TMP/link.err"
grep -q "stackpulse': a symbolic link; the symbol cache is not used (as with --no-cache)" \
	"$TMP/link.err" || fail "link: $(cat "$TMP/link.err")"
kept "$TMP/other"
[ "$(ls "$TMP/other" | wc -l)" -eq 3 ] || fail "link: wrote $(ls "$TMP/other")"

# 2. Foreign files in a real cache directory outlive eviction.
mkdir -p "$TMP/real/stackpulse"
chmod 700 "$TMP/real/stackpulse"
others "$TMP/real/stackpulse"
run real --cache-size 1K
[ -s "$TMP/real.err" ] && fail "real: $(cat "$TMP/real.err")"
kept "$TMP/real/stackpulse"

# 3. A directory others may write.
mkdir -p "$TMP/shared/stackpulse"
chmod 777 "$TMP/shared/stackpulse"
run shared
grep -q "writable by others than its owner; the symbol cache is not used" \
	"$TMP/shared.err" || fail "shared: $(cat "$TMP/shared.err")"
[ -z "$(ls "$TMP/shared/stackpulse")" ] || fail "shared: a file written"

# 4. An entry resealed with another name: believed when it is this
# user's own (it is its cache), not when another user owns it.
run plant
C=$TMP/plant/stackpulse
entry=$(ls "$C" | grep -- '-[0-9a-f]\{16\}$') || fail "plant: no entry"
"$TMP/reseal" "$C/$entry" sym_leaf pwn_leaf || fail "cannot reseal"
XDG_CACHE_HOME=$TMP/plant "$SP_SYMBOLIZE" "$TMP/in" >"$TMP/mine.out" 2>&1
grep -q "${T}pwn_leaf\$" "$TMP/mine.out" ||
	fail "the reseal is not a valid cache file: $(cat "$TMP/mine.out")"
if [ "$(id -u)" = 0 ] && chown nobody "$C/$entry" 2>/dev/null; then
	run plant
	grep -q "pwn_leaf" "$TMP/plant.out" && fail "a planted name printed"
	grep -q "not a regular file of this user that only its owner may write: ignored" \
		"$TMP/plant.err" || fail "plant: $(cat "$TMP/plant.err")"
	# The whole directory another user's: not used at all.
	"$TMP/reseal" "$C/$entry" sym_leaf pwn_leaf || fail "cannot reseal"
	chown -R nobody "$C"
	run plant
	grep -q "not owned by this user; the symbol cache is not used" \
		"$TMP/plant.err" || fail "plant dir: $(cat "$TMP/plant.err")"
fi
exit 0

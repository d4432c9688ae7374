#!/bin/sh
# Issue 29: the build-id tree sp-record keeps module files in is bounded
# (--capture-max-tree): a recording that kept files removes the tree's
# least recently used entries past the bound, never one it used itself,
# and only the tree's own entries (regular files named by build id): a
# symbolic link named like one, its target and a file of another name
# stay, however old.  Below the bound nothing goes.
. "$(dirname "$0")/lib.sh"
need_perf
cc_prog rec_cpuspin rec_cpuspin.c -O0 -g -Wl,--build-id
id=$(readelf -n "$TMP/rec_cpuspin" | awk '/Build ID:/ { print $3 }')
[ -n "$id" ] || fail "no build id in the fixture"
mine=.build-id/$(echo "$id" | cut -c1-2)/$(echo "$id" | cut -c3-)

# tree DIR: a tree with two old entries of 64 KiB and old non-entries.
tree() {
	mkdir -p "$1/.build-id/ab" "$1/.build-id/cd" || fail "mkdir $1"
	head -c 65536 /dev/zero >"$1/.build-id/ab/0001"
	head -c 65536 /dev/zero >"$1/.build-id/cd/0002"
	head -c 65536 /dev/zero >"$1/.build-id/ab/notes"
	echo outside >"$TMP/outside"
	ln -s "$TMP/outside" "$1/.build-id/ab/0003"
	touch -h -d '3 days ago' "$1/.build-id/ab/0003" "$1/.build-id/ab/notes" \
		"$TMP/outside"
	touch -d '2 days ago' "$1/.build-id/ab/0001"
	touch -d '1 day ago' "$1/.build-id/cd/0002"
}

# record DIR BOUND: sp-record --capture all into DIR's tree.
record() {
	"$SP_RECORD" -q --capture all --capture-dir "$1" \
		--capture-max-tree "$2" -o "$1.spool" -- "$TMP/rec_cpuspin" \
		0.1c 2>"$1.err" || fail "sp-record exited $?: $(cat "$1.err")"
}

# Past the bound: the old entries go, this recording's files stay.
tree "$TMP/small"
record "$TMP/small" 1
grep -q '^sp-record: removed 2 least recently used module files, 131072 bytes' \
	"$TMP/small.err" || fail "no removal said: $(cat "$TMP/small.err")"
for f in ab/0001 cd/0002; do
	[ -e "$TMP/small/.build-id/$f" ] && fail "old entry $f was kept"
done
[ -f "$TMP/small/$mine" ] || fail "this recording's own file was removed"
[ -L "$TMP/small/.build-id/ab/0003" ] || fail "a link named like an entry went"
[ -f "$TMP/outside" ] || fail "the link's target went"
[ -f "$TMP/small/.build-id/ab/notes" ] || fail "a file of another name went"

# Within the bound: nothing goes.
tree "$TMP/big"
record "$TMP/big" 1G
grep -q 'removed' "$TMP/big.err" && fail "removed within the bound"
[ -f "$TMP/big/.build-id/ab/0001" ] || fail "an entry went within the bound"
exit 0

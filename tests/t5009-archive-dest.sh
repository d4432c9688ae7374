#!/bin/sh
# sp-archive -x and a hostile DIR (issue 39, item 4): -x may run as root
# on a DIR another user can change.  It extracts only into a folder
# reached through folders and links that only the running user or root
# can change (a sticky folder such as /tmp is one), and refuses a DIR
# writable by everyone, another user's DIR or a folder of theirs on the
# way, and a link of theirs on the way, writing nothing there.  Inside
# DIR, a .build-id that is a link is refused rather than followed, and a
# link at a member's name is replaced, never followed.
. "$(dirname "$0")/lib.sh"
src=$TMP/src
mkdir "$src"
${CC:-cc} -shared -fPIC -Wl,--build-id -o "$TMP/lib.so" \
	"$PROGRAMS/arc_lib.c" || fail "cannot build arc_lib.c"
id=$(readelf -n "$TMP/lib.so" | awk '$1 == "Build" { print $3 }')
rel=.build-id/$(echo "$id" | cut -c1-2)/$(echo "$id" | cut -c3-)
[ -n "$id" ] || fail "no build id in lib.so"
sum() {
	sha256sum <"$1" | cut -d' ' -f1
}
echo "a spool" >"$src/x.spool"
mkdir -p "$src/${rel%/*}" && cp "$TMP/lib.so" "$src/$rel" || fail "cp"
printf 'sp-archive\t1\nspool\t%s\tx.spool\t/x.spool\nelf\t%s\t%s\t/x.so\n' \
	"$(sum "$src/x.spool")" "$(sum "$src/$rel")" "$rel" >"$src/MANIFEST"
(cd "$src" && tar -czf "$TMP/b.tgz" MANIFEST x.spool "$rel") ||
	fail "cannot make the bundle"

# extracted DIR: -x puts the bundle's three files in DIR.
extracted() {
	"$SP_ARCHIVE" -x "$TMP/b.tgz" -C "$1" >"$TMP/out" 2>"$TMP/err" ||
		fail "-C $1: exit $?: $(cat "$TMP/err")"
	for m in MANIFEST x.spool "$rel"; do
		[ -f "$1/$m" ] && [ ! -L "$1/$m" ] && cmp -s "$src/$m" "$1/$m" ||
			fail "-C $1: $m is not the bundle's"
	done
}
# refused DIR SAYS: -x into DIR is refused in one line saying SAYS.
refused() {
	"$SP_ARCHIVE" -x "$TMP/b.tgz" -C "$1" >"$TMP/out" 2>"$TMP/err"
	_rc=$?
	[ $_rc -eq 1 ] || fail "-C $1: exit $_rc, not refused: $(cat "$TMP/err")"
	one_error sp-archive "$TMP/err"
	grep -qF -- "$2" "$TMP/err" || fail "-C $1: $(cat "$TMP/err")"
	[ -s "$TMP/out" ] && fail "-C $1: printed a command"
	return 0
}
# empty DIR: nothing was written in DIR.
empty() {
	[ -z "$(ls -A "$1")" ] || fail "$1: written in: $(ls -A "$1")"
}

extracted "$TMP/plain"
# A sticky folder writable by everyone, as /tmp: what is the user's in
# it cannot be renamed by others.
mkdir "$TMP/pub" && chmod 1777 "$TMP/pub" || fail "mkdir pub"
extracted "$TMP/pub"
# Writable by everyone, not sticky: anyone could put a link at .build-id.
mkdir "$TMP/open" && chmod 777 "$TMP/open" || fail "mkdir open"
refused "$TMP/open" "not extracted into '$TMP/open': '$TMP/open' is writable by everyone"
empty "$TMP/open"
refused "$TMP/open/sub" "'$TMP/open' is writable by everyone"
empty "$TMP/open"

# .build-id in DIR a link (to a folder of the user's, even): refused, not
# followed; x.spool in DIR a link to a folder: replaced, not followed.
mkdir "$TMP/linked" "$TMP/elsewhere" || fail "mkdir"
ln -s "$TMP/elsewhere" "$TMP/linked/.build-id"
refused "$TMP/linked" "'$TMP/linked/.build-id' is a symbolic link"
empty "$TMP/elsewhere"
rm "$TMP/linked/.build-id"
ln -s "$TMP/elsewhere" "$TMP/linked/x.spool"
extracted "$TMP/linked"
empty "$TMP/elsewhere"

# Another user's: DIR, a folder on the way, a link on the way, a
# .build-id in a sticky DIR.
if [ "$(id -u)" = 0 ]; then
	other=65534
	mkdir "$TMP/theirs" && chown "$other" "$TMP/theirs" || fail "chown"
	refused "$TMP/theirs" "'$TMP/theirs' is a folder of uid $other, not yours or root's"
	empty "$TMP/theirs"
	refused "$TMP/theirs/x" "'$TMP/theirs' is a folder of uid $other"
	empty "$TMP/theirs"
	ln -s "$TMP/elsewhere" "$TMP/their-link" &&
		chown -h "$other" "$TMP/their-link" || fail "chown -h"
	refused "$TMP/their-link/x" "'$TMP/their-link' is a symbolic link of uid $other"
	empty "$TMP/elsewhere"
	mkdir "$TMP/pub2" && chmod 1777 "$TMP/pub2" &&
		mkdir "$TMP/pub2/.build-id" &&
		chown "$other" "$TMP/pub2/.build-id" || fail "mkdir pub2"
	refused "$TMP/pub2" "'$TMP/pub2/.build-id' is a folder of uid $other"
	empty "$TMP/pub2/.build-id"
fi
# A link of the user's own on the way is followed.
ln -s "$TMP/elsewhere" "$TMP/my-link"
extracted "$TMP/my-link/x"
exit 0

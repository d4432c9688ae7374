#!/bin/sh
# A module whose file is gone resolves from a build-id tree under
# --debug-dir (.build-id/xx/rest, the ELF, with rest.debug, its separate
# debug file): the stripped program's static function is named from the
# debug file.  A tree holding only the debug file cannot stand in for
# the program (no code bytes); a file filed under the wrong build id is
# refused with a warning; a file at the recorded path rewritten with
# another build (same inode) gives way to the tree; a module file's copy
# kept as rest.debug in one --debug-dir does not hide a real debug file
# in the next.  The vdso of another kernel (a host record with another
# release, a build id this host's vdso does not have) is named from the
# tree too.
. "$(dirname "$0")/lib.sh"
command -v objcopy >/dev/null || skip "no objcopy"

mkdir "$TMP/app"
cc_prog full sym_elf.c -O2 -g
id=$(readelf -n "$TMP/full" | sed -n 's/.*Build ID: //p')
[ -n "$id" ] || skip "the compiler gives no build ids"
objcopy --only-keep-debug "$TMP/full" "$TMP/full.debug" &&
	strip -s -o "$TMP/stripped" "$TMP/full" || fail "cannot strip"
prog=$TMP/app/prog
rel=.build-id/$(echo "$id" | cut -c1-2)/$(echo "$id" | cut -c3-)

# sym_local's file offset: a frame in its body (offset 1).
va=$(nm "$TMP/full" | awk '$3 == "sym_local" { print $1 }')
off=$(file_offset "$TMP/full" "$va")
[ -n "$off" ] || fail "no offset for sym_local"
# stream INODE: one frame of $prog at sym_local+1, with the build id.
stream() {
	printf 'spool\t1\t0\t1000\n'
	printf 'module\t0\t42\t0x7f0000000000\t0x7f0000100000\t0x0\t%s\tuser\t%s\n' \
		"$1" "$prog"
	printf 'buildid\t0\t%s\n' "$id"
	printf 'frame\t0\tuser\t0x%x\t0\t0x%x\n' $((0x7f0000000000 + off + 1)) \
		$((off + 1))
}
# names [OPTIONS]: symbolizes $TMP/in; prints the names of frame 0.
names() {
	"$SP_SYMBOLIZE" --no-cache "$@" "$TMP/in" >"$TMP/out" 2>"$TMP/err" ||
		fail "exit $?: $(cat "$TMP/err")"
	awk -F'\t' '$1 == "symbol" { print $8 }' "$TMP/out"
}
stream 0 >"$TMP/in"

# The tree holds the stripped program and its debug file.
mkdir -p "$TMP/tree/${rel%/*}"
cp "$TMP/stripped" "$TMP/tree/$rel" && cp "$TMP/full.debug" "$TMP/tree/$rel.debug"
[ "$(names --debug-dir "$TMP/tree")" = sym_local ] ||
	fail "not named from the tree: $(cat "$TMP/out" "$TMP/err")"
[ -s "$TMP/err" ] && fail "unexpected stderr: $(cat "$TMP/err")"
awk -F'\t' '$1 == "symbol" { print $7 }' "$TMP/out" | grep -q 'sym_elf.c:[0-9]' ||
	fail "no line from the debug file: $(cat "$TMP/out")"

# The debug file alone: no code to resolve against, address names.
mv "$TMP/tree/$rel" "$TMP/rest"
[ "$(names --debug-dir "$TMP/tree")" = "prog+0x$(printf %x $((off + 1)))" ] ||
	fail "debug file alone: $(cat "$TMP/out")"
grep -q "^sp-symbolize: '$prog': No such file or directory; frames keep their address names\$" \
	"$TMP/err" || fail "debug file alone: $(cat "$TMP/err")"
mv "$TMP/rest" "$TMP/tree/$rel"

# Another build filed under the recorded build id: refused, said so.
cc_prog other sym_elf.c -O0
other=$(readelf -n "$TMP/other" | sed -n 's/.*Build ID: //p')
mkdir -p "$TMP/bad/${rel%/*}"
cp "$TMP/other" "$TMP/bad/$rel"
case $(names --debug-dir "$TMP/bad") in
prog+0x*) ;;
*) fail "wrong build id used: $(cat "$TMP/out")" ;;
esac
grep -q "^sp-symbolize: '$TMP/bad/$rel': build id $other is not the $id its name says; not used\$" \
	"$TMP/err" || fail "wrong build id: $(cat "$TMP/err")"
grep -q "'$prog': No such file or directory" "$TMP/err" ||
	fail "wrong build id: $(cat "$TMP/err")"
# ... and the next --debug-dir's right one is taken.
[ "$(names --debug-dir "$TMP/bad" --debug-dir "$TMP/tree")" = sym_local ] ||
	fail "not named from the second tree: $(cat "$TMP/out" "$TMP/err")"

# The recorded path rewritten in place with another build (the same
# inode): the tree's file is the recorded one.
cp "$TMP/stripped" "$prog"
stream "$(stat -c %i "$prog")" >"$TMP/in"
cat "$TMP/other" >"$prog"
[ "$(names --debug-dir "$TMP/tree")" = sym_local ] ||
	fail "rewritten: $(cat "$TMP/out" "$TMP/err")"

# The recorded file present and stripped: a copy of the program kept as
# rest.debug (with .symtab, no DWARF) in the first --debug-dir does not
# hide the real debug file (with DWARF: a line) in the second.
cp "$TMP/stripped" "$prog"
stream "$(stat -c %i "$prog")" >"$TMP/in"
mkdir -p "$TMP/copy/${rel%/*}"
strip -g -o "$TMP/copy/$rel.debug" "$TMP/full" || fail "strip -g"
rm "$TMP/tree/$rel"
[ "$(names --debug-dir "$TMP/copy" --debug-dir "$TMP/tree")" = sym_local ] ||
	fail "host file: $(cat "$TMP/out" "$TMP/err")"
awk -F'\t' '$1 == "symbol" { print $7 }' "$TMP/out" | grep -q 'sym_elf.c:[0-9]' ||
	fail "the copy hid the debug file: $(cat "$TMP/out")"
# With no real debug file the copy's symbol table still names it.
[ "$(names --debug-dir "$TMP/copy")" = sym_local ] ||
	fail "the copy alone: $(cat "$TMP/out" "$TMP/err")"

# Another kernel's vdso: this host's, copied, with its build id changed.
command -v python3 >/dev/null || { echo "no python3: vdso not checked" >&2; exit 0; }
vdso_copy "$TMP/vdso.so" || fail "cannot copy the vdso"
hid=$(readelf -n "$TMP/vdso.so" | sed -n 's/.*Build ID: //p')
[ -n "$hid" ] || { echo "the vdso has no build id: not checked" >&2; exit 0; }
vid=$(echo "$hid" | sed 's/^\(.\)./\1f/')
[ "$vid" = "$hid" ] && vid=$(echo "$hid" | sed 's/^\(.\)./\1e/')
python3 - "$TMP/vdso.so" "$hid" "$vid" <<'PY' || fail "cannot change the build id"
import sys
b = open(sys.argv[1], "rb").read()
old, new = bytes.fromhex(sys.argv[2]), bytes.fromhex(sys.argv[3])
assert b.count(old) == 1
open(sys.argv[1], "wb").write(b.replace(old, new))
PY
va=$(nm -D "$TMP/vdso.so" | awk '$3 ~ /^(__vdso_)?clock_gettime(@|$)/ { print $1; exit }')
[ -n "$va" ] || { echo "no clock_gettime in the vdso: not checked" >&2; exit 0; }
voff=$(file_offset "$TMP/vdso.so" "$va")
# vstream RELEASE ID: a frame at clock_gettime+1 of a vdso of build id
# ID, recorded on a kernel RELEASE.
vstream() {
	printf 'spool\t1\t0\t1000\n'
	printf 'host\trelease=%s\tbootid=00000000-0000-0000-0000-000000000000\n' "$1"
	printf 'module\t0\t42\t0x7fff00000000\t0x7fff00002000\t0x0\t0\tuser\t[vdso]\n'
	printf 'buildid\t0\t%s\n' "$2"
	printf 'frame\t0\tuser\t0x%x\t0\t0x%x\n' $((0x7fff00000000 + voff + 1)) \
		$((voff + 1))
}
# This host's vdso names it so, whatever the release says (the build id
# matches)...
vstream 0.0.0-another "$hid" >"$TMP/in"
here=$(names)
echo "$here" | grep -Eqx '(__vdso_)?clock_gettime' ||
	fail "this host's vdso: $(cat "$TMP/out" "$TMP/err")"
# ... another kernel's keeps an address name without a tree, and is named
# as this host's from one.
vstream 0.0.0-another "$vid" >"$TMP/in"
case $(names) in
'[vdso]+0x'*) ;;
*) fail "another kernel's vdso named from this host's: $(cat "$TMP/out")" ;;
esac
vrel=.build-id/$(echo "$vid" | cut -c1-2)/$(echo "$vid" | cut -c3-)
mkdir -p "$TMP/vtree/${vrel%/*}" && cp "$TMP/vdso.so" "$TMP/vtree/$vrel"
[ "$(names --debug-dir "$TMP/vtree")" = "$here" ] ||
	fail "the vdso not named from the tree: $(cat "$TMP/out" "$TMP/err")"
[ -s "$TMP/err" ] && fail "vdso: unexpected stderr: $(cat "$TMP/err")"
exit 0

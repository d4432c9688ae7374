#!/bin/sh
# Frames of a stripped file without a debug file keep their address
# names, and sp-symbolize's summary says so once per file with what
# would help: --debug-dir, or the -dbgsym package of a file dpkg owns.
# A debug file under --debug-dir silences it; a warm cache still tells;
# more than ten files give ten lines and "and N more".
. "$(dirname "$0")/lib.sh"
command -v strip >/dev/null || skip "no strip"
command -v objcopy >/dev/null || skip "no objcopy"

cc_prog libfull.so sym_unnamed_lib.c -O1 -g -fPIC -shared -Wl,--build-id
cp "$TMP/libfull.so" "$TMP/libunnamed.so"
strip "$TMP/libunnamed.so" || fail "strip failed"
hidden=$(nm "$TMP/libfull.so" | awk '$3 == "unnamed_hidden" { print $1 }')
[ -n "$hidden" ] || fail "no unnamed_hidden in libfull.so"
nm -D "$TMP/libunnamed.so" | grep -q unnamed_hidden &&
	fail "unnamed_hidden is a dynamic symbol"

# stream FILE...: one module per FILE, one frame each at unnamed_hidden+4
# (text is mapped at file offset 0, so the offset is the address).
stream() {
	printf 'spool\t1\t0\t1000\n'
	id=0
	for f in "$@"; do
		base=$((0x7f0000000000 + id * 0x100000))
		printf 'module\t%d\t42\t0x%x\t0x%x\t0x0\t%s\tuser\t%s\n' $id \
			$base $((base + 0x100000)) "$(stat -c %i "$f")" "$f"
		printf 'frame\t%d\tuser\t0x%x\t%d\t0x%x\n' $id \
			$((base + 0x$hidden + 4)) $id $((0x$hidden + 4))
		id=$((id + 1))
	done
}

hint="sp-symbolize: '$TMP/libunnamed.so': 1 frame without names: stripped, and no debug file found; give --debug-dir DIR with its debug file"
stream "$TMP/libunnamed.so" >"$TMP/one.in"
"$SP_SYMBOLIZE" --no-cache "$TMP/one.in" >"$TMP/out" 2>"$TMP/err" ||
	fail "exit $?: $(cat "$TMP/err")"
grep -q "	u	.*libunnamed.so+0x" "$TMP/out" ||
	fail "not a fallback name: $(grep '^symbol' "$TMP/out")"
echo "$hint" | diff -u - "$TMP/err" || fail "hint"

# The debug file, found by build id under --debug-dir: named, no hint.
id=$(readelf -n "$TMP/libunnamed.so" | sed -n 's/.*Build ID: //p')
[ -n "$id" ] || fail "no build id"
mkdir -p "$TMP/dbg/.build-id/$(echo "$id" | cut -c1-2)"
objcopy --only-keep-debug "$TMP/libfull.so" \
	"$TMP/dbg/.build-id/$(echo "$id" | cut -c1-2)/$(echo "$id" | cut -c3-).debug"
"$SP_SYMBOLIZE" --no-cache --debug-dir "$TMP/dbg" "$TMP/one.in" \
	>"$TMP/out" 2>"$TMP/err" || fail "exit $?: $(cat "$TMP/err")"
grep -q "	unnamed_hidden\$" "$TMP/out" ||
	fail "debug file not used: $(grep '^symbol' "$TMP/out")"
[ -s "$TMP/err" ] && fail "a hint with the debug file: $(cat "$TMP/err")"

# A warm cache answers without the file, and still says it.
export XDG_CACHE_HOME="$TMP/xdg"
for run in cold warm; do
	"$SP_SYMBOLIZE" "$TMP/one.in" >"$TMP/out" 2>"$TMP/err" ||
		fail "$run: exit $?: $(cat "$TMP/err")"
	echo "$hint" | diff -u - "$TMP/err" || fail "$run: hint"
done

# Twelve files: ten lines, then the rest counted.
set --
for i in 1 2 3 4 5 6 7 8 9 10 11 12; do
	cp "$TMP/libunnamed.so" "$TMP/lib$i.so"
	set -- "$@" "$TMP/lib$i.so"
done
stream "$@" >"$TMP/many.in"
"$SP_SYMBOLIZE" --no-cache "$TMP/many.in" >/dev/null 2>"$TMP/err" ||
	fail "exit $?: $(cat "$TMP/err")"
[ "$(grep -c 'without names: stripped' "$TMP/err")" -eq 10 ] ||
	fail "not ten lines: $(cat "$TMP/err")"
grep -q "^sp-symbolize: '$TMP/lib10.so': 1 frame" "$TMP/err" ||
	fail "not in order: $(cat "$TMP/err")"
tail -n 1 "$TMP/err" | grep -qx 'sp-symbolize: and 2 more stripped files without debug files' ||
	fail "no count of the rest: $(tail -n 1 "$TMP/err")"

# A library dpkg owns gets its -dbgsym package named, as dpkg -S names
# it; only where dpkg owns a stripped one without its debug file.
command -v dpkg >/dev/null || { echo "no dpkg: package names not checked"; exit 0; }
for lib in $(ldd "$SP_SYMBOLIZE" | awk '$1 ~ /^lib(lzma|z)\.so/ { print $3 }'); do
	real=$(readlink -f "$lib")
	pkg=$( { dpkg -S "$real" || dpkg -S "$lib"; } 2>/dev/null |
		sed -n '1s/[:,].*//p')
	[ -n "$pkg" ] || continue
	readelf -SW "$real" | grep -Eq '\.symtab|\.gnu_debugdata|\.debug_info' &&
		continue
	lid=$(readelf -n "$real" | sed -n 's/.*Build ID: //p')
	[ -e "/usr/lib/debug/.build-id/$(echo "$lid" | cut -c1-2)/$(echo "$lid" | cut -c3-).debug" ] &&
		continue
	{
		printf 'spool\t1\t0\t1000\n'
		printf 'module\t0\t42\t0x7f0000000000\t0x7f0000100000\t0x0\t%s\tuser\t%s\n' \
			"$(stat -c %i "$real")" "$real"
		printf 'frame\t0\tuser\t0x7f0000000010\t0\t0x10\n'
	} >"$TMP/sys.in"
	"$SP_SYMBOLIZE" --no-cache "$TMP/sys.in" >/dev/null 2>"$TMP/err" ||
		fail "$real: exit $?: $(cat "$TMP/err")"
	grep -qF "sp-symbolize: '$real': 1 frame without names: stripped, and no debug file found; install $pkg-dbgsym (the debian-debug archive must be in the apt sources) or give --debug-dir DIR" \
		"$TMP/err" || fail "$real ($pkg): $(cat "$TMP/err")"
	exit 0
done
echo "no stripped library of dpkg's without its debug file: package names not checked"
exit 0

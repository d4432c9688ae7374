#!/bin/sh
# sp-symbolize on hostile files (issue 11 items 4, 7, 8 and 9): a FIFO
# where it looks for a module, a debug file by build id, a .gnu_debuglink
# target or a perf map never blocks it; a 50 GiB debuglink candidate is
# not read for its CRC; a perf map that is a symlink or another user's
# file is not read; and a module path's control bytes reach stderr
# escaped; an ELF whose e_phnum is 0xffff is said to be corrupt (item
# 10).  Every run is under timeout: the old code hung here.
. "$(dirname "$0")/lib.sh"

T='	'
ESC=$(printf '\033')
cc_prog prog sym_elf.c -O2 -g -Wl,--build-id=none

# run NAME ARGS... <STREAM: sp-symbolize must finish within 20 s.
run() {
	_n=$1
	shift
	timeout 20 "$SP_SYMBOLIZE" "$@" >"$TMP/$_n.out" 2>"$TMP/$_n.err"
	_rc=$?
	[ $_rc -eq 124 ] && fail "$_n: sp-symbolize hung (killed after 20 s)"
	[ $_rc -eq 0 ] || fail "$_n: exit $_rc: $(cat "$TMP/$_n.err")"
}

# stream PATH: one module mapping PATH and one frame in it.
stream() {
	printf 'spool\t1\t0\t1000\n'
	printf 'module\t0\t%d\t0x7f0000000000\t0x7f0000100000\t0x0\t0\tuser\t%s\n' \
		"${PID:-42}" "$1"
	printf 'frame\t0\tuser\t0x7f0000001100\t0\t0x1100\n'
}

# 1. A FIFO at a module's path.
mkfifo "$TMP/fifo.so"
stream "$TMP/fifo.so" >"$TMP/in"
run module "$TMP/in"
grep -q "fifo.so': not a regular file" "$TMP/module.err" ||
	fail "module: $(cat "$TMP/module.err")"
grep -q "${T}fifo.so+0x1100\$" "$TMP/module.out" || fail "module: fallback"

# 2. A FIFO where --debug-dir holds the debug file of a build id.
cc_prog withid sym_elf.c -O2 -g -Wl,--build-id
id=$(readelf -n "$TMP/withid" | sed -n 's/.*Build ID: //p')
[ -n "$id" ] || skip "the toolchain writes no build ids"
mkdir -p "$TMP/dbg/.build-id/$(echo "$id" | cut -c1-2)"
mkfifo "$TMP/dbg/.build-id/$(echo "$id" | cut -c1-2)/$(echo "$id" | cut -c3-).debug"
stream "$TMP/withid" >"$TMP/in"
run buildid --debug-dir "$TMP/dbg" "$TMP/in"

# 3. A FIFO as the .gnu_debuglink target, next to the file.
cp "$TMP/prog" "$TMP/linked"
objcopy --only-keep-debug "$TMP/prog" "$TMP/linked.debug"
objcopy --strip-debug --add-gnu-debuglink="$TMP/linked.debug" "$TMP/linked"
rm "$TMP/linked.debug"
mkfifo "$TMP/linked.debug"
stream "$TMP/linked" >"$TMP/in"
run debuglink "$TMP/in"

# 4. A 50 GiB (sparse) debuglink candidate: an ELF file, so only its
# CRC could tell, and reading it took about a minute.
rm "$TMP/linked.debug"
objcopy --only-keep-debug "$TMP/prog" "$TMP/linked.debug"
truncate -s 50G "$TMP/linked.debug" || skip "no sparse files here"
run huge "$TMP/in"
rm "$TMP/linked.debug"

# 5. Perf maps: a FIFO, a symlink to a file only root may read, and a
# file owned by another user are not read.
mkdir "$TMP/maps"
printf 'spool\t1\t0\t1000\nframe\t0\tuser\t0x1010\t-\t-\npframe\t0\t77\t-\t-\n' >"$TMP/jit"
mkfifo "$TMP/maps/perf-77.map"
run mapfifo --perf-map-dir "$TMP/maps" "$TMP/jit"
rm "$TMP/maps/perf-77.map"
printf '1000 100 secret_line\n' >"$TMP/secret"
chmod 600 "$TMP/secret"
ln -s "$TMP/secret" "$TMP/maps/perf-77.map"
run maplink --perf-map-dir "$TMP/maps" "$TMP/jit"
grep -q secret_line "$TMP/maplink.out" && fail "a symlinked map was read"
grep -q "perf-77.map': a symbolic link; not read" "$TMP/maplink.err" ||
	fail "maplink: $(cat "$TMP/maplink.err")"
rm "$TMP/maps/perf-77.map"
cp "$TMP/secret" "$TMP/maps/perf-77.map"
run mapown --perf-map-dir "$TMP/maps" "$TMP/jit"
grep -q "${T}j${T}.*secret_line\$" "$TMP/mapown.out" ||
	fail "the user's own map was not read: $(cat "$TMP/mapown.out")"
if [ "$(id -u)" = 0 ] && chown nobody "$TMP/maps/perf-77.map" 2>/dev/null; then
	run mapother --perf-map-dir "$TMP/maps" "$TMP/jit"
	grep -q secret_line "$TMP/mapother.out" &&
		fail "another user's map was read"
	grep -q "not a regular file owned by" "$TMP/mapother.err" ||
		fail "mapother: $(cat "$TMP/mapother.err")"
fi

# 6. Terminal escapes in a module path reach stderr escaped.
stream "$TMP/x\\x1b]0;owned\\x07\\x1b[2J.so" >"$TMP/in"
run escape "$TMP/in"
grep -q "$ESC" "$TMP/escape.err" && fail "raw ESC on stderr"
tr -d '\n' <"$TMP/escape.err" | tr -d '[:print:]' | grep -q . &&
	fail "control bytes on stderr: $(od -c "$TMP/escape.err" | head)"
grep -q 'x\\x1b\]0;owned\\x07\\x1b\[2J.so' "$TMP/escape.err" ||
	fail "escape: $(cat "$TMP/escape.err")"
# The error for a malformed record quotes it escaped (the decoder does).
printf 'spool\t1\t0\t1000\nframe\t0\tuser\t0x1\t\033]0;owned\007\t0x1\n' >"$TMP/in"
timeout 20 "$SP_SYMBOLIZE" "$TMP/in" >/dev/null 2>"$TMP/bad.err" &&
	fail "a malformed record was accepted"
one_error sp-symbolize "$TMP/bad.err"
grep -q "$ESC" "$TMP/bad.err" && fail "raw ESC in the error: $(od -c "$TMP/bad.err")"

# 7. e_phnum 0xffff (PN_XNUM) with no count in section 0: no segment can
# be read, which is said once, and the frame keeps its address name.
python3 - "$TMP/prog" "$TMP/xnum" <<'PY' || fail "cannot write the PN_XNUM file"
import sys
d = bytearray(open(sys.argv[1], "rb").read())
d[56:58] = b"\xff\xff"  # e_phnum of an ELF64 header
open(sys.argv[2], "wb").write(d)
PY
stream "$TMP/xnum" >"$TMP/in"
run xnum "$TMP/in"
one_error sp-symbolize "$TMP/xnum.err"
grep -q "xnum': corrupt program headers; frames keep their address names" \
	"$TMP/xnum.err" || fail "xnum: $(cat "$TMP/xnum.err")"
grep -q "${T}xnum+0x1100\$" "$TMP/xnum.out" ||
	fail "xnum: $(grep symbol "$TMP/xnum.out")"
exit 0

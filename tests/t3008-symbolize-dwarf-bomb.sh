#!/bin/sh
# A DWARF decompression bomb (issue 11 item 6): a 0.5 MB ELF file whose
# .zdebug_info inflates to 512 MiB of zeros.  sp-symbolize reads no
# DWARF from it, says so once, and names frames from the symbol table,
# in little memory (the old code took 3.5 s and 530 MB).  The same for an
# xz bomb in .gnu_debugdata (MiniDebugInfo), which the old code inflated
# to 256 MiB without a word.
. "$(dirname "$0")/lib.sh"
command -v python3 >/dev/null || skip "no python3 to write the bomb"
command -v objcopy >/dev/null || skip "no objcopy"

T='	'
cc_prog prog sym_elf.c -O2 -g
python3 - "$TMP/zinfo" <<'PY' || fail "cannot write the bomb"
import struct, sys, zlib
n = 512 << 20
c = zlib.compressobj(9)
chunk = bytes(1 << 20)
with open(sys.argv[1], "wb") as f:
    f.write(b"ZLIB" + struct.pack(">Q", n))  # GNU .zdebug header
    for _ in range(n >> 20):
        f.write(c.compress(chunk))
    f.write(c.flush())
PY
objcopy --remove-section .debug_info --add-section .zdebug_info="$TMP/zinfo" \
	"$TMP/prog" "$TMP/bomb" || fail "objcopy"
a=$(nm "$TMP/bomb" | awk '$3 == "sym_work" { print $1 }')
# the file offset of sym_work, through its PT_LOAD header
off=$(readelf -lW "$TMP/bomb" | awk '$1 == "LOAD" { print $2, $3 }' |
	while read -r o v; do
		[ $((0x$a)) -ge $((v)) ] && printf '%x\n' $((0x$a - v + o))
	done | tail -n 1)
{
	printf 'spool\t1\t0\t1000\n'
	printf 'module\t0\t42\t0x7f0000000000\t0x7f0000100000\t0x0\t0\tuser\t%s\n' "$TMP/bomb"
	printf 'frame\t0\tuser\t0x%x\t0\t0x%s\n' $((0x7f0000000000 + 0x$off)) "$off"
} >"$TMP/in"
if [ -x /usr/bin/time ]; then
	timeout 60 /usr/bin/time -f '%M' -o "$TMP/rss" "$SP_SYMBOLIZE" "$TMP/in" \
		>"$TMP/out" 2>"$TMP/err" || fail "exit $?: $(cat "$TMP/err")"
	[ "$(cat "$TMP/rss")" -lt 200000 ] ||
		fail "$(cat "$TMP/rss") KB resident: the bomb was inflated"
else
	timeout 60 "$SP_SYMBOLIZE" "$TMP/in" >"$TMP/out" 2>"$TMP/err" ||
		fail "exit $?: $(cat "$TMP/err")"
fi
one_error sp-symbolize "$TMP/err"
grep -q "bomb': debug sections would decompress to an implausible size" \
	"$TMP/err" || fail "no warning: $(cat "$TMP/err")"
grep -q "^symbol${T}0${T}-${T}0${T}-${T}0x0${T}-${T}sym_work\$" "$TMP/out" ||
	fail "not named from the symbol table: $(grep symbol "$TMP/out")"

# MiniDebugInfo bomb: 128 MiB of zeros in xz, in a stripped binary.
python3 - "$TMP/zeros.xz" <<'PY' || fail "cannot write the xz bomb"
import lzma, sys
c = lzma.LZMACompressor(preset=0)
chunk = bytes(1 << 20)
with open(sys.argv[1], "wb") as f:
    for _ in range(128):
        f.write(c.compress(chunk))
    f.write(c.flush())
PY
objcopy --strip-all --add-section .gnu_debugdata="$TMP/zeros.xz" \
	"$TMP/prog" "$TMP/xzbomb" || fail "objcopy (xz)"
sed "s|$TMP/bomb|$TMP/xzbomb|" "$TMP/in" >"$TMP/xzin"
timeout 60 "$SP_SYMBOLIZE" "$TMP/xzin" >"$TMP/out" 2>"$TMP/err" ||
	fail "xz bomb: exit $?: $(cat "$TMP/err")"
one_error sp-symbolize "$TMP/err"
grep -q "xzbomb': MiniDebugInfo (.gnu_debugdata) would decompress to an implausible size" \
	"$TMP/err" || fail "xz bomb: no warning: $(cat "$TMP/err")"
grep -q "^symbol${T}0${T}.*${T}xzbomb+0x$off\$" "$TMP/out" ||
	fail "xz bomb: no fallback name: $(grep symbol "$TMP/out")"
exit 0

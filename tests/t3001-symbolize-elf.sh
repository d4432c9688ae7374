#!/bin/sh
# sp-symbolize on programs compiled here: a PIE, a non-PIE executable, a
# shared object mapped at a file offset, a stripped file with its debug
# file under --debug-dir, and C++ names.  Addresses come from nm, file
# offsets from the PT_LOAD headers (readelf -lW).
. "$(dirname "$0")/lib.sh"

SRC=$PROGRAMS/sym_elf.c
cc_prog pie sym_elf.c -O2 -g -fPIE -pie
cc_prog nopie sym_elf.c -O2 -g -fno-pie -no-pie
cc_prog libsym.so sym_elf.c -O2 -g -fPIC -shared -DSYM_LIB

# vaddr FILE SYMBOL: the symbol's address, in hex without 0x.
vaddr() { nm "$1" | awk -v s="$2" '$3 == s { print $1 }'; }
# fileoff FILE HEXVADDR: the file offset of a virtual address.
fileoff() {
	readelf -lW "$1" | while read -r type off va _pa sz _rest; do
		[ "$type" = LOAD ] || continue
		if [ $((0x$2)) -ge $((va)) ] && [ $((0x$2)) -lt $((va + sz)) ]
		then
			printf '%x\n' $((0x$2 - va + off))
		fi
	done
}
ino() { stat -c %i "$1"; }
line_of() { grep -n "$1" "$SRC" | head -n 1 | cut -d: -f1; }

# stream FILE START FILEOFF SYM OFFSET...: a module mapping FILE's text
# at START and one frame per symbol+offset pair.  Symbols are looked up
# in $ORACLE when set (for stripped files).
stream() {
	f=$1 start=$2 moff=$3 o=${ORACLE:-$1}
	shift 3
	printf 'spool\t1\t0\t1000\n'
	printf 'module\t0\t42\t0x%x\t0x%x\t0x%x\t%s\tuser\t%s\n' \
		$((start)) $((start + 0x100000)) $((moff)) "$(ino "$f")" "$f"
	id=0 last=
	while [ $# -gt 0 ]; do
		if [ "$1" != "$last" ]; then
			base=$((0x$(fileoff "$o" "$(vaddr "$o" "$1")")))
			last=$1
		fi
		rel=$((base + $2))
		printf 'frame\t%d\tuser\t0x%x\t0\t0x%x\n' $id \
			$((start + rel - moff)) $rel
		id=$((id + 1))
		shift 2
	done
}

leaf_line=$(line_of '^	sym_sink = x;')
for f in pie nopie libsym.so; do
	stream "$TMP/$f" 0x7f0000000000 0 sym_leaf 0 sym_work 3 \
		sym_local 1 >"$TMP/in"
	"$SP_SYMBOLIZE" "$TMP/in" >"$TMP/out" 2>"$TMP/err" ||
		fail "$f: exit $?: $(cat "$TMP/err")"
	[ -s "$TMP/err" ] && fail "$f: unexpected stderr: $(cat "$TMP/err")"
	grep '^symbol' "$TMP/out" | cut -f 2,4,5,6,7,8 >"$TMP/got"
	grep -q "^0	0	-	0x0	.*sym_elf.c:$leaf_line	sym_leaf\$" \
		"$TMP/got" || fail "$f: sym_leaf: $(cat "$TMP/got")"
	grep -q "^1	0	-	0x3	.*sym_elf.c:[0-9]*	sym_work\$" \
		"$TMP/got" || fail "$f: sym_work: $(cat "$TMP/got")"
	grep -q "^2	0	-	0x1	.*sym_elf.c:[0-9]*	sym_local\$" \
		"$TMP/got" || fail "$f: sym_local: $(cat "$TMP/got")"
	# Records pass through unchanged and in order.
	grep -Ev '^(symbol|funcline)' "$TMP/out" | diff -u "$TMP/in" - ||
		fail "$f: records changed"
done

# A shared object whose text is mapped from file offset 0x1000 at an
# arbitrary address: the module's file offset places it.
stream "$TMP/libsym.so" 0x7f1234561000 0x1000 sym_leaf 2 >"$TMP/in"
pipeline "$SP_SYMBOLIZE" "$TMP/in" \| grep '^symbol' \| cut -f 6,8 \
	>"$TMP/got" || fail "sp-symbolize at an offset"
printf '0x2\t%s\n' sym_leaf | diff -u - "$TMP/got" || fail "mapped at offset"

# Inlined frames: some address of sym_outer is inside sym_inl.
size=$(nm -S "$TMP/pie" | awk '$4 == "sym_outer" { print $2 }')
set --
i=0
while [ $i -lt $((0x$size)) ]; do set -- "$@" sym_outer $i; i=$((i + 1)); done
stream "$TMP/pie" 0x555555554000 0 "$@" >"$TMP/in"
"$SP_SYMBOLIZE" "$TMP/in" >"$TMP/out" || fail "inline run"
call_line=$(line_of '^	sym_inl(x);')
grep -q "	1	i	-	.*sym_elf.c:[0-9]*	sym_inl\$" "$TMP/out" ||
	fail "no inlined sym_inl: $(grep symbol "$TMP/out")"
grep -q "	0	-	0x[0-9a-f]*	.*sym_elf.c:$call_line	sym_outer\$" \
	"$TMP/out" || fail "no call site line $call_line for sym_outer"
"$SP_SYMBOLIZE" --no-inline "$TMP/in" >"$TMP/noinl" || fail "--no-inline"
grep -q '	sym_inl$' "$TMP/noinl" && fail "--no-inline printed an inlined frame"
# --no-lines: the same function names and offsets, from the symbol
# table alone: one record per frame, no source, no inlined frame.
grep '^symbol' "$TMP/out" | awk -F '\t' '$4 == 0' | cut -f 2,4,6,8 |
	sed 's/\t/\t-\t/3' >"$TMP/want"
[ -s "$TMP/want" ] || fail "no frames of sym_outer"
"$SP_SYMBOLIZE" --no-lines "$TMP/in" >"$TMP/out2" 2>"$TMP/err" ||
	fail "--no-lines: exit $?: $(cat "$TMP/err")"
grep '^symbol' "$TMP/out2" | cut -f 2,4,6,7,8 | diff -u "$TMP/want" - ||
	fail "--no-lines differs from the outermost frames"

# Compressed debug sections (SHF_COMPRESSED zlib, as distributions ship
# debug files) give the same symbols as plain ones; a damaged one costs
# the lines, never the names.
objcopy --compress-debug-sections=zlib "$TMP/pie" "$TMP/piez" ||
	fail "objcopy --compress-debug-sections"
readelf -SW "$TMP/piez" | grep -q ' \.debug_info .* C ' ||
	fail "objcopy left .debug_info uncompressed"
for z in pie piez; do
	stream "$TMP/$z" 0x7f0000000000 0 sym_leaf 0 sym_work 3 \
		sym_local 1 >"$TMP/in.$z"
	"$SP_SYMBOLIZE" --no-cache "$TMP/in.$z" >"$TMP/out.$z" ||
		fail "$z: exit $?"
	grep -E '^(symbol|funcline)' "$TMP/out.$z" >"$TMP/sym.$z"
done
grep -q '^funcline' "$TMP/sym.pie" || fail "no funcline records"
cmp -s "$TMP/sym.pie" "$TMP/sym.piez" ||
	fail "compressed debug sections: $(diff "$TMP/sym.pie" "$TMP/sym.piez")"
# Damage the middle of the compressed .debug_info.
set -- $(readelf -SW "$TMP/piez" | sed 's/^ *\[ *[0-9]*\]//' |
	awk '$1 == ".debug_info" { print $4, $5 }')
printf 'zzzzzzzz' | dd of="$TMP/piez" bs=1 seek=$((0x$1 + 0x$2 / 2)) \
	conv=notrunc 2>/dev/null
"$SP_SYMBOLIZE" --no-cache "$TMP/in.piez" >"$TMP/out.bad" 2>"$TMP/err" ||
	fail "damaged .debug_info: exit $?: $(cat "$TMP/err")"
grep -q '	sym_leaf$' "$TMP/out.bad" ||
	fail "damaged .debug_info lost the names: $(cat "$TMP/out.bad")"

# Stripped, with its debug file found by build id under --debug-dir.
cp "$TMP/pie" "$TMP/stripped"
id=$(readelf -n "$TMP/stripped" | sed -n 's/.*Build ID: //p')
[ -n "$id" ] || skip "the toolchain writes no build ids"
d=$TMP/dbg/.build-id/$(echo "$id" | cut -c1-2)
mkdir -p "$d"
objcopy --only-keep-debug "$TMP/pie" "$d/$(echo "$id" | cut -c3-).debug"
strip --strip-all "$TMP/stripped"
ORACLE=$TMP/pie stream "$TMP/stripped" 0x555555554000 0 sym_local 0 \
	>"$TMP/in"
"$SP_SYMBOLIZE" "$TMP/in" >"$TMP/nodbg" || fail "sp-symbolize, stripped"
grep -q '	sym_local$' "$TMP/nodbg" &&
	fail "stripped file resolved sym_local without its debug file"
"$SP_SYMBOLIZE" --debug-dir "$TMP/dbg" "$TMP/in" >"$TMP/out"
grep -q '	0x0	.*sym_elf.c:[0-9]*	sym_local$' "$TMP/out" ||
	fail "debug file not used: $(grep symbol "$TMP/out")"

# C++: demangled unless --no-demangle.
if command -v c++ >/dev/null 2>&1; then
	c++ -O2 -g -o "$TMP/cxx" "$PROGRAMS/sym_cxx.cc" || fail "c++"
	stream "$TMP/cxx" 0x555555554000 0 _ZN3sym6Widget4spinEi 1 >"$TMP/in"
	"$SP_SYMBOLIZE" "$TMP/in" >"$TMP/cxx.out" || fail "sp-symbolize, C++"
	grep -q '	sym::Widget::spin(int)$' "$TMP/cxx.out" ||
		fail "C++ name not demangled"
	"$SP_SYMBOLIZE" --no-demangle "$TMP/in" >"$TMP/cxx.out" ||
		fail "--no-demangle exited $?"
	grep -q '	_ZN3sym6Widget4spinEi$' "$TMP/cxx.out" || fail "--no-demangle"
fi
exit 0

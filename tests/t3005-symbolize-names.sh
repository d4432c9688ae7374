#!/bin/sh
# sp-symbolize names functions as perf does (issue 9 item 5): no symbol
# version, GCC clone suffixes folded into the function, C++ names without
# return type, and V8's deepest templates demangled; --raw-names keeps
# the symbol table's names.  Real binaries built here; addresses from nm,
# file offsets from the PT_LOAD headers.
. "$(dirname "$0")/lib.sh"

T='	'
cc_prog clones sym_clones.c -O2 -g
printf 'V1 { local: *; };\nV2 { } V1;\n' >"$TMP/ver.map"
cc_prog libver.so sym_versioned.c -O2 -g -shared -fPIC \
	-Wl,--version-script="$TMP/ver.map"
have_cxx=1
${CXX:-c++} -O1 -g -o "$TMP/v8like" "$PROGRAMS/sym_v8like.cc" 2>/dev/null ||
	have_cxx=0

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

# stream FILE ORACLE SYMBOL...: FILE mapped at 0x7f0000000000, one frame
# at the start of each symbol (its address from nm on ORACLE).
stream() {
	f=$1 o=$2
	shift 2
	printf 'spool\t1\t0\t1000\n'
	printf 'module\t0\t42\t0x7f0000000000\t0x7f0001000000\t0x0\t%s\tuser\t%s\n' \
		"$(stat -L -c %i "$f")" "$f"
	id=0
	for s in "$@"; do
		a=$(nm "$o" | awk -v s="$s" '$3 == s { print $1; exit }')
		[ -n "$a" ] || fail "no $s in $o"
		rel=$((0x$(fileoff "$f" "$a")))
		printf 'frame\t%d\tuser\t0x%x\t0\t0x%x\n' $id \
			$((0x7f0000000000 + rel)) $rel
		id=$((id + 1))
	done
}

# names [OPTION...] <STREAM: the outermost name of each frame.
names() {
	"$SP_SYMBOLIZE" "$@" >"$TMP/out" 2>"$TMP/err" ||
		fail "exit $?: $(cat "$TMP/err")"
	[ -s "$TMP/err" ] && fail "unexpected stderr: $(cat "$TMP/err")"
	awk -F "$T" '$1 == "symbol" && $4 == 0 { print $8 }' "$TMP/out"
}

# GCC's clones: the test needs the compiler to have made them.
syms=$(nm "$TMP/clones" | awk '$3 ~ /^(by_field|scaled|checked)\./ { print $3 }' |
	sort)
[ "$(echo "$syms" | wc -l)" -eq 3 ] ||
	skip "this compiler made other clones: $syms"
# shellcheck disable=SC2086
stream "$TMP/clones" "$TMP/clones" $syms >"$TMP/in"
names <"$TMP/in" | sort >"$TMP/got"
printf '%s\n' by_field checked scaled | diff -u - "$TMP/got" ||
	fail "clone suffixes kept"
# shellcheck disable=SC2086
names --raw-names <"$TMP/in" | sort | diff -u - "$TMP/got" >/dev/null &&
	fail "--raw-names folded the clones"
names --raw-names <"$TMP/in" | sort >"$TMP/got"
echo "$syms" | diff -u - "$TMP/got" || fail "--raw-names"

# Symbol versions: vfun@@V2 is vfun.  (vfun@V1 is local, and its alias
# vold comes first in the table, as ld writes it.)
stream "$TMP/libver.so" "$TMP/libver.so" 'vfun@@V2' >"$TMP/in"
names <"$TMP/in" | grep -qx 'vfun' || fail "versions kept: $(names <"$TMP/in")"
names --raw-names <"$TMP/in" | grep -q '^vfun@@V2$' || fail "--raw-names"

# glibc's own versioned names, when its debug file is installed.
libc=$(ldd "$TMP/clones" | awk '$1 ~ /^libc\.so/ { print $3 }')
id=$(readelf -n "$libc" 2>/dev/null | sed -n 's/.*Build ID: //p')
dbg=/usr/lib/debug/.build-id/$(echo "$id" | cut -c1-2)/$(echo "$id" | cut -c3-).debug
if [ -n "$id" ] && nm "$dbg" 2>/dev/null | grep -q ' __libc_start_main@@'; then
	s=$(nm "$dbg" | awk '$3 ~ /^__libc_start_main@@/ { print $3; exit }')
	stream "$libc" "$dbg" "$s" >"$TMP/in"
	names <"$TMP/in" | grep -qx '__libc_start_main' ||
		fail "libc: $(names <"$TMP/in")"
else
	echo "no glibc debug file: its versioned names not checked" >&2
fi

[ $have_cxx = 1 ] || { echo "no C++ compiler" >&2; exit 0; }
v8='_ZN2v88internal11StringShape33DispatchToSpecificTypeWithoutCastIZNS1_22DispatchToSpecificTypeIZNKS0_6String7GetImplEiNS0_16PtrComprCageBaseERKNS0_31SharedStringAccessGuardIfNeededEE19StringGetDispatchertJRiRS5_S8_EEET0_S4_DpOT1_E17CastingDispatchertJRS4_SA_SB_S8_EEESC_SF_'
stream "$TMP/v8like" "$TMP/v8like" _ZN2va7reserveIlEET_PS1_j "$v8" >"$TMP/in"
names <"$TMP/in" >"$TMP/got"
sed -n 1p "$TMP/got" | grep -qx 'va::reserve<long>(long\*, unsigned int)' ||
	fail "return type kept: $(sed -n 1p "$TMP/got")"
sed -n 2p "$TMP/got" |
	grep -q '^v8::internal::StringShape::DispatchToSpecificTypeWithoutCast<.*::CastingDispatcher, unsigned short, .*>$' ||
	fail "V8 name: $(sed -n 2p "$TMP/got")"
names --no-params <"$TMP/in" | sed -n 1p | grep -qx 'va::reserve<long>' ||
	fail "--no-params"
names --raw-names <"$TMP/in" | sed -n 2p | grep -qx "$v8" ||
	fail "--raw-names demangled"
exit 0

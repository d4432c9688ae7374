#!/bin/sh
# Names of functions with aliases, and BOLT's fragments (issue 28): at
# one address the name a user knows wins (work over __libc_work and
# __GI___libc_work, as malloc over __libc_malloc; emit over _IO_emit;
# __start_main over the local __start_main_impl), a tie goes by byte
# order whatever the table's order, and "split_fn.warm" is split_fn.
# The same names whether they come from the file's own symbol table,
# from a debug file, or from the dynamic symbols and DWARF alone.
. "$(dirname "$0")/lib.sh"
[ "$(uname -m)" = x86_64 ] || skip "sym_aliases.c has x86-64 assembly"

T='	'
cc_prog liba.so sym_aliases.c -O1 -g -shared -fPIC -Wl,--build-id
lib=$TMP/liba.so
syms="__libc_work _IO_emit __start_main_impl tie_b split_fn.warm"

# names FILE [OPTION...]: the names of frames at the start of $syms (from
# nm on the unstripped library) in FILE mapped as a module.
names() {
	f=$1
	shift
	{
		printf 'spool\t1\t0\t1000\n'
		printf 'module\t0\t42\t0x7f0000000000\t0x7f0001000000\t0x0\t%s\tuser\t%s\n' \
			"$(stat -L -c %i "$f")" "$f"
		id=0
		for s in $syms; do
			a=$(nm "$lib" | awk -v s="$s" '$3 == s { print $1; exit }')
			[ -n "$a" ] || fail "no $s in $lib"
			rel=$(file_offset "$lib" "$a")
			printf 'frame\t%d\tuser\t0x%x\t0\t0x%x\n' $id \
				$((0x7f0000000000 + rel)) "$rel"
			id=$((id + 1))
		done
	} >"$TMP/in"
	"$SP_SYMBOLIZE" --no-cache "$@" "$TMP/in" >"$TMP/out" 2>"$TMP/err" ||
		fail "exit $?: $(cat "$TMP/err")"
	awk -F "$T" '$1 == "symbol" && $4 == 0 { print $8 }' "$TMP/out" |
		tr '\n' ' '
}

want="work emit __start_main tie_a split_fn "
got=$(names "$lib")
[ "$got" = "$want" ] || fail "symbol table: got '$got', want '$want'"
[ -s "$TMP/err" ] && fail "unexpected stderr: $(cat "$TMP/err")"
got=$(names "$lib" --no-lines)
[ "$got" = "$want" ] || fail "--no-lines: got '$got'"

# Stripped, with its debug file under --debug-dir by build id.
id=$(readelf -n "$lib" | sed -n 's/.*Build ID: //p')
[ -n "$id" ] || fail "no build id"
dbg=$TMP/dbg/.build-id/$(echo "$id" | cut -c1-2)
mkdir -p "$dbg"
objcopy --only-keep-debug "$lib" "$dbg/$(echo "$id" | cut -c3-).debug"
mkdir "$TMP/s"
strip -o "$TMP/s/liba.so" "$lib"
got=$(names "$TMP/s/liba.so" --debug-dir "$TMP/dbg")
[ "$got" = "$want" ] || fail "debug file: got '$got', want '$want'"

# No .symtab, DWARF kept: the exported names from the dynamic symbols,
# the local ones (tie_a, the fragment) unnamed.
objcopy -R .symtab -R .strtab "$lib" "$TMP/s/liba.so"
got=$(names "$TMP/s/liba.so")
case $got in
"work emit __start_main "*) ;;
*) fail "dynamic symbols and DWARF: got '$got'" ;;
esac
# Stripped whole: the same exported names.
strip -o "$TMP/s/liba.so" "$lib"
got=$(names "$TMP/s/liba.so")
case $got in
"work emit __start_main "*) ;;
*) fail "dynamic symbols: got '$got'" ;;
esac
exit 0

#!/bin/sh
# A call that returns to the first byte of a function (issue 28): the
# caller's call site, return address - 1, lies in the padding before it,
# in no symbol; the frame is named from the return address, as perf
# does, not left as a bare address.  sym_retstart.c makes that shape by
# hand; a crafted stream checks the rule's bounds, a recording (frame
# pointers) checks it end to end, and, where node runs, V8's lazy
# deoptimization returns to Builtins_InterpreterEnterAtNextBytecode.
. "$(dirname "$0")/lib.sh"
[ "$(uname -m)" = x86_64 ] || skip "sym_retstart.c is x86-64 assembly"

T='	'
cc_prog retstart sym_retstart.c -O0 -g -fno-omit-frame-pointer
prog=$TMP/retstart

resume=$(nm "$prog" | awk '$3 == "ret_resume" { print $1 }')
tramp_end=$(nm -S "$prog" | awk '$4 == "ret_tramp" {
	printf "%x\n", strtonum_($1) + strtonum_($2) }
	function strtonum_(s,  i, v) { v = 0
		for (i = 1; i <= length(s); i++)
			v = v * 16 + index("0123456789abcdef", substr(s, i, 1)) - 1
		return v }')
[ -n "$resume" ] && [ -n "$tramp_end" ] || fail "no ret_resume, ret_tramp"
r=$(file_offset "$prog" "$resume")
e=$(file_offset "$prog" "$tramp_end")
[ $((r - e)) -ge 2 ] || skip "the assembler left $((r - e)) bytes of padding"
# Frames: the last padding byte (a return to ret_resume's first byte),
# the first padding byte (the byte after it is padding too: no name),
# and ret_resume itself.
{
	printf 'spool\t1\t0\t1000\n'
	printf 'module\t0\t42\t0x7f0000000000\t0x7f0001000000\t0x0\t%s\tuser\t%s\n' \
		"$(stat -L -c %i "$prog")" "$prog"
	id=0
	for a in $((r - 1)) "$e" "$r"; do
		printf 'frame\t%d\tuser\t0x%x\t0\t0x%x\n' $id \
			$((0x7f0000000000 + a)) "$a"
		id=$((id + 1))
	done
} >"$TMP/in"
"$SP_SYMBOLIZE" "$TMP/in" >"$TMP/out" 2>"$TMP/err" ||
	fail "exit $?: $(cat "$TMP/err")"
[ -s "$TMP/err" ] && fail "unexpected stderr: $(cat "$TMP/err")"
awk -F "$T" '$1 == "symbol" { print $2, $5, $6, $8 }' "$TMP/out" >"$TMP/got"
printf '0 - 0x0 ret_resume\n1 u - retstart+0x%x\n2 - 0x0 ret_resume\n' "$e" |
	diff -u - "$TMP/got" || fail "names around the padding"

need_perf
# record PREFIX CMD...: records CMD, then dumps, symbolizes and folds it.
record() {
	p=$1
	shift
	"$SP_RECORD" -o "$TMP/$p.spool" "$@" >"$TMP/$p.out" 2>"$TMP/$p.rec" ||
		fail "sp-record: exit $?: $(cat "$TMP/$p.rec")"
	"$SP_DUMP" "$TMP/$p.spool" >"$TMP/$p.txt" || fail "sp-dump: exit $?"
	"$SP_SYMBOLIZE" "$TMP/$p.txt" >"$TMP/$p.sym" 2>"$TMP/$p.err" ||
		fail "sp-symbolize: exit $?: $(cat "$TMP/$p.err")"
	"$SP_FOLD" "$TMP/$p.sym" >"$TMP/$p.folded" ||
		fail "sp-fold: exit $?"
}
record rs -g fp -- "$prog" 600
# Every sample in ret_spin is called from ret_resume; none is bare.
awk '{ n = $NF; s = $0; sub(/ [0-9]+$/, "", s) }
	s ~ /;ret_spin$/ { all += n; if (s ~ /;main;ret_resume;ret_spin$/) ok += n }
	s ~ /\[retstart\]/ { bare += n }
	END { printf "%d %d %d\n", ok, all, bare }' "$TMP/rs.folded" >"$TMP/n"
read -r ok all bare <"$TMP/n"
echo "ret_spin: $ok of $all samples under ret_resume, $bare bare" >&2
[ "$all" -ge 50 ] || fail "only $all samples in ret_spin"
[ "$bare" -eq 0 ] && [ $((ok * 100)) -ge $((all * 95)) ] ||
	fail "$(grep 'ret_spin' "$TMP/rs.folded" | sort -k2n | tail -3)"

# node, when there is one: no bare [node] frame anywhere.
command -v node >/dev/null ||
	{ echo "no node: V8's return addresses not checked" >&2; exit 0; }
cd "$TMP" || fail "cd $TMP"
record node -- node --allow-natives-syntax --perf-basic-prof \
	"$PROGRAMS/sym_deopt.js"
pid=$(awk -F "$T" '$1 == "module" { print $3; exit }' "$TMP/node.txt")
rm -f "/tmp/perf-$pid.map"
awk '{ n = $NF; t += n }
	/;JS:[^;]*spin / { spin += n }
	/\[node\]/ { bare += n }
	/;Builtins_InterpreterEnterAtNextBytecode;/ { enter += n }
	END { printf "%d %d %d %d\n", spin, bare, enter, t }' \
	"$TMP/node.folded" >"$TMP/n"
read -r spin bare enter total <"$TMP/n"
echo "node: $spin of $total samples in spin, $enter under" \
	"InterpreterEnterAtNextBytecode, $bare bare [node]" >&2
[ "$spin" -ge 50 ] || fail "only $spin samples in spin"
[ "$bare" -eq 0 ] ||
	fail "bare [node] frames: $(grep -F '[node]' "$TMP/node.folded" |
		sed 's/.*JSEntryTrampoline;//' | head -3)"
exit 0

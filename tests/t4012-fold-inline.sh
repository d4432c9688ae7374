#!/bin/sh
# sp-fold --from perf-script --inline and --context do what
# stackcollapse-perf.pl's do: each frame's address and module go to
# addr2line -a ADDR -e MOD -i -f -s -C, whose inlining chain (with
# file:line under --context) replaces the frame, outermost first; an
# address addr2line knows nothing of is retried at the symbol's address
# from nm plus perf's +0x offset (a PIE's run-time address); the kernel,
# JIT maps and [bracketed] modules are never asked; where addr2line
# gives nothing the frame keeps perf's name.  One addr2line runs per
# module and each distinct (module, address) is asked once.  The program
# is built here (gcc -O2 -g); the perf script text is written as perf
# prints it, so perf is not needed.
. "$(dirname "$0")/lib.sh"

for t in gcc addr2line nm objdump python3; do
	command -v $t >/dev/null || skip "no $t"
done
A2L=$(command -v addr2line)

# sq is always inlined into work; each function is one line, so lines
# are known: sq 2, work 3, main 4.
cat >"$TMP/inl.c" <<'EOF_C'
/* t4012: an inlined function (tests/t4012-fold-inline.sh). */
static inline __attribute__((always_inline)) int sq(int x) { return x * x + (x >> 3); }
__attribute__((noinline)) int work(int n) { int s = 0; for (int i = 0; i < n; i++) s += sq(i); return s; }
int main(int argc, char **argv) { (void)argv; return work(argc * 1000) & 1; }
EOF_C
gcc -O2 -g -no-pie -fno-pie -o "$TMP/inlnp" "$TMP/inl.c" || fail "cannot build (no-pie)"
gcc -O2 -g -pie -fpie -o "$TMP/inl" "$TMP/inl.c" || fail "cannot build (pie)"

# Addresses: one in work whose innermost function is sq, one in work's
# own code (its last), and main's return address from its call of work.
sym() {	# FILE NAME: the symbol's address and size, hex
	nm -S "$1" | awk -v n="$2" '$4 == n { print $1, $2 }'
}
in_work() {	# FILE: the first address in sq and the last in work itself
	set -- "$1" $(sym "$1" work)
	_i=0
	while [ $_i -lt $((0x$3)) ]; do
		printf '%x\n' $((0x$2 + _i))
		_i=$((_i + 1))
	done | "$A2L" -a -i -f -e "$1" | awk '
		/^0x/ { a = $1; n = 0; next }
		{ n++ }
		n == 1 && $1 == "sq" && !s { s = a }
		n == 1 && $1 == "work" { w = a }
		END { print s, w }'
}
set -- $(in_work "$TMP/inlnp")
[ $# -eq 2 ] || fail "no address in sq or work"
SQ=$(($1)) W=$(($2))
set -- $(sym "$TMP/inlnp" work)
WORK=$((0x$1))
set -- $(in_work "$TMP/inl")
[ $# -eq 2 ] || fail "no address in sq or work (pie)"
PSQ=$(($1))
RET=$(objdump -d --no-show-raw-insn "$TMP/inlnp" |
	awk '/call.*<work>/ { c = 1; next } c && /^ *[0-9a-f]+:/ { sub(":", "", $1); print $1; exit }')
[ -n "$RET" ] || fail "no call of work in main"
RET=$((0x$RET))
set -- $(sym "$TMP/inlnp" main)
MAIN=$((0x$1))
set -- $(sym "$TMP/inl" work)
PWORK=$((0x$1))
BASE=$((0x55d0c0a00000)) # where the PIE was mapped

x() { printf '%x' "$1"; }
{
	printf 'inl 500/500 [000] 1.000001:    1000 cpu-clock:\n'
	printf '\tffffffff81000000 asm_sysvec+0x10 ([kernel.kallsyms])\n'
	printf '\t%16s work+0x%x (%s)\n' "$(x $SQ)" $((SQ - WORK)) "$TMP/inlnp"
	printf '\t%16s main+0x%x (%s)\n' "$(x $RET)" $((RET - MAIN)) "$TMP/inlnp"
	printf '\t    7f0000001000 start+0x7a (/nonexistent/libx.so)\n\n'
	# Another block with main's frame: asked once all the same.
	printf 'inl 500/500 [000] 1.000002:    1000 cpu-clock:\n'
	printf '\t%16s work+0x%x (%s)\n' "$(x $W)" $((W - WORK)) "$TMP/inlnp"
	printf '\t%16s main+0x%x (%s)\n' "$(x $RET)" $((RET - MAIN)) "$TMP/inlnp"
	printf '\t    7f0000001000 start+0x7a (/nonexistent/libx.so)\n\n'
	# The PIE: run-time addresses, known to addr2line only through nm.
	printf 'inl 501/501 [001] 1.000003:    1000 cpu-clock:\n'
	printf '\t%16s work+0x%x (%s)\n' "$(x $((BASE + PSQ)))" \
		$((PSQ - PWORK)) "$TMP/inl"
	printf '\t    7f0000002000 LFoo;.bar(I)V (/tmp/perf-501.map)\n'
	printf '\t%16s main (%s)\n' "$(x $((BASE + 0x1050)))" "$TMP/inl"
	printf '\t               1 [unknown] (%s)\n' "$TMP/inlnp"
	printf '\t    7ffc71ee9580 [unknown] ([unknown])\n\n'
} >"$TMP/ps.txt"
# The same text twice: repeated blocks fold from sp-fold's block cache.
cat "$TMP/ps.txt" "$TMP/ps.txt" >"$TMP/ps2.txt"

# An addr2line that notes its arguments and each address it is asked.
mkdir "$TMP/bin"
cat >"$TMP/bin/addr2line" <<EOF_PY
#!/usr/bin/env python3
import os, subprocess, sys, threading
with open("$TMP/a2l.args", "a") as f:
    f.write(" ".join(sys.argv[1:]) + "\n")
p = subprocess.Popen(["$A2L"] + sys.argv[1:], stdin=subprocess.PIPE)
threading.Thread(target=lambda: os._exit(p.wait()), daemon=True).start()
log = open("$TMP/a2l.in", "a")
for line in iter(sys.stdin.buffer.readline, b""):
    log.write(line.decode()); log.flush()
    p.stdin.write(line); p.stdin.flush()
p.stdin.close()
sys.exit(p.wait())
EOF_PY
chmod +x "$TMP/bin/addr2line"

cat >"$TMP/exp.inline" <<'EOF_OUT'
inl;[unknown];[inlnp];main;LFoo:.bar;work;sq 1
inl;start;main;work 1
inl;start;main;work;sq;asm_sysvec 1
EOF_OUT
cat >"$TMP/exp.context" <<'EOF_OUT'
inl;[unknown];[inlnp];main;LFoo:.bar;work:inl.c:3;sq:inl.c:2 1
inl;start;main:inl.c:4;work:inl.c:3 1
inl;start;main:inl.c:4;work:inl.c:3;sq:inl.c:2;asm_sysvec 1
EOF_OUT

OLDPATH=$PATH
PATH="$TMP/bin:$PATH"
"$SP_FOLD" --from perf-script --weight samples --inline "$TMP/ps2.txt" \
	>"$TMP/out.inline" 2>"$TMP/err.inline" || fail "--inline: exit $?"
PATH=$OLDPATH
awk '{ $NF = $NF / 2; print }' "$TMP/out.inline" | diff -u "$TMP/exp.inline" - ||
	fail "--inline differs"
# One addr2line per module given to it, with the script's options; the
# kernel, the JIT map and [unknown] are never asked.
sort "$TMP/a2l.args" >"$TMP/args"
printf -- '-a -i -f -s -C -e %s\n' /nonexistent/libx.so "$TMP/inl" \
	"$TMP/inlnp" | sort >"$TMP/args.exp"
diff -u "$TMP/args.exp" "$TMP/args" || fail "addr2line runs differ"
grep -q "libx.so" "$TMP/err.inline" ||
	fail "addr2line's complaint about a missing module is not shown"
# Each (module, address) once: main's return address is in two blocks,
# each block twice; the PIE's work is asked at its run-time address,
# then at nm's address of work plus the offset.
grep -v '^,$' "$TMP/a2l.in" | sort | uniq -d >"$TMP/dup"
[ ! -s "$TMP/dup" ] || fail "asked more than once: $(cat "$TMP/dup")"
grep -qx "$(x $RET)" "$TMP/a2l.in" || fail "main's address not asked"
grep -qx "0x$(x $PSQ)" "$TMP/a2l.in" ||
	fail "no retry at nm's address: $(cat "$TMP/a2l.in")"

"$SP_FOLD" --from perf-script --weight samples --inline --context \
	"$TMP/ps.txt" >"$TMP/out.context" 2>/dev/null ||
	fail "--inline --context: exit $?"
diff -u "$TMP/exp.context" "$TMP/out.context" || fail "--context differs"

# With STACKCOLLAPSE=path/to/stackcollapse-perf.pl, the script itself on
# the same text and modules.
if [ -n "${STACKCOLLAPSE:-}" ]; then
	for opt in --inline "--inline --context"; do
		# shellcheck disable=SC2086
		perl "$STACKCOLLAPSE" $opt "$TMP/ps2.txt" >"$TMP/pl.out" 2>/dev/null
		# shellcheck disable=SC2086
		"$SP_FOLD" --from perf-script $opt "$TMP/ps2.txt" >"$TMP/sp.out" \
			2>/dev/null
		diff -u "$TMP/pl.out" "$TMP/sp.out" ||
			fail "differs from the script: $opt"
	done
else
	echo "note: no comparison with stackcollapse-perf.pl" \
		"(set STACKCOLLAPSE=path/to/stackcollapse-perf.pl)"
fi

# addr2line's answers as the script reads them, from a stand-in: pairs
# innermost first, " (discriminator N)" dropped, an unpaired last line
# dropped, "??" and "??:??:0" taken as no answer.
cat >"$TMP/bin/addr2line" <<'EOF_SH'
#!/bin/sh
while read -r a; do
	case $a in
	10) printf '0x10\ninner\nx.c:5 (discriminator 3)\nmid\ny.h:7 (discriminator 12)\nouter\nz.c:9\n' ;;
	20) printf '0x20\nodd\nx.c:1\nleft\n' ;;
	30) printf '0x30\n??\n??:0\n' ;;
	*) printf '0x0\n??\n??:0\n' ;;
	esac
done
EOF_SH
printf 'pp 10/10 [000] 1.000001: 1 cpu-clock:\n\t30 f30 (/m)\n\t20 f20 (/m)\n\t10 f10 (/m)\n\n' \
	>"$TMP/stub.txt"
PATH="$TMP/bin:$PATH"
"$SP_FOLD" --from perf-script --inline "$TMP/stub.txt" >"$TMP/out.stub" ||
	fail "stub: exit $?"
"$SP_FOLD" --from perf-script --inline --context "$TMP/stub.txt" \
	>"$TMP/out.stubc" || fail "stub --context: exit $?"
PATH=$OLDPATH
[ "$(cat "$TMP/out.stub")" = "pp;outer;mid;inner;odd;f30 1" ] ||
	fail "stub: $(cat "$TMP/out.stub")"
[ "$(cat "$TMP/out.stubc")" = "pp;outer:z.c:9;mid:y.h:7;inner:x.c:5;odd:x.c:1;f30 1" ] ||
	fail "stub --context: $(cat "$TMP/out.stubc")"

# --context reads perf script text, told from its first line without
# --from (issue 26); on a record stream it is a usage error.
printf 'spool\t1\t0\t1000\n' | "$SP_FOLD" --context >/dev/null 2>&1
[ $? -eq 2 ] || fail "--context on a record stream is not a usage error"
exit 0

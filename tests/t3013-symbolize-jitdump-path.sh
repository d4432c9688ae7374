#!/bin/sh
# Where jitdumps are found (issue 28): node --perf-prof writes
# jit-PID.dump in its current directory and maps it, and the stream
# carries that mapping as a module: the file read is that one.  Without
# a mapping, perf's agent directories ($JITDUMPDIR/.debug/jit/*/,
# $PERF_BUILDID_DIR/jit/*/), then /tmp.  --perf-map-dir still means that
# directory only, and a mapped path is trusted no more than a /tmp one.
# Then, where node runs, node --perf-prof from a directory of its own.
. "$(dirname "$0")/lib.sh"
command -v python3 >/dev/null || skip "no python3 to write a jitdump"

T='	'
# dump FILE PID NAME: a jitdump with one code load, NAME at 0x1000.
dump() {
	mkdir -p "$(dirname "$1")"
	python3 - "$1" "$2" "$3" <<'PY' || fail "cannot write a jitdump"
import struct, sys
pid, name = int(sys.argv[2]), sys.argv[3].encode()
body = struct.pack("<IIQQQQ", pid, pid, 0x1000, 0x1000, 64, 1)
body += name + b"\0" + b"\x90" * 64
out = struct.pack("<IIIIIIQQ", 0x4A695444, 1, 40, 62, 0, pid, 0, 0)
out += struct.pack("<IIQ", 0, 16 + len(body), 0) + body
open(sys.argv[1], "wb").write(out)
PY
}
# stream PID [MAPPED]: an anonymous frame at 0x1010 of PID, after a
# module record for MAPPED when given.
stream() {
	printf 'spool\t1\t0\t1000\n'
	[ $# -gt 1 ] &&
		printf 'module\t0\t%d\t0x7f0000000000\t0x7f0000001000\t0x0\t1\tuser\t%s\n' \
			"$1" "$2"
	printf 'frame\t0\tuser\t0x1010\t-\t-\npframe\t0\t%d\t-\t-\n' "$1"
}
# name [OPTION...] <STREAM: the name of the pframe's symbol; stderr in
# $TMP/err.
name() {
	"$SP_SYMBOLIZE" "$@" >"$TMP/out" 2>"$TMP/err" ||
		fail "exit $?: $(cat "$TMP/err")"
	awk -F "$T" '$1 == "symbol" && $3 != "-" { print $8 }' "$TMP/out"
}
# Pids that surely run no JIT here: above the kernel's pid_max.
p=$(($(cat /proc/sys/kernel/pid_max) + 100))
export HOME="$TMP/home" JITDUMPDIR="" PERF_BUILDID_DIR=""
mkdir "$HOME"

# The mapped path, outside /tmp, first.
dump "$TMP/cwd/jit-$p.dump" $p "LazyCompile:*mapped app.js:1"
dump "$TMP/maps/jit-$p.dump" $p "LazyCompile:*mapdir app.js:1"
stream $p "$TMP/cwd/jit-$p.dump" >"$TMP/in"
[ "$(name <"$TMP/in")" = "LazyCompile:*mapped app.js:1" ] ||
	fail "mapped jitdump: $(cat "$TMP/out" "$TMP/err")"
[ -s "$TMP/err" ] && fail "unexpected stderr: $(cat "$TMP/err")"
# --perf-map-dir: that directory only.
[ "$(name --perf-map-dir "$TMP/maps" <"$TMP/in")" = \
	"LazyCompile:*mapdir app.js:1" ] || fail "--perf-map-dir: $(cat "$TMP/out")"
# A mapping of another process's dump is no jitdump of this one.
stream $((p + 1)) "$TMP/cwd/jit-$p.dump" >"$TMP/in"
[ "$(name <"$TMP/in")" = "<0x1010>" ] || fail "another pid's dump was read"

# A mapped dump that is a symbolic link is refused, and said so.
ln -s "$TMP/cwd/jit-$p.dump" "$TMP/cwd/jit-$((p + 2)).dump"
stream $((p + 2)) "$TMP/cwd/jit-$((p + 2)).dump" >"$TMP/in"
[ "$(name <"$TMP/in")" = "<0x1010>" ] || fail "a symlinked dump was read"
grep -q "jit-$((p + 2)).dump': a symbolic link; not read" "$TMP/err" ||
	fail "no warning: $(cat "$TMP/err")"

# No mapping: perf's agent directories, the newest dump of the pid.
q=$((p + 3))
dump "$HOME/.debug/jit/java-jit-1.aaaa/jit-$q.dump" $q "old"
dump "$HOME/.debug/jit/java-jit-2.bbbb/jit-$q.dump" $q "Lnew;run()V"
touch -d '2020-01-01' "$HOME/.debug/jit/java-jit-1.aaaa/jit-$q.dump"
stream $q >"$TMP/in"
[ "$(name <"$TMP/in")" = "Lnew;run()V" ] || fail "\$HOME/.debug/jit: $(cat "$TMP/out")"
JITDUMPDIR=$TMP/jd
dump "$JITDUMPDIR/.debug/jit/x.cccc/jit-$q.dump" $q "from JITDUMPDIR"
[ "$(name <"$TMP/in")" = "from JITDUMPDIR" ] || fail "\$JITDUMPDIR: $(cat "$TMP/out")"
r=$((p + 4))
PERF_BUILDID_DIR=$TMP/bid
dump "$PERF_BUILDID_DIR/jit/y.dddd/jit-$r.dump" $r "from PERF_BUILDID_DIR"
stream $r >"$TMP/in"
[ "$(name <"$TMP/in")" = "from PERF_BUILDID_DIR" ] ||
	fail "\$PERF_BUILDID_DIR: $(cat "$TMP/out")"
JITDUMPDIR="" PERF_BUILDID_DIR=""

# node --perf-prof, run from a directory of its own, when there is node.
command -v node >/dev/null ||
	{ echo "no node: its --perf-prof not checked" >&2; exit 0; }
need_perf
mkdir "$TMP/run"
cd "$TMP/run" || fail "cd"
"$SP_RECORD" -o "$TMP/n.spool" -- node --allow-natives-syntax --perf-prof \
	"$PROGRAMS/sym_deopt.js" >/dev/null 2>"$TMP/rec.err" ||
	fail "sp-record: exit $?: $(cat "$TMP/rec.err")"
"$SP_DUMP" "$TMP/n.spool" >"$TMP/n.txt" || fail "sp-dump: exit $?"
grep -q "${T}$TMP/run/jit-[0-9]*\.dump\$" "$TMP/n.txt" ||
	fail "node's jitdump is no module of the spool"
pipeline "$SP_SYMBOLIZE" "$TMP/n.txt" \| "$SP_FOLD" \
	>"$TMP/n.folded" 2>"$TMP/err" ||
	fail "sp-symbolize | sp-fold: $(cat "$TMP/err")"
awk '{ n = $NF; t += n } /\[anon\]/ { anon += n } /;JS:[^;]*spin / { spin += n }
	END { printf "%d %d %d\n", anon, spin, t }' "$TMP/n.folded" >"$TMP/n"
read -r anon spin total <"$TMP/n"
echo "node --perf-prof: $spin of $total samples in spin, $anon [anon]" >&2
[ "$spin" -ge 50 ] && [ "$anon" -eq 0 ] ||
	fail "$(sort -k2n "$TMP/n.folded" | tail -3 | cut -c1-300)"
exit 0

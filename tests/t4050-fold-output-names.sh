#!/bin/sh
# sp-fold -o FILE writes the format FILE's name asks for (issue 26):
# .svg an SVG flame graph, .pb.gz/.pprof/.pb pprof, .json speedscope,
# .folded and any other name folded stacks; --format wins over the name,
# with a warning when they disagree; pprof, which is binary, is refused
# on a terminal; an unknown --format lists the known ones.
. "$(dirname "$0")/lib.sh"
T='	'
{
	printf 'spool\t1\t0\t1000\n'
	printf 'module\t0\t7\t0x1000\t0x2000\t0x0\t0\tuser\t/bin/app\n'
	printf 'frame\t0\tuser\t0x1010\t0\t0x10\n'
	printf 'symbol\t0\t-\t0\t-\t0x0\t-\tmain\n'
	printf 'frame\t1\tuser\t0x1020\t0\t0x20\n'
	printf 'symbol\t1\t-\t0\t-\t0x0\t-\twork\n'
	printf 'stack\t0\t-\t0\nstack\t1\t0\t1\ncomm\t5\t7\t7\texec\tapp\n'
	printf 'sample\t10\t7\t7\t1\nsample\t20\t7\t7\t1\nsample\t30\t7\t7\t0\n'
} >"$TMP/a.rec"
"$SP_FOLD" "$TMP/a.rec" >"$TMP/want.folded" || fail "sp-fold: exit $?"
grep -q '^app;main;work 2$' "$TMP/want.folded" ||
	fail "fixture: $(cat "$TMP/want.folded")"

for f in x.svg x.pb.gz x.pprof x.pb x.json x.folded x.txt; do
	"$SP_FOLD" -o "$TMP/$f" "$TMP/a.rec" 2>"$TMP/err" ||
		fail "-o $f: exit $?: $(cat "$TMP/err")"
	[ -s "$TMP/err" ] && fail "-o $f warned: $(cat "$TMP/err")"
done
python3 -c 'import sys, xml.dom.minidom as m; m.parse(sys.argv[1])' \
	"$TMP/x.svg" || fail "-o x.svg is not SVG"
grep -q '<title>work (2 samples' "$TMP/x.svg" || fail "-o x.svg: no work frame"
for f in x.pb.gz x.pprof x.pb; do
	python3 "$PROGRAMS/pprof_names.py" "$TMP/$f" >"$TMP/names" ||
		fail "-o $f is not pprof"
	grep -qx work "$TMP/names" || fail "-o $f: no work"
done
python3 -c 'import json, sys; d = json.load(open(sys.argv[1]))
assert "work" in [f["name"] for f in d["shared"]["frames"]]' "$TMP/x.json" ||
	fail "-o x.json is not speedscope"
cmp -s "$TMP/want.folded" "$TMP/x.folded" || fail "-o x.folded differs"
cmp -s "$TMP/want.folded" "$TMP/x.txt" || fail "-o x.txt is not folded"

# --format wins; a name that says otherwise is warned about, top is not.
"$SP_FOLD" --format folded -o "$TMP/y.svg" "$TMP/a.rec" 2>"$TMP/err" ||
	fail "--format folded -o y.svg: exit $?"
cmp -s "$TMP/want.folded" "$TMP/y.svg" || fail "--format folded ignored"
one_error sp-fold "$TMP/err"
grep -q "warning: writing folded to '$TMP/y.svg', whose name says svg" \
	"$TMP/err" || fail "no mismatch warning: $(cat "$TMP/err")"
"$SP_FOLD" --format top -o "$TMP/t.svg" "$TMP/a.rec" 2>"$TMP/err" ||
	fail "--format top -o t.svg: exit $?"
[ -s "$TMP/err" ] && fail "--format top warned: $(cat "$TMP/err")"
head -n 1 "$TMP/t.svg" | grep -q '^# 3 samples' || fail "top: $(cat "$TMP/t.svg")"

# pprof on a terminal: a usage error; into a pipe: written.
python3 - "$SP_FOLD" "$TMP/a.rec" >"$TMP/tty" <<'PY' || fail "pty run"
import os, pty, sys
pid, fd = pty.fork()
if pid == 0:
    os.execv(sys.argv[1], [sys.argv[1], "--format", "pprof", sys.argv[2]])
out = b""
while True:
    try:
        chunk = os.read(fd, 4096)
    except OSError:
        break
    if not chunk:
        break
    out += chunk
_, st = os.waitpid(pid, 0)
sys.stdout.write("status %d\n" % os.waitstatus_to_exitcode(st))
sys.stdout.write(out.decode("utf-8", "replace"))
PY
grep -q '^status 2' "$TMP/tty" || fail "pprof to a terminal: $(cat "$TMP/tty")"
grep -q 'sp-fold: pprof is binary: not to a terminal' "$TMP/tty" ||
	fail "pprof to a terminal: $(cat "$TMP/tty")"
pipeline "$SP_FOLD" --format pprof "$TMP/a.rec" \| cat >"$TMP/p.pb.gz" ||
	fail "pprof into a pipe"
gzip -t "$TMP/p.pb.gz" || fail "pprof into a pipe is not gzip"

# A format that does not exist: the message lists the ones that do.
"$SP_FOLD" --format flamegraph "$TMP/a.rec" >/dev/null 2>"$TMP/err"
[ $? -eq 2 ] || fail "--format flamegraph: not a usage error"
grep -q "^sp-fold: invalid --format value 'flamegraph' (one of: folded, top, svg, pprof, speedscope, perf-script)\$" \
	"$TMP/err" || fail "--format flamegraph: $(cat "$TMP/err")"
exit 0

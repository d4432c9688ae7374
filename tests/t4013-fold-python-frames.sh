#!/bin/sh
# sp-fold merges Python frames into native stacks (pycode, pynode and
# pystack records): each evaluator frame a pystack names becomes its
# Python frames, the interpreter's call glue between them is left out
# (kept with --interpreter-frames), the C extension above and the
# start-up below stay, a truncated Python part starts with the marker and
# an inconsistent one is native only with a note on stderr.  Python
# frames carry file:line into SVG tooltips, speedscope, pprof and perf
# script text.  With CPython on the machine, a real recording of
# py_frames.py reads <module>;level1;level2;... with native frames in
# place.
. "$(dirname "$0")/lib.sh"

cat >"$TMP/a.rec" <<'EOF_IN'
spool	1	1700000000000000	1000
module	0	7	0x400000	0x500000	0x0	11	user	/usr/bin/python3
comm	100	7	7	exec	python3
frame	0	user	0x400000	0	0x0
symbol	0	-	0	-	0x0	-	_start
frame	1	user	0x400010	0	0x10
symbol	1	-	0	p	0x0	-	Py_RunMain
frame	2	user	0x400020	0	0x20
symbol	2	-	0	p	0x0	-	PyEval_EvalCode
frame	3	user	0x400030	0	0x30
symbol	3	-	0	p	0x0	-	_PyEval_EvalFrameDefault
frame	4	user	0x400040	0	0x40
symbol	4	-	0	p	0x0	-	PyObject_Vectorcall
frame	5	user	0x400050	0	0x50
symbol	5	-	0	p	0x0	-	_PyFunction_Vectorcall
symbol	5	-	1	pi	-	-	_PyEval_Vector
frame	6	user	0x400060	0	0x60
symbol	6	-	0	p	0x0	-	_PyEval_EvalFrameDefault.cold
frame	7	user	0x400070	0	0x70
symbol	7	-	0	p	0x0	-	builtin_sorted
frame	8	user	0x400080	0	0x80
symbol	8	-	0	p	0x0	-	cfunction_call
frame	9	user	0x400090	0	0x90
symbol	9	-	0	p	0x0	-	_PyEval_EvalFrameDefault
frame	10	user	0x4000a0	0	0xa0
symbol	10	-	0	p	0x0	-	cfunction_vectorcall_O
frame	11	user	0x4000b0	0	0xb0
symbol	11	-	0	-	0x0	ext.c:5	ext_hash
stack	0	-	0
stack	1	0	1
stack	2	1	2
stack	3	2	3
stack	4	3	4
stack	5	4	5
stack	6	5	6
stack	7	6	7
stack	8	7	8
stack	9	8	9
stack	10	9	10
stack	11	10	11
pycode	0	1	<module>	/app/main.py
pycode	1	10	main	/app/main.py
pycode	2	20	Worker.run	/app/main.py
pycode	3	30	<lambda>	/app/main.py
pynode	0	-	0	40	entry
pynode	1	0	1	12	-
pynode	2	1	2	22	entry
pynode	3	2	3	31	entry
pynode	4	-	1	13	-
pynode	5	4	2	23	entry
pynode	6	5	3	32	entry
pystack	3	ok	8,5,2
sample	1000000000	7	7	11
pystack	3	ok	8,5,2
sample	1001000000	7	7	11
pystack	6	truncated	5,2
sample	1002000000	7	7	11
pystack	-	inconsistent	-
sample	1003000000	7	7	11
pystack	-	ok	-
sample	1004000000	7	7	2
EOF_IN

check() {	# NAME OPTION...
	_n=$1
	shift
	"$SP_FOLD" "$@" "$TMP/a.rec" >"$TMP/out.$_n" 2>"$TMP/err.$_n" ||
		fail "sp-fold $* exited $?: $(cat "$TMP/err.$_n")"
	diff -u "$TMP/exp.$_n" "$TMP/out.$_n" || fail "sp-fold $*: output differs"
}

cat >"$TMP/exp.default" <<'EOF_OUT'
python3;<stack truncated>;_start;Py_RunMain;PyEval_EvalCode;_PyEval_EvalFrameDefault;PyObject_Vectorcall;_PyFunction_Vectorcall;_PyEval_Vector;main;Worker.run;builtin_sorted;<lambda>;cfunction_vectorcall_O;ext_hash 1
python3;_start;Py_RunMain;PyEval_EvalCode 1
python3;_start;Py_RunMain;PyEval_EvalCode;<module>;main;Worker.run;builtin_sorted;<lambda>;cfunction_vectorcall_O;ext_hash 2
python3;_start;Py_RunMain;PyEval_EvalCode;_PyEval_EvalFrameDefault;PyObject_Vectorcall;_PyFunction_Vectorcall;_PyEval_Vector;_PyEval_EvalFrameDefault.cold;builtin_sorted;cfunction_call;_PyEval_EvalFrameDefault;cfunction_vectorcall_O;ext_hash 1
EOF_OUT
check default
grep -qx 'sp-fold: .*1 samples whose Python frames did not fit their native stacks are shown native only' \
	"$TMP/err.default" || fail "no note of the inconsistent sample: $(cat "$TMP/err.default")"

cat >"$TMP/exp.interp" <<'EOF_OUT'
python3;<stack truncated>;_start;Py_RunMain;PyEval_EvalCode;_PyEval_EvalFrameDefault;PyObject_Vectorcall;_PyFunction_Vectorcall;_PyEval_Vector;_PyEval_EvalFrameDefault.cold;main;Worker.run;builtin_sorted;cfunction_call;_PyEval_EvalFrameDefault;<lambda>;cfunction_vectorcall_O;ext_hash 1
python3;_start;Py_RunMain;PyEval_EvalCode 1
python3;_start;Py_RunMain;PyEval_EvalCode;_PyEval_EvalFrameDefault;<module>;main;PyObject_Vectorcall;_PyFunction_Vectorcall;_PyEval_Vector;_PyEval_EvalFrameDefault.cold;Worker.run;builtin_sorted;cfunction_call;_PyEval_EvalFrameDefault;<lambda>;cfunction_vectorcall_O;ext_hash 2
python3;_start;Py_RunMain;PyEval_EvalCode;_PyEval_EvalFrameDefault;PyObject_Vectorcall;_PyFunction_Vectorcall;_PyEval_Vector;_PyEval_EvalFrameDefault.cold;builtin_sorted;cfunction_call;_PyEval_EvalFrameDefault;cfunction_vectorcall_O;ext_hash 1
EOF_OUT
check interp --interpreter-frames

# top names Python functions as any other.
"$SP_FOLD" --format top "$TMP/a.rec" >"$TMP/top" 2>/dev/null || fail "top"
grep -q ' Worker\.run$' "$TMP/top" || fail "top: no Worker.run: $(cat "$TMP/top")"

# SVG: the tooltip of a Python frame names its file and line.
"$SP_FOLD" --format svg "$TMP/a.rec" >"$TMP/a.svg" 2>/dev/null || fail "svg"
grep -q '<title>Worker\.run (2 samples, [0-9.]*%)&#10;/app/main\.py:22</title>' \
	"$TMP/a.svg" || fail "svg: no /app/main.py:22 for Worker.run"

# speedscope: Python frames with their file and first line.
"$SP_FOLD" --format speedscope "$TMP/a.rec" >"$TMP/a.json" 2>/dev/null ||
	fail "speedscope"
python3 - "$TMP/a.json" <<'PY' || fail "speedscope frames"
import json, sys
d = json.load(open(sys.argv[1]))
fr = {f["name"]: f for f in d["shared"]["frames"]}
assert fr["Worker.run"] == {"name": "Worker.run", "file": "/app/main.py",
                            "line": 20}, fr["Worker.run"]
assert fr["<module>"]["line"] == 1, fr["<module>"]
assert "line" not in fr["ext_hash"], fr["ext_hash"]
assert fr["main"]["line"] == 10, fr["main"]
PY

# perf script text: the Python file where the dso goes.
"$SP_FOLD" --format perf-script "$TMP/a.rec" >"$TMP/a.ps" 2>/dev/null ||
	fail "perf-script"
grep -Eq '^	 +0 Worker\.run \(/app/main\.py\)$' "$TMP/a.ps" ||
	fail "perf script: $(grep Worker "$TMP/a.ps")"

# pprof: Function (file, start line), Line (line).
"$SP_FOLD" --format pprof "$TMP/a.rec" >"$TMP/a.pb.gz" 2>/dev/null ||
	fail "pprof"
if command -v go >/dev/null 2>&1; then
	go tool pprof -raw "$TMP/a.pb.gz" >"$TMP/pp.raw" 2>&1 ||
		fail "go tool pprof -raw: $(cat "$TMP/pp.raw")"
	grep -Eq ' Worker\.run /app/main\.py:22 s=20$' "$TMP/pp.raw" ||
		fail "pprof Worker.run: $(grep Worker "$TMP/pp.raw")"
	# (pprof -raw prints a name in <> after the line, in parentheses)
	grep -Eq ' /app/main\.py:31 s=30\(?(<lambda>\))?$' "$TMP/pp.raw" ||
		fail "pprof <lambda>: $(grep lambda "$TMP/pp.raw")"
else
	echo "note: go not installed, go tool pprof not tried"
fi

# A real recording: python3 (no -X perf) running py_frames.py for 1 s of
# CPU, whatever the load.  The recorder's share of inconsistent stacks is
# t1043's to judge; here, every merged stack must read as py-spy's with
# the native frames in place: the start-up under <module>, the script's
# functions without glue between them, a thread's bootstrap under worker.
if ! have_perf; then
	[ "${CI:-}" = true ] && fail "$perf_why"
	echo "note: $perf_why: no real recording"
	exit 0
fi
py=$(python3 -c 'import sys; print(sys.executable)' 2>/dev/null)
if [ -z "$py" ]; then
	echo "note: no python3: no real recording"
	exit 0
fi
"$SP_RECORD" -g dwarf -o "$TMP/py.spool" -- "$py" "$PROGRAMS/py_frames.py" 1c \
	>/dev/null 2>"$TMP/rec.err" || fail "sp-record $py: $(cat "$TMP/rec.err")"
pipeline "$SP_DUMP" "$TMP/py.spool" \| "$SP_SYMBOLIZE" >"$TMP/py.rec" \
	2>/dev/null || fail "sp-dump | sp-symbolize on $py"
"$SP_FOLD" "$TMP/py.rec" >"$TMP/py.folded" 2>"$TMP/py.err" ||
	fail "sp-fold on $py: $(cat "$TMP/py.err")"
"$SP_FOLD" --interpreter-frames "$TMP/py.rec" >"$TMP/py.all" 2>/dev/null ||
	fail "sp-fold --interpreter-frames on $py"

# judge FOLDED: merged stacks (those naming a script function) must start
# with native start-up and hold no interpreter glue between two script
# functions; prints "GOOD MERGED TOTAL".
judge() {
	awk '
	BEGIN {
		# Not <module> nor <lambda>: imported modules have them too.
		n = split("level1 level2 level3 Spinner.spin recurse " \
		    "gen_values gen_values.<locals>.<lambda> worker " \
		    "busy_thread café naïve_函数", f, " ")
		for (i = 1; i <= n; i++) script[f[i]] = 1
		n = split("_PyEval_EvalFrameDefault _PyEval_EvalFrame " \
		    "_PyEval_Vector _PyFunction_Vectorcall PyObject_Vectorcall " \
		    "_PyObject_VectorcallTstate gen_send_ex2 gen_iternext " \
		    "PyIter_Next py_trampoline_evaluator", g, " ")
		for (i = 1; i <= n; i++) glue[g[i]] = 1
	}
	{
		c = $NF; total += c; s = $0; sub(/ [0-9]+$/, "", s)
		k = split(s, fr, ";")
		first = last = 0
		for (i = 2; i <= k; i++)
			if (fr[i] in script) { if (!first) first = i; last = i }
		if (!first)
			next
		merged += c
		ok = fr[2] ~ /^(_start|(__)?clone3?|<stack truncated>)$/
		for (i = first; i <= last; i++)
			if (fr[i] in glue) ok = 0
		if (s ~ /;level1(;|$)/ &&
		    s !~ /;<module>;level1;level2;level3(;|$)/)
			ok = 0
		if (ok) good += c
		else if (bad++ < 3) print "not merged right: " s > "/dev/stderr"
	}
	END { printf "%d %d %d\n", good, merged, total }' "$1"
}
read -r good merged total <<EOF_N
$(judge "$TMP/py.folded")
EOF_N
echo "$py: $merged of $total samples merged, $good read right" >&2
[ "$total" -ge 200 ] || fail "$py: only $total samples"
[ $((merged * 100)) -ge $((total * 50)) ] ||
	fail "$py: only $merged of $total samples have Python frames"
[ "$good" -eq "$merged" ] || fail "$py: $((merged - good)) stacks merged wrong"
grep -q ';<module>;level1;level2;level3;Spinner\.spin;recurse' \
	"$TMP/py.folded" || fail "$py: no <module>;level1;...;recurse stack"
# An interpreter with symbols shows its evaluator under <module> again.
if grep -q '_PyEval_EvalFrameDefault' "$TMP/py.all"; then
	grep -q ';_PyEval_EvalFrameDefault;<module>;level1;' "$TMP/py.all" ||
		fail "$py --interpreter-frames: no evaluator under <module>"
fi
exit 0

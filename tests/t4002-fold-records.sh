#!/bin/sh
# sp-fold folds a hand-written record stream: names from symbol records
# (inlined frames in order, pid-specific ones from pframe), kernel
# functions without their offset and address fallbacks as their module
# unless --addrs, thread and process names from comm records, the truncated
# marker at the root, hidden Python runtime frames, annotations, weights
# and every filter; lost events give one line on stderr; bad input fails
# with its line number.
. "$(dirname "$0")/lib.sh"

cat >"$TMP/a.rec" <<'EOF_IN'
spool	1	1700000000000000	1000
host	hostname=x
module	0	7	0x400000	0x401000	0x0	11	user	/usr/bin/app
module	1	7	0x7f0000000000	0x7f0000100000	0x1000	12	user	/usr/lib/libc.so.6
module	2	-1	0xffffffff81000000	0xffffffff82000000	0x0	0	kernel	[kernel.kallsyms]
module	3	7	0x7e0000000000	0x7e0000001000	0x0	13	user	/usr/bin/python3.11
buildid	0	abcdef0123
frame	0	user	0x400100	0	0x100
symbol	0	-	0	-	0x10	app.c:10	main
frame	1	user	0x400200	0	0x200
symbol	1	-	0	-	0x8	app.c:20	work
symbol	1	-	1	i	-	app.c:22	inner
frame	2	kernel	0xffffffff81000010	2	0x10
symbol	2	-	0	k	0x10	-	do_syscall_64+0x10
frame	3	user	0x7f0000001234	1	0x2234
frame	4	truncated	0x0	-	-
frame	5	user	0x7e0000000100	3	0x100
symbol	5	-	0	ph	0x0	-	_PyEval_EvalFrameDefault
frame	6	user	0x7d0000000010	-	-
pframe	6	7	-	-
symbol	6	7	0	j	0x0	-	py::compute:/app/x.py
stack	0	-	0
stack	1	0	1
stack	2	1	2
stack	3	-	4
stack	4	3	3
stack	5	0	5
stack	6	5	6
comm	100	7	7	exec	app
comm	110	7	8	name	worker 1
sample	1000000000	7	7	1
sample	1001000000	7	7	1
sample	1002000000	7	8	2
sample	1003000000	7	8	4
sample	1004000000	7	7	6
sample	1005000000	9	9	0
lost	1006000000	3
EOF_IN

check() {	# NAME OPTION...
	_n=$1
	shift
	"$SP_FOLD" "$@" "$TMP/a.rec" >"$TMP/out.$_n" 2>"$TMP/err.$_n" ||
		fail "sp-fold $* exited $?"
	diff -u "$TMP/exp.$_n" "$TMP/out.$_n" || fail "sp-fold $*: output differs"
}

cat >"$TMP/exp.default" <<'EOF_OUT'
:9;main 1
app;main;py::compute:/app/x.py 1
app;main;work;inner 2
worker_1;<stack truncated>;[libc.so.6] 1
worker_1;main;work;inner;do_syscall_64 1
EOF_OUT
check default 

cat >"$TMP/exp.kernel" <<'EOF_OUT'
:9;main 1
app;main;py::compute:/app/x.py 1
app;main;work;inner 2
worker_1;<stack truncated>;[libc.so.6] 1
worker_1;main;work;inner;do_syscall_64_[k] 1
EOF_OUT
check kernel --kernel

cat >"$TMP/exp.all" <<'EOF_OUT'
:9;main 1
app;main;py::compute:/app/x.py_[j] 1
app;main;work;inner_[i] 2
worker_1;<stack truncated>;[libc.so.6] 1
worker_1;main;work;inner_[i];do_syscall_64_[k] 1
EOF_OUT
check all --all

cat >"$TMP/exp.tid" <<'EOF_OUT'
:9-9/9;main 1
app-7/7;main;py::compute:/app/x.py 1
app-7/7;main;work;inner 2
worker_1-7/8;<stack truncated>;[libc.so.6] 1
worker_1-7/8;main;work;inner;do_syscall_64 1
EOF_OUT
check tid --tid

cat >"$TMP/exp.pname" <<'EOF_OUT'
:9;main 1
app;<stack truncated>;[libc.so.6] 1
app;main;py::compute:/app/x.py 1
app;main;work;inner 2
app;main;work;inner;do_syscall_64 1
EOF_OUT
check pname --process-name

cat >"$TMP/exp.nocomm" <<'EOF_OUT'
<stack truncated>;[libc.so.6] 1
main 1
main;py::compute:/app/x.py 1
main;work;inner 2
main;work;inner;do_syscall_64 1
EOF_OUT
check nocomm --no-comm

cat >"$TMP/exp.addrs" <<'EOF_OUT'
:9;main 1
app;main;py::compute:/app/x.py 1
app;main;work;inner 2
worker_1;<stack truncated>;libc.so.6+0x2234 1
worker_1;main;work;inner;do_syscall_64+0x10 1
EOF_OUT
check addrs --addrs

cat >"$TMP/exp.hidden" <<'EOF_OUT'
:9;main 1
app;main;_PyEval_EvalFrameDefault;py::compute:/app/x.py 1
app;main;work;inner 2
worker_1;<stack truncated>;[libc.so.6] 1
worker_1;main;work;inner;do_syscall_64 1
EOF_OUT
check hidden --show-hidden

cat >"$TMP/exp.weight" <<'EOF_OUT'
:9;main 1000000
app;main;py::compute:/app/x.py 1000000
app;main;work;inner 2000000
worker_1;<stack truncated>;[libc.so.6] 1000000
worker_1;main;work;inner;do_syscall_64 1000000
EOF_OUT
check weight --weight time

cat >"$TMP/exp.pidfilter" <<'EOF_OUT'
app-7/7;main;py::compute:/app/x.py 1
app-7/7;main;work;inner 2
worker_1-7/8;<stack truncated>;[libc.so.6] 1
worker_1-7/8;main;work;inner;do_syscall_64 1
EOF_OUT
check pidfilter --pid=7 --tid

cat >"$TMP/exp.time" <<'EOF_OUT'
:9;main 1
app;main;py::compute:/app/x.py 1
worker_1;<stack truncated>;[libc.so.6] 1
EOF_OUT
check time --time 0.0025,

cat >"$TMP/exp.include" <<'EOF_OUT'
app;main;work;inner 2
worker_1;main;work;inner;do_syscall_64 1
EOF_OUT
check include --include ^work$

cat >"$TMP/exp.exclude" <<'EOF_OUT'
:9;main 1
app;main;py::compute:/app/x.py 1
app;main;work;inner 2
worker_1;main;work;inner;do_syscall_64 1
EOF_OUT
check exclude --exclude libc

cat >"$TMP/exp.depth" <<'EOF_OUT'
:9;main 1
app;main 3
worker_1;<stack truncated> 1
worker_1;main 1
EOF_OUT
check depth --max-depth 1

cat >"$TMP/exp.comm" <<'EOF_OUT'
worker_1;<stack truncated>;[libc.so.6] 1
worker_1;main;work;inner;do_syscall_64 1
EOF_OUT
check comm --comm 'worker 1'

grep -qx "sp-fold: '.*a.rec': 3 samples lost by the kernel or the recorder; 6 samples read" \
	"$TMP/err.default" || fail "no lost-samples line: $(cat "$TMP/err.default")"

# Standard input, and perf script text that folds back to the same stacks.
"$SP_FOLD" <"$TMP/a.rec" >"$TMP/out.stdin" 2>/dev/null || fail "stdin: exit $?"
diff -u "$TMP/exp.default" "$TMP/out.stdin" || fail "stdin output differs"
"$SP_FOLD" --format perf-script "$TMP/a.rec" >"$TMP/ps.txt" 2>/dev/null ||
	fail "perf-script: exit $?"
grep -q '^app 7/7 1.000000: 1000000 cpu-clock: $' "$TMP/ps.txt" ||
	fail "no perf script header"
# The inlined frame, "(inlined)" in perf script text, is a frame of its
# own; not annotated, as stackcollapse-perf.pl annotates none of these
# (its --inline runs addr2line, t4012).
"$SP_FOLD" --from perf-script --weight samples --all "$TMP/ps.txt" \
	>"$TMP/out.ps" ||
	fail "refold: exit $?"
grep -qx 'app;main;work;inner 2' "$TMP/out.ps" || fail "inlined lost"
grep -qx 'app;main;py::compute:/app/x.py_\[j\] 1' "$TMP/out.ps" ||
	fail "jit frame lost"

# An svg of --weight time counts nanoseconds, not samples.
"$SP_FOLD" --format svg --weight time "$TMP/a.rec" 2>/dev/null >"$TMP/w.svg" ||
	fail "svg --weight time"
grep -q '<title>main ([0-9]* nanoseconds, ' "$TMP/w.svg" ||
	fail "svg unit: $(grep -o '<title>main[^<]*' "$TMP/w.svg")"

# --max-depth cuts perf script output as it cuts folded stacks, inside
# an inline chain too (issue 13).  (Not "worker 1": perf script text
# cannot tell a thread name with a space and digits from its pid.)
pipeline "$SP_FOLD" --format perf-script --max-depth 2 "$TMP/a.rec" \
	\| "$SP_FOLD" --from perf-script --weight samples >"$TMP/ps.all" \
	2>/dev/null || fail "perf-script --max-depth"
grep -v '^worker' "$TMP/ps.all" >"$TMP/ps.depth"
"$SP_FOLD" --max-depth 2 "$TMP/a.rec" >"$TMP/f.all" 2>/dev/null ||
	fail "folded --max-depth"
grep -v '^worker' "$TMP/f.all" >"$TMP/f.depth"
grep -q '^app;main;work 2$' "$TMP/f.depth" || fail "depth 2: $(cat "$TMP/f.depth")"
diff -u "$TMP/f.depth" "$TMP/ps.depth" || fail "perf script depth differs"

# speedscope: a profile per thread, samples in time order, filters apply.
"$SP_FOLD" --format speedscope --include '^work$' "$TMP/a.rec" >"$TMP/ss.json" \
	2>/dev/null || fail "speedscope: exit $?"
python3 - "$TMP/ss.json" <<'PY' || fail "speedscope check failed"
import json, sys
d = json.load(open(sys.argv[1]))
assert d["$schema"].endswith("file-format-schema.json")
fr = [f["name"] for f in d["shared"]["frames"]]
got = {p["name"]: [[fr[i] for i in s] for s in p["samples"]]
       for p in d["profiles"]}
assert got["app (7/7)"] == [["main", "work", "inner"]] * 2, got
assert got["worker 1 (7/8)"] == [["main", "work", "inner", "do_syscall_64"]], got
assert got["? (9/9)"] == [], got
for p in d["profiles"]:
    assert p["unit"] == "nanoseconds" and len(p["weights"]) == len(p["samples"])
PY
# Each sample sits on the time axis where it happened: idle time between
# samples is an empty sample, so the weights span start to end (issue 13).
"$SP_FOLD" --format speedscope "$TMP/a.rec" >"$TMP/ss2.json" 2>/dev/null ||
	fail "speedscope: exit $?"
python3 - "$TMP/ss2.json" <<'PY' || fail "speedscope times check failed"
import json, sys
d = json.load(open(sys.argv[1]))
at = {}
for p in d["profiles"]:
    assert sum(p["weights"]) == p["endValue"] - p["startValue"], p
    t, starts = p["startValue"], []
    for s, w in zip(p["samples"], p["weights"]):
        if s:
            starts.append(t)
        t += w
    at[p["name"]] = starts
ms = 1000000
assert at["app (7/7)"] == [0, 1 * ms, 4 * ms], at
# frames carry the source file the symbol records gave (not the line:
# it is where a sample was, and would split a function in many frames)
fr = {f["name"]: f for f in d["shared"]["frames"]}
assert fr["main"].get("file") == "app.c" and "line" not in fr["main"], fr["main"]
assert "file" not in fr["[libc.so.6]"], fr["[libc.so.6]"]
assert at["worker 1 (7/8)"] == [2 * ms, 3 * ms], at
PY
"$SP_FOLD" --format perf-script --exclude work "$TMP/a.rec" >"$TMP/ps.ex" \
	2>/dev/null || fail "--exclude on perf-script exited $?"
grep -c 'cpu-clock: $' "$TMP/ps.ex" >"$TMP/n"
[ "$(cat "$TMP/n")" = 3 ] || fail "--exclude on perf-script kept $(cat "$TMP/n")"

# A 20000-frame stack folds whole (its id tables grow geometrically,
# issue 11: one realloc per id took seconds under ASan).
awk 'BEGIN {
	n = 20000; print "spool\t1\t0\t1000"
	for (i = 0; i < n; i++) {
		printf "frame\t%d\tuser\t0x%x\t-\t-\n", i, 4096 + i
		printf "symbol\t%d\t-\t0\t-\t-\t-\tf%d\n", i, i
	}
	for (i = 0; i < n; i++)
		printf "stack\t%d\t%s\t%d\n", i, i ? i - 1 : "-", i
	printf "sample\t1\t1\t1\t%d\n", n - 1
}' >"$TMP/deep.rec"
"$SP_FOLD" --no-comm "$TMP/deep.rec" >"$TMP/deep.out" || fail "deep stack"
[ "$(tr ';' '\n' <"$TMP/deep.out" | wc -l)" = 20000 ] ||
	fail "deep stack: $(tr ';' '\n' <"$TMP/deep.out" | wc -l) frames"
head -c 9 "$TMP/deep.out" | grep -q '^f0;f1;f2' || fail "deep stack order"

# Errors name the line and exit 1.  (The stream is an argument: a
# function at the end of a pipeline runs in a subshell, where fail could
# not stop the test.)
expect_error() {	# WHAT MESSAGE STREAM(printf format)
	# shellcheck disable=SC2059 # the stream is a format on purpose
	printf "$3" >"$TMP/bad.rec"
	"$SP_FOLD" "$TMP/bad.rec" >/dev/null 2>"$TMP/err"
	[ $? -eq 1 ] || fail "$1: exit status not 1"
	grep -q "$2" "$TMP/err" || fail "$1: got '$(cat "$TMP/err")'"
}
expect_error "unknown stack" "line 2: unknown stack id '9'" \
	'spool\t1\t0\t1000\nsample\t1\t1\t1\t9\n'
expect_error "unknown module" "line 2: unknown module id '3'" \
	'spool\t1\t0\t1000\nframe\t0\tuser\t0x10\t3\t0x10\n'
expect_error "short record" "line 2: stack record with 3 fields" \
	'spool\t1\t0\t1000\nstack\t0\t-\n'
expect_error "bad number" "line 2: malformed sample record: bad PID 'x'" \
	'spool\t1\t0\t1000\nsample\t1\tx\t1\t-\n'
expect_error "version" "line 1: unsupported stream version" \
	'spool\t2\t0\t1000\n'
expect_error "no header" "line 1: not a record stream" \
	'frame\t0\tuser\t0x10\t-\t-\n'
expect_error "cut stream" "line 2: cut or binary line" \
	'spool\t1\t0\t1000\nsample\t1\t1\t1\t-'
# Issue 10: a module defined twice and a half context were accepted.
expect_error "module twice" "line 3: module id 0 did not match expected 1" \
	'spool\t1\t0\t1000\nmodule\t0\t1\t0x0\t0x1\t0x0\t0\tuser\tx\nmodule\t0\t1\t0x0\t0x1\t0x0\t0\tuser\ty\n'
expect_error "half context" "line 2: malformed frame record: module context '-' '0x5'" \
	'spool\t1\t0\t1000\nframe\t0\tuser\t0x10\t-\t0x5\n'
expect_error "CRLF" "line 1: line ends in a carriage return" \
	'spool\t1\t0\t1000\r\n'
exit 0

#!/bin/sh
# sp-fold --from perf-script folds `perf script` text as FlameGraph's
# stackcollapse-perf.pl does: comm with -PID or -PID/TID, offsets stripped,
# [unknown] frames named after their module, names tidied (Go methods,
# anonymous namespaces, quotes, semicolons, Java signatures), the _[k] _[j]
# _[i] annotations, empty stacks, and only the first event type unless
# --event-filter names one.  Expected outputs follow the script's rules.
. "$(dirname "$0")/lib.sh"

cat >"$TMP/in.txt" <<'EOF_IN'
# ========
# cmdline : /usr/bin/perf record -g -- ./app
# ========
#
app 1200/1201 [000] 100.000001:    1001001 cpu-clock: 
	ffffffff8103ce3b native_safe_halt+0xb ([kernel.kallsyms])
	ffffffff8101c6a3 default_idle+0x13 ([kernel.kallsyms])
	            1143 work+0x1a (/opt/app/bin/app)
	            1177 main+0x1b (/opt/app/bin/app)
	           2724a __libc_start_call_main+0x7a (/usr/lib/x86_64-linux-gnu/libc.so.6)

app 1200/1201 [000] 100.001001:    1001001 cpu-clock: 
	            1143 work+0x1a (/opt/app/bin/app)
	            1177 main+0x1b (/opt/app/bin/app)
	           2724a __libc_start_call_main+0x7a (/usr/lib/x86_64-linux-gnu/libc.so.6)

app 1200/1201 [000] 100.001501:    1001001 cpu-clock: 
	            1149 work+0x20 (/opt/app/bin/app)
	            1177 main+0x1b (/opt/app/bin/app)
	           2724a __libc_start_call_main+0x7a (/usr/lib/x86_64-linux-gnu/libc.so.6)

app 1200/1202 [001] 100.001002:    1001001 cpu-clock: 
	    7f0000001000 Interpreter (/tmp/perf-1200.map)
	    7f0000002000 LFoo;.bar(I)V (/tmp/perf-1200.map)
	            f35d [unknown] (/usr/lib/x86_64-linux-gnu/libpthread.so.0)
	               0 [unknown] ([unknown])

V8 WorkerThread 1200/1203 [001] 100.002000:    1001001 cpu-clock: 
	          4e85d9 ext4_file_read_iter (/lib/modules/6.1.0/build/vmlinux)
	            1234 std::vector<int, std::allocator<int> >::push_back(int const&)+0x10 (/opt/app/bin/app)
	            1300 (anonymous namespace)::skipped(int)+0x4 (/opt/app/bin/app)
	            1310 ns::(anonymous namespace)::helper(int)+0x8 (/opt/app/bin/app)
	            1400 net/http.(*Client).Do+0x20 (/opt/app/bin/app)
	            1500 say"hi'there (/opt/app/bin/app)
	            1600 a;b (/opt/app/bin/app)

swapper     0/0     [002] 100.003000:    1001001 cpu-clock: 
	ffffffff8103ce3b native_safe_halt+0xb ([kernel.kallsyms])
	ffffffff8101c6a3 default_idle ([kernel.kallsyms])

app 1201 [000] 100.004000:    1001001 cpu-clock: 

app 1200/1201 [000] 100.005000:      30000 page-faults: 
	            1143 work+0x1a (/opt/app/bin/app)

java 1300/1301 [003] 100.006000:    1001001 cpu-clock: 
	    7f0000003000 Lorg/mozilla/javascript/MemberBox;.<init>(Ljava/lang/reflect/Method;)V (/tmp/perf-1300.map)
	    7f0000004000 Interpreter (/tmp/perf-1300.map)
	    7f0000005000 [unknown] ([vdso])

app 1200/1201 [000] 100.007000:    1001001 cpu-clock: 
	            1143 leafy+0x4 (inlined)
	            1143 inner->innermost (/opt/app/bin/app)
	            1143 work (/opt/app/bin/app)
	            1177 main+0x1b (/opt/app/bin/app)

java 1300/1302 [003] 100.008000:    1001001 cpu-clock: 
	    7f0000006000 Lcom/x/Y;.m()V (/tmp/perf-1300.map)

app 1200/1204 [000] 100.009000:    1001001 cpu-clock: 
	    7f0000006000 Lcom/x/Y;.m()V (/tmp/perf-1300.map)

java 1300/1302 [003] 100.010000:    1001001 cpu-clock: 
	    7f0000006000 Lcom/x/Y;.m()V (/tmp/perf-1300.map)

app 1200/1204 [000] 100.011000:    1001001 cpu-clock: 
	    7f0000006000 Lcom/x/Y;.m()V (/tmp/perf-1300.map)

app 1200/1201 [000] 100.012000:    1001001 cpu-clock: 
	            1143 work+0x1a (/opt/app/bin/app)
EOF_IN

# Expected outputs count samples (--weight samples); by default each
# sample counts the period perf printed (PERIOD for all of in.txt's
# samples of the event kept), as the script counts since 2021.
PERIOD=1001001
check() {	# NAME OPTION...
	_n=$1
	shift
	"$SP_FOLD" --from perf-script --weight samples "$@" "$TMP/in.txt" \
		>"$TMP/out.$_n" 2>"$TMP/err.$_n" || fail "sp-fold $* exited $?"
	diff -u "$TMP/exp.$_n" "$TMP/out.$_n" || fail "sp-fold $*: output differs"
	"$SP_FOLD" --from perf-script "$@" "$TMP/in.txt" >"$TMP/out.p.$_n" \
		2>/dev/null || fail "sp-fold $* (periods) exited $?"
	awk -v p="$PERIOD" '{ $NF = $NF * p; print }' "$TMP/exp.$_n" |
		diff -u - "$TMP/out.p.$_n" || fail "sp-fold $*: periods differ"
}

cat >"$TMP/exp.default" <<'EOF_OUT'
V8_WorkerThread;a:b;sayhithere;net/http.(*Client).Do;ns::(anonymous namespace)::helper;std::vector<int, std::allocator<int> >::push_back;ext4_file_read_iter 1
app 1
app;Lcom/x/Y:.m 2
app;[unknown];[libpthread.so.0];LFoo:.bar;Interpreter 1
app;__libc_start_call_main;main;work 2
app;__libc_start_call_main;main;work;default_idle;native_safe_halt 1
app;main;work;inner;innermost_[i];leafy 1
java;[[vdso]];Interpreter;org/mozilla/javascript/MemberBox:.<init> 1
java;com/x/Y:.m 2
swapper;default_idle;native_safe_halt 1
EOF_OUT
check default

cat >"$TMP/exp.pid" <<'EOF_OUT'
V8_WorkerThread-1200;a:b;sayhithere;net/http.(*Client).Do;ns::(anonymous namespace)::helper;std::vector<int, std::allocator<int> >::push_back;ext4_file_read_iter 1
app-1200;Lcom/x/Y:.m 2
app-1200;[unknown];[libpthread.so.0];LFoo:.bar;Interpreter 1
app-1200;__libc_start_call_main;main;work 2
app-1200;__libc_start_call_main;main;work;default_idle;native_safe_halt 1
app-1200;main;work;inner;innermost_[i];leafy 1
app-? 1
java-1300;[[vdso]];Interpreter;org/mozilla/javascript/MemberBox:.<init> 1
java-1300;com/x/Y:.m 2
swapper-?;default_idle;native_safe_halt 1
EOF_OUT
check pid --pid

cat >"$TMP/exp.tid" <<'EOF_OUT'
V8_WorkerThread-1200/1203;a:b;sayhithere;net/http.(*Client).Do;ns::(anonymous namespace)::helper;std::vector<int, std::allocator<int> >::push_back;ext4_file_read_iter 1
app-1200/1201;__libc_start_call_main;main;work 2
app-1200/1201;__libc_start_call_main;main;work;default_idle;native_safe_halt 1
app-1200/1201;main;work;inner;innermost_[i];leafy 1
app-1200/1202;[unknown];[libpthread.so.0];LFoo:.bar;Interpreter 1
app-1200/1204;Lcom/x/Y:.m 2
app-?/1201 1
java-1300/1301;[[vdso]];Interpreter;org/mozilla/javascript/MemberBox:.<init> 1
java-1300/1302;com/x/Y:.m 2
swapper-?/0;default_idle;native_safe_halt 1
EOF_OUT
check tid --tid

cat >"$TMP/exp.kernel" <<'EOF_OUT'
V8_WorkerThread;a:b;sayhithere;net/http.(*Client).Do;ns::(anonymous namespace)::helper;std::vector<int, std::allocator<int> >::push_back;ext4_file_read_iter_[k] 1
app 1
app;Lcom/x/Y:.m 2
app;[unknown];[libpthread.so.0];LFoo:.bar;Interpreter 1
app;__libc_start_call_main;main;work 2
app;__libc_start_call_main;main;work;default_idle_[k];native_safe_halt_[k] 1
app;main;work;inner;innermost_[i];leafy 1
java;[[vdso]]_[k];Interpreter;org/mozilla/javascript/MemberBox:.<init> 1
java;com/x/Y:.m 2
swapper;default_idle_[k];native_safe_halt_[k] 1
EOF_OUT
check kernel --kernel

cat >"$TMP/exp.jit" <<'EOF_OUT'
V8_WorkerThread;a:b;sayhithere;net/http.(*Client).Do;ns::(anonymous namespace)::helper;std::vector<int, std::allocator<int> >::push_back;ext4_file_read_iter 1
app 1
app;Lcom/x/Y:.m_[j] 2
app;[unknown];[libpthread.so.0];LFoo:.bar_[j];Interpreter_[j] 1
app;__libc_start_call_main;main;work 2
app;__libc_start_call_main;main;work;default_idle;native_safe_halt 1
app;main;work;inner;innermost_[i];leafy 1
java;[[vdso]];Interpreter_[j];org/mozilla/javascript/MemberBox:.<init>_[j] 1
java;com/x/Y:.m_[j] 2
swapper;default_idle;native_safe_halt 1
EOF_OUT
check jit --jit

cat >"$TMP/exp.all" <<'EOF_OUT'
V8_WorkerThread;a:b;sayhithere;net/http.(*Client).Do;ns::(anonymous namespace)::helper;std::vector<int, std::allocator<int> >::push_back;ext4_file_read_iter_[k] 1
app 1
app;Lcom/x/Y:.m_[j] 2
app;[unknown];[libpthread.so.0];LFoo:.bar_[j];Interpreter_[j] 1
app;__libc_start_call_main;main;work 2
app;__libc_start_call_main;main;work;default_idle_[k];native_safe_halt_[k] 1
app;main;work;inner;innermost_[i];leafy 1
java;[[vdso]]_[k];Interpreter_[j];org/mozilla/javascript/MemberBox:.<init>_[j] 1
java;com/x/Y:.m_[j] 2
swapper;default_idle_[k];native_safe_halt_[k] 1
EOF_OUT
check all --all

cat >"$TMP/exp.addrs" <<'EOF_OUT'
V8_WorkerThread;a:b;sayhithere;net/http.(*Client).Do;ns::(anonymous namespace)::helper;std::vector<int, std::allocator<int> >::push_back;ext4_file_read_iter 1
app 1
app;Lcom/x/Y:.m 2
app;[unknown <0>];[libpthread.so.0 <f35d>];LFoo:.bar;Interpreter 1
app;__libc_start_call_main;main;work 2
app;__libc_start_call_main;main;work;default_idle;native_safe_halt 1
app;main;work;inner;innermost_[i];leafy 1
java;[[vdso] <7f0000005000>];Interpreter;org/mozilla/javascript/MemberBox:.<init> 1
java;com/x/Y:.m 2
swapper;default_idle;native_safe_halt 1
EOF_OUT
check addrs --addrs

cat >"$TMP/exp.event-filter" <<'EOF_OUT'
app;work 1
EOF_OUT
PERIOD=30000
check event-filter --event-filter=page-faults
PERIOD=1001001

# --inline asks addr2line (t4012 has it resolve a real program); where
# it knows nothing, here an addr2line that reads no module, frames keep
# perf's names, "(inlined)" frames too (the script gives them to
# addr2line as a file named "inlined"), with no _[i].
mkdir "$TMP/noa2l"
printf '#!/bin/sh\nexit 1\n' >"$TMP/noa2l/addr2line"
chmod +x "$TMP/noa2l/addr2line"
cp "$TMP/exp.default" "$TMP/exp.inline"
cp "$TMP/exp.default" "$TMP/exp.inline-context"
OLDPATH=$PATH
PATH="$TMP/noa2l:$PATH"
check inline --inline
check inline-context --inline --context
PATH=$OLDPATH
# --context alone changes nothing, as in the script.
cp "$TMP/exp.default" "$TMP/exp.context"
check context --context

# The default event filter says which event it kept.
grep -q 'filtering for events of type: cpu-clock' "$TMP/err.default" ||
	fail "no event filter notice"

# Standard input works the same.
"$SP_FOLD" --from perf-script <"$TMP/in.txt" >"$TMP/out.stdin" 2>/dev/null ||
	fail "stdin: exit $?"
diff -u "$TMP/out.p.default" "$TMP/out.stdin" || fail "stdin output differs"

# Unrecognized lines are reported with their number, not fatal.
printf 'ab 1 1.0: cpu-clock:\n\tffff f (m)\n  ???\n\n' >"$TMP/bad.txt"
"$SP_FOLD" --from perf-script "$TMP/bad.txt" >"$TMP/out.bad" 2>"$TMP/err.bad" ||
	fail "unrecognized line: exit $?"
grep -q "line 3: unrecognized line" "$TMP/err.bad" || fail "no line number"
[ "$(cat "$TMP/out.bad")" = "ab;f 1" ] || fail "bad input output: $(cat "$TMP/out.bad")"

# A missing file is an error (1), a bad option a usage error (2).
"$SP_FOLD" --from perf-script "$TMP/nonexistent" 2>/dev/null
[ $? -eq 1 ] || fail "missing file did not exit 1"
"$SP_FOLD" --from perf-script --no-such-option "$TMP/in.txt" 2>/dev/null
[ $? -eq 2 ] || fail "bad option did not exit 2"
for opt in --time=0,1 --pid=1 --format=speedscope --no-comm '--weight time'; do
	# shellcheck disable=SC2086
	"$SP_FOLD" --from perf-script $opt "$TMP/in.txt" >/dev/null 2>&1
	[ $? -eq 2 ] || fail "--from perf-script $opt is not a usage error"
done
# Without --from, perf script text is told from its first line (issue
# 26): --srcline reads it the same; on a record stream it is a usage error.
"$SP_FOLD" --srcline "$TMP/in.txt" >"$TMP/auto" 2>&1 ||
	fail "--srcline on perf script text without --from: exit $?"
"$SP_FOLD" --from perf-script --srcline "$TMP/in.txt" >"$TMP/forced" 2>&1
cmp -s "$TMP/auto" "$TMP/forced" || fail "--srcline: told and forced differ"
printf 'spool\t1\t0\t1000\n' | "$SP_FOLD" --srcline >/dev/null 2>&1
[ $? -eq 2 ] || fail "--srcline on a record stream is not a usage error"

# Issue 11: text saved with CR LF folds as the same text; lines from the
# input reach stderr escaped, never as raw terminal escapes.
printf 'cc 10 1.0: 1 cpu-clock:\r\n\t1 f (x)\r\n\t2 g (x)\r\n\r\n' >"$TMP/crlf.txt"
printf 'cc 10 1.0: 1 cpu-clock:\r\n\t1 f (x)\r\n\t2 g (x)\r\n\r\n' >>"$TMP/crlf.txt"
[ "$("$SP_FOLD" --from perf-script "$TMP/crlf.txt")" = "cc;g;f 2" ] ||
	fail "CRLF text: '$("$SP_FOLD" --from perf-script "$TMP/crlf.txt")'"
printf 'x 1 1.0: 1 cpu-clock:\n\t1 f (x)\n\nb 2 \033]0;pwn\007 \033[2J\n' |
	"$SP_FOLD" --from perf-script >/dev/null 2>"$TMP/esc.err"
grep -q "$(printf '\033')" "$TMP/esc.err" && fail "raw ESC on stderr"
grep -qF 'unrecognized line: b 2 \x1b]0;pwn\x07 \x1b[2J' "$TMP/esc.err" ||
	fail "escaped line: $(cat -v "$TMP/esc.err")"

# --srcline reads perf script -F+srcline: the line after each frame is
# its source, "[...]" parts and blanks dropped, appended with ':'; an
# unknown frame in an unknown module has none.
cat >"$TMP/src.txt" <<'EOF_SRC'
a.out 35081 252436.005167:     667783 cycles:
	          408ebb some_method_name+0x8b (/full/path/to/a.out)
  uniform_int_dist.h:300
	          4069f5 main+0x935 (/full/path/to/a.out)
  file.cpp:137
	    7f6d2148eb25 __libc_start_main+0xd5 (/lib64/libc-2.33.so)
  libc-2.33.so[27b25]

a.out 35081 252435.738373:     315813 cycles:
	    7f6d215ca51b __strlen_avx2+0x4b (/lib64/libc-2.33.so)
  libc-2.33.so[16351b]
	    7ffc71ee9580 [unknown] ([unknown])

a.out 35081 252435.718940:     247984 cycles:
	ffffffff814f9302 up_write+0x32 ([kernel.kallsyms])
  [kernel.kallsyms][ffffffff814f9302]

EOF_SRC
cat >"$TMP/exp.src" <<'EOF_OUT'
a.out;[unknown];__strlen_avx2:libc-2.33.so 315813
a.out;__libc_start_main:libc-2.33.so;main:file.cpp:137;some_method_name:uniform_int_dist.h:300 667783
a.out;up_write 247984
EOF_OUT
cat "$TMP/src.txt" "$TMP/src.txt" >"$TMP/src2.txt"  # the cached path too
pipeline "$SP_FOLD" --from perf-script --srcline "$TMP/src.txt" \
	\| diff -u "$TMP/exp.src" - || fail "--srcline differs"
pipeline "$SP_FOLD" --from perf-script --srcline "$TMP/src2.txt" \
	\| awk '{ $NF = $NF / 2; print }' \| diff -u "$TMP/exp.src" - ||
	fail "--srcline differs on repeated blocks"

# With STACKCOLLAPSE=path/to/stackcollapse-perf.pl, the script itself is
# the reference: in.txt and, when the script sits in a FlameGraph
# checkout, its test/*.txt inputs, with every option of its test suite
# and --inline (both run this machine's addr2line on the modules here).
if [ -z "${STACKCOLLAPSE:-}" ]; then
	echo "note: no comparison with stackcollapse-perf.pl" \
		"(set STACKCOLLAPSE=path/to/stackcollapse-perf.pl)"
	exit 0
fi
[ -f "$STACKCOLLAPSE" ] || fail "STACKCOLLAPSE: no file '$STACKCOLLAPSE'"
cases=0
for f in "$TMP/in.txt" "$(dirname "$STACKCOLLAPSE")"/test/*.txt; do
	[ -f "$f" ] || continue
	for opt in "" --pid --tid --kernel --jit --all --addrs --inline \
		"--inline --context"; do
		# shellcheck disable=SC2086 # no option is one word less
		perl "$STACKCOLLAPSE" $opt "$f" >"$TMP/pl.out" 2>/dev/null
		# shellcheck disable=SC2086
		"$SP_FOLD" --from perf-script $opt "$f" >"$TMP/sp.out" 2>/dev/null
		cmp -s "$TMP/pl.out" "$TMP/sp.out" ||
			fail "differs from the script: $opt $f"
		cases=$((cases + 1))
	done
done
echo "same as stackcollapse-perf.pl in $cases cases"
exit 0

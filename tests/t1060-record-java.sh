#!/bin/sh
# t1060-record-java.sh: OpenJDK's HotSpot runs Java methods as JIT code
# in anonymous memory without CFI, and its interpreter and stubs too.
# With -XX:+PreserveFramePointer the recorder steps through them by their
# frame pointers and goes on with CFI in libjvm.so; with
# -XX:+DumpPerfMapAtExit the JVM writes /tmp/perf-PID.map as it exits,
# which names the compiled methods, the interpreter ("Interpreter") and
# the stubs, as perf names them.  tests/programs/JavaWork.java runs
# main (interpreted) -> work -> mix and work -> scan -> mix for 0.5 s
# of its main thread's CPU time: at least 95% of the samples must reach
# the thread's root, and the hot methods must be named under their
# callers with sensible shares.  The JVM runs with C1 only, the serial
# GC and a small heap, which keeps its start-up cheap under the ASan
# recorder.
. "$(dirname "$0")/lib.sh"
need_perf
for t in java javac; do
	command -v $t >/dev/null 2>&1 && continue
	[ "${CI:-}" = true ] &&
		fail "$t is missing (.ci/install-deps: openjdk-17-jdk-headless)"
	skip "$t is missing: no Java program to record"
done
# JDK 17 brought -XX:+DumpPerfMapAtExit.
if ! java -XX:+UnlockDiagnosticVMOptions -XX:+PrintFlagsFinal -version \
	2>/dev/null | grep -q DumpPerfMapAtExit; then
	[ "${CI:-}" = true ] && fail "java has no -XX:+DumpPerfMapAtExit"
	skip "java has no -XX:+DumpPerfMapAtExit (JDK 17 or later)"
fi

javac -J-XX:TieredStopAtLevel=1 -J-XX:+UseSerialGC -d "$TMP" \
	"$PROGRAMS/JavaWork.java" 2>"$TMP/err" ||
	fail "javac failed: $(cat "$TMP/err")"
"$SP_RECORD" -g dwarf -o "$TMP/java.spool" -- java -Xshare:auto \
	-Xmx64m -XX:+UseSerialGC -XX:TieredStopAtLevel=1 \
	-XX:-UseOnStackReplacement -XX:CompileCommand=quiet \
	-XX:CompileCommand=dontinline,JavaWork::* -XX:+PreserveFramePointer \
	-XX:+UnlockDiagnosticVMOptions -XX:+DumpPerfMapAtExit \
	-cp "$TMP" JavaWork 0.5c >/dev/null 2>"$TMP/err" ||
	fail "sp-record exited $?: $(cat "$TMP/err")"
"$SP_DUMP" "$TMP/java.spool" >"$TMP/java.dump" || fail "sp-dump exited $?"
# The JVM wrote its map in /tmp, where sp-symbolize looks: ours to remove.
pid=$(awk -F'\t' '$1 == "exec" { print $3; exit }' "$TMP/java.dump")
[ -n "$pid" ] || fail "no exec record in the spool"
trap 'rm -rf "$TMP" "/tmp/perf-$pid.map"' EXIT
[ -f "/tmp/perf-$pid.map" ] || fail "the JVM wrote no /tmp/perf-$pid.map"
pipeline "$SP_SYMBOLIZE" \| "$SP_FOLD" <"$TMP/java.dump" >"$TMP/folded" ||
	fail "pipeline failed"

# Roots: the thread start, or the launcher's _start (its binary is
# stripped: "[java]").
rooted "$TMP/folded" 'clone3|start_thread|_start|\[java\]' java 300 95

# share PATTERN: the samples whose stack matches the awk regex PATTERN.
share() {
	awk -v p="$1" '$0 ~ p { n += $NF } END { print n + 0 }' "$TMP/folded"
}
work='StubRoutines \(1\);Interpreter;long JavaWork\.work\(long\[\]\)'
mix='long JavaWork\.mix\(long, int\) [0-9]+$'
all=$(share '.')
under=$(share ';long JavaWork\.work\(long\[\]\)[; ]')
called=$(share "$work[; ]")
leaf=$(share "JavaWork\\.work\\(long\\[\\]\\);$mix")
viascan=$(share "JavaWork\\.scan\\(long\\[\\]\\);$mix")
echo "java: $under of $all samples under work, $called under" \
	"the interpreted main, mix $leaf under work, $viascan under scan" >&2
# Half the samples or more are the workload's (the rest: start-up).
[ $((under * 2)) -ge "$all" ] ||
	fail "only $under of $all samples under JavaWork.work"
# The call stub and the interpreted main, named, above nearly all.
[ $((called * 100)) -ge $((under * 90)) ] ||
	fail "only $called of $under work samples under the call stub" \
		"and the interpreter"
# mix, the hot leaf, under both its callers (each does about half its
# iterations); a sample in a prologue may lose a caller, never many.
[ $((leaf * 100)) -ge $((under * 20)) ] ||
	fail "mix is the leaf under work in only $leaf of $under samples"
[ $((viascan * 100)) -ge $((under * 20)) ] ||
	fail "mix is the leaf under scan in only $viascan of $under samples"
[ $(((leaf + viascan) * 100)) -ge $((under * 70)) ] ||
	fail "mix is the leaf in only $((leaf + viascan)) of $under samples"
exit 0

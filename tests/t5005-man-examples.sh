#!/bin/sh
# The EXAMPLES of every man page work as written: each command (a .Dl
# line, or a -literal block that starts with a command) runs on fixtures
# (a recording, a running app and server, saved kallsyms and perf maps,
# two folded files, stand-ins for perf, flamegraph.pl, curl and
# parca-push) and exits 0.  Skipped: --live (t4011 runs it in a pty),
# recordings without an end (-p without -d), and blocks that show a
# session's output.
. "$(dirname "$0")/lib.sh"
need_perf

work=$TMP/work bin=$TMP/bin
mkdir -p "$work/maps" "$bin"
for t in sp-record sp-dump sp-symbolize sp-fold sp-profile sp-archive; do
	eval "ln -s \"\$SP_$(echo "${t#sp-}" | tr a-z A-Z)\" \"$bin/$t\""
done
cc_prog app live_spin.c -O1 -g
cp "$TMP/app" "$bin/app"
cp "$TMP/app" "$bin/server"
printf '#!/bin/sh\ni=0; while [ $i -lt 50000 ]; do i=$((i+1)); done\n' \
	>"$work/program"
chmod +x "$work/program"
cp "$work/program" "$work/prog"
printf 'all:\n\t@./prog\n' >"$work/Makefile"
# Main: the Java example's class (with no JDK here, a stand-in java runs
# the shell program instead).
if command -v javac >/dev/null 2>&1; then
	printf '%s\n' 'public class Main { public static void main(String[] a) {' \
		'long s = 0; for (int i = 0; i < 3000000; i++) s += i % 7;' \
		'System.out.println(s); } }' >"$work/Main.java"
	(cd "$work" && javac Main.java) || fail "javac Main.java"
else
	printf '#!/bin/sh\nexec "%s"\n' "$work/program" >"$bin/java"
	chmod +x "$bin/java"
fi
# Stand-ins: each reads what it is given and succeeds.
printf '#!/bin/sh\nprintf "app 7/7 1.0: 1000 cpu-clock:\\n\\t1 main (/bin/app)\\n\\n"\n' \
	>"$bin/perf"
printf '#!/bin/sh\ncat >/dev/null; echo "<svg/>"\n' >"$bin/flamegraph.pl"
printf '#!/bin/sh\ncase "$*" in *@-*) cat >/dev/null ;; esac; exit 0\n' \
	>"$bin/curl"
# parca-push: its last argument must be a gzip file (a pprof profile).
printf '#!/bin/sh\nfor f; do :; done; gzip -t "$f"\n' >"$bin/parca-push"
chmod +x "$bin/perf" "$bin/flamegraph.pl" "$bin/curl" "$bin/parca-push"
# 2% of a CPU (0.2 ms of each 10): the examples need samples, not load.
"$bin/app" 2 &
app=$!
"$bin/server" 2 &
server=$!
trap 'kill $app $server 2>/dev/null; rm -rf "$TMP"' EXIT
# pidof app names this test's app only, not another test's.
printf '#!/bin/sh\n[ "$1" = app ] && echo %s || exec %s "$@"\n' "$app" \
	"$(command -v pidof || echo false)" >"$bin/pidof"
chmod +x "$bin/pidof"

"$SP_RECORD" -o "$work/x.spool" -- "$work/program" 2>/dev/null ||
	fail "fixture recording"
pipeline "$SP_DUMP" "$work/x.spool" \| "$SP_SYMBOLIZE" >"$work/x.rec" 2>/dev/null ||
	fail "fixture records"
cp /proc/kallsyms "$work/kallsyms.saved"
printf 'app;main;work 3\napp;main 2\n' >"$work/before.folded"
# what the --interval example (not run: it records without end) writes
"$SP_FOLD" --format pprof "$work/x.rec" >"$work/app-1700000000.pb.gz" ||
	fail "fixture pprof"
printf 'app;main;work 5\napp;main 1\n' >"$work/after.folded"

python3 - "$TOP" >"$TMP/cmds" <<'PY' || fail "extracting EXAMPLES"
import glob, re, sys
top = sys.argv[1]
def unroff(s):
    return s.replace("\\e", "\\").replace("\\&", "")
starts = ("sp-", "perf ", "for ")
for page in sorted(glob.glob(top + "/docs/*.[15]")):
    text = open(page).read()
    if ".Sh EXAMPLES" not in text:
        continue
    ex = text.split(".Sh EXAMPLES", 1)[1].split("\n.Sh ", 1)[0]
    lines, i, cmds = ex.split("\n"), 0, []
    while i < len(lines):
        l = lines[i]
        if l.startswith(".Dl "):
            cmds.append(unroff(l[4:]))
        elif l.startswith(".Bd -literal"):
            block = []
            i += 1
            while i < len(lines) and not lines[i].startswith(".Ed"):
                block.append(unroff(lines[i]))
                i += 1
            if block and block[0].startswith(starts):
                cmd = ""
                for b in block:
                    cmd = cmd + "\n" + b if cmd else b
                    done = not (b.rstrip().endswith(("|", "\\")) or
                                cmd.startswith("for ") and "done" not in b)
                    nxt = block[block.index(b) + 1] if b is not block[-1] else ""
                    if done and not nxt.startswith((" ", "\t", "END")):
                        cmds.append(cmd)
                        cmd = ""
                if cmd:
                    cmds.append(cmd)
        i += 1
    for c in cmds:
        print(page.rsplit("/", 1)[1] + "\t" + c.replace("\n", "\x1f"))
PY
n=0
while IFS='	' read -r page cmd; do
	cmd=$(printf '%s' "$cmd" | tr '\037' '\n')
	case $cmd in
	*--live*) continue ;;
	*"sp-record -p"*) case $cmd in *" -d "*) ;; *) continue ;; esac ;;
	esac
	cmd=$(printf '%s' "$cmd" | sed 's/ -d [0-9][0-9]* / -d 1 /')
	(cd "$work" && PATH="$bin:$PATH" sh -c "$cmd") \
		>"$TMP/out" 2>"$TMP/err" </dev/null ||
		fail "$page: '$cmd' exited $?: $(tail -n 3 "$TMP/err")"
	n=$((n + 1))
done <"$TMP/cmds"
# The JVM of the Java example left its perf map in /tmp (it writes
# there whatever TMPDIR says): ours name Main's methods.
for m in /tmp/perf-*.map; do
	[ -O "$m" ] && [ "$m" -nt "$work/Main.java" ] &&
		grep -q ' Main\.main(' "$m" 2>/dev/null && rm -f "$m"
done
[ "$n" -ge 12 ] || fail "only $n examples ran: $(cat "$TMP/cmds")"
echo "$n man page examples ran"
exit 0

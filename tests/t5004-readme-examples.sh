#!/bin/sh
# The README's commands work as written: every line of its "Quick start"
# and "Everyday use" blocks runs on fixtures (a running program named
# app, a small make project, perf script text from a stand-in perf) and
# exits 0 with its output written.  (--live has its own test, t4011; the
# 10-second recording runs for 1 second.)
. "$(dirname "$0")/lib.sh"
need_perf

work=$TMP/work bin=$TMP/bin
mkdir -p "$work" "$bin"
for t in sp-record sp-dump sp-symbolize sp-fold sp-profile; do
	eval "ln -s \"\$SP_$(echo "${t#sp-}" | tr a-z A-Z)\" \"$bin/$t\""
done
ln -s "$bin" "$work/build"
cc_prog app live_spin.c -O1 -g
cp "$TMP/app" "$bin/app"
# your-program must end by itself: a shell loop
printf '#!/bin/sh\ni=0; while [ $i -lt 100000 ]; do i=$((i+1)); done\n' \
	>"$work/your-program"
chmod +x "$work/your-program"
printf 'all: a b\na:\n\t@sh -c "i=0; while [ \\$$i -lt 20000 ]; do i=\\$$((i+1)); done"\nb:\n\t@true\n' \
	>"$work/Makefile"
# A stand-in perf whose "perf script" prints two samples.
printf '#!/bin/sh\nprintf "app 7/7 1.0: 1000 cpu-clock:\\n\\t1 main (/bin/app)\\n\\n"\n' \
	>"$bin/perf"
chmod +x "$bin/perf"
# 2% of a CPU (0.2 ms of each 10): the examples need samples, not load.
"$bin/app" 2 &
app=$!
trap 'kill $app 2>/dev/null; rm -rf "$TMP"' EXIT
# pidof app names this test's app only, not one of another test run's.
printf '#!/bin/sh\n[ "$1" = app ] && echo %s || exec %s "$@"\n' "$app" \
	"$(command -v pidof || echo false)" >"$bin/pidof"
chmod +x "$bin/pidof"

# The indented lines of a README section, comments cut.
commands() {
	awk -v sec="$1" '
	/^## / { on = ($0 == "## " sec) }
	on && /^    [^ ]/ { sub(/^    /, ""); sub(/  +# .*$/, ""); print }
	' "$TOP/README.md"
}
n=0
for sec in "Quick start" "Everyday use"; do
	commands "$sec" >"$TMP/cmds"
	[ -s "$TMP/cmds" ] || fail "no commands in README section $sec"
	while IFS= read -r cmd; do
		case $cmd in
		*--live*) continue ;;
		make) continue ;;   # the build is make check's own
		esac
		cmd=$(printf '%s' "$cmd" | sed 's/-d [0-9][0-9]* /-d 1 /')
		(cd "$work" && PATH="$bin:$PATH" sh -c "$cmd") \
			>"$TMP/out" 2>"$TMP/err" </dev/null ||
			fail "README: '$cmd' exited $?: $(tail -n 3 "$TMP/err")"
		n=$((n + 1))
	done <"$TMP/cmds"
done
for f in x.spool x.rec x.svg app.spool app.svg app.pb.gz perf.folded \
	build.spool all.spool wait.spool pf.spool; do
	[ -s "$work/$f" ] || fail "README example wrote no $f"
done
grep -q '^app;main 1000$' "$work/perf.folded" ||
	fail "perf.folded: $(cat "$work/perf.folded")"
echo "$n README commands ran"
exit 0

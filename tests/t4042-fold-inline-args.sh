#!/bin/sh
# Issue 24, item 10: sp-fold --from perf-script --inline runs addr2line
# and nm on the module names of its input.  binutils reads an argument
# "@FILE" as a file of more arguments (a module named "@/etc/shadow"
# made them read it), and one starting with '-' as an option: such names
# are passed as "./@...", "./-...".  Stand-ins on PATH record their argv.
. "$(dirname "$0")/lib.sh"

mkdir "$TMP/bin"
for tool in addr2line nm; do
	cat >"$TMP/bin/$tool" <<EOF_SH
#!/bin/sh
for a; do printf '%s\n' "\$a"; done >>"$TMP/$tool.argv"
echo -- >>"$TMP/$tool.argv"
[ $tool = nm ] && exit 0
# Nothing known: each question and the sentinel get an echo and "??".
while read -r a; do printf '0x0\\n??\\n??:0\\n'; done
EOF_SH
	chmod +x "$TMP/bin/$tool"
done
printf 'pp 10/10 [000] 1.000001: 1 cpu-clock:\n\t10 f+0x4 (@/etc/shadow)\n\t20 g+0x8 (-v)\n\t30 h+0x2 (/usr/lib/ok.so)\n\n' \
	>"$TMP/in.txt"
PATH="$TMP/bin:$PATH" "$SP_FOLD" --from perf-script --inline "$TMP/in.txt" \
	>"$TMP/out" 2>"$TMP/err" || fail "exit $?: $(cat "$TMP/err")"
[ "$(cat "$TMP/out")" = "pp;h;g;f 1" ] || fail "output: $(cat "$TMP/out")"
for tool in addr2line nm; do
	[ -s "$TMP/$tool.argv" ] || fail "$tool was not run"
	bad=$(grep -v '^-[aifsCe]$\|^--$' "$TMP/$tool.argv" | grep '^[@-]')
	[ -z "$bad" ] || fail "$tool was given: $bad"
	grep -qx './@/etc/shadow' "$TMP/$tool.argv" || fail "$tool: no ./@/etc/shadow"
	grep -qx './-v' "$TMP/$tool.argv" || fail "$tool: no ./-v"
	grep -qx '/usr/lib/ok.so' "$TMP/$tool.argv" || fail "$tool: other paths changed"
done
exit 0

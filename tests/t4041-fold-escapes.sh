#!/bin/sh
# Issue 24, item 9: no byte of a profiled process's choosing reaches the
# terminal as a control.  A process named "\e]0;PWNED\a\e[2J" (prctl can
# do that), a module path and an event name holding escapes, as sp-fold(1)
# promises: every control byte (C0, DEL, the C1 controls of UTF-8) is
# printed as '?' in folded text (default, --tid, --from folded), top and
# perf script; the record decoder's errors show them as \xHH.
. "$(dirname "$0")/lib.sh"

# no_controls WHAT FILE: FILE holds no control byte but tab and newline.
no_controls() {
	python3 - "$2" <<'PY' || fail "$1: a control byte got through: $(cat -v "$2" | head -5)"
import re, sys
data = open(sys.argv[1], "rb").read()
sys.exit(1 if re.search(rb"[\x00-\x08\x0b-\x1f\x7f]|\xc2[\x80-\x9f]", data) else 0)
PY
}

python3 "$TOP/tests/spoolgen.py" >"$TMP/esc.spool" <<'EOF2'
header 0 1000
module 0 7 0x1000 0x2000 0 1 0 /tmp/m\x1b]0;M\x07.so
comm 1 7 7 0 \x1b]0;PWNED\x07\x1b[2J\xc2\x9b2J
event 0 cyc\x1b[2Jles 1000 0
frame 0 0 0x10
stack 0 - 0
thread 0 7 7
weight 0 1000
sample 1 0 0
EOF2
"$SP_DUMP" "$TMP/esc.spool" >"$TMP/esc.rec" || fail "sp-dump"
for args in "" "--tid" "--pid" "--process-name" "--format top" \
	"--format perf-script" "--format perf-script --tid"; do
	# shellcheck disable=SC2086
	"$SP_FOLD" $args "$TMP/esc.rec" >"$TMP/out" 2>"$TMP/err" ||
		fail "sp-fold $args: $(cat "$TMP/err")"
	no_controls "sp-fold $args" "$TMP/out"
	no_controls "sp-fold $args, stderr" "$TMP/err"
	grep -q 'PWNED\|0.M' "$TMP/out" || fail "sp-fold $args: the names were lost"
done
"$SP_FOLD" "$TMP/esc.rec" >"$TMP/out"
printf '?]0:PWNED??[2J??2J;[m?]0:M?.so] 1\n' | diff -u - "$TMP/out" ||
	fail "folded names"
"$SP_FOLD" --format perf-script "$TMP/esc.rec" >"$TMP/out"
grep -qF '(/tmp/m?]0;M?.so)' "$TMP/out" || fail "perf script module: $(cat -v "$TMP/out")"
grep -qF ' cyc?[2Jles: ' "$TMP/out" || fail "perf script event: $(cat -v "$TMP/out")"

# Folded input from elsewhere: the same.
printf 'a\033]0;X\007;b\302\233c 3\n' >"$TMP/in.folded"
for fmt in folded top; do
	"$SP_FOLD" --from folded --format $fmt "$TMP/in.folded" >"$TMP/out" ||
		fail "--from folded --format $fmt"
	no_controls "--from folded --format $fmt" "$TMP/out"
done
[ "$("$SP_FOLD" --from folded "$TMP/in.folded")" = 'a?]0;X?;b??c 3' ] ||
	fail "--from folded: $("$SP_FOLD" --from folded "$TMP/in.folded" | cat -v)"

# The record decoder's messages quote the input escaped.
printf 'spool\t1\t0\t0\nhost\t\033]0;X\007\n' >"$TMP/bad.rec"
"$SP_FOLD" "$TMP/bad.rec" >/dev/null 2>"$TMP/err" && fail "bad host accepted"
no_controls "decoder error" "$TMP/err"
grep -qF "line 2: host field '\\x1b]0;X\\x07' is not KEY=VALUE" "$TMP/err" ||
	fail "decoder error: $(cat -v "$TMP/err")"
printf 'spool\t\302\233\t0\t0\n' >"$TMP/bad.rec"
"$SP_FOLD" "$TMP/bad.rec" >/dev/null 2>"$TMP/err" && fail "bad version accepted"
no_controls "decoder error, C1" "$TMP/err"
exit 0

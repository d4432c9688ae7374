#!/bin/sh
# t1066-record-python-imports.sh: CPython 3.12 and 3.13 -X perf importing many
# modules in fresh interpreters, next to two busy loops (issue 28: under
# contention, 3% of such stacks once ended in the truncated marker at
# the perf trampolines, right under _find_and_load).  At most 0.1% of
# the samples may stop in the import machinery that way.
. "$(dirname "$0")/lib.sh"
need_perf

# One interpreter of each version found (3.13's trampolines begin at the
# first byte of their mapping, 3.12's do not), or two of the one.
py=
for v in 3.12 3.13; do
	for p in "${PYENV_ROOT:-$HOME/.pyenv}"/versions/"$v".*/bin/"python$v" \
		"$(command -v "python$v" 2>/dev/null)"; do
		[ -x "$p" ] && "$p" -c 'import sys' 2>/dev/null &&
			py="$py $p" && break
	done
done
set -- $py
[ $# -eq 1 ] && set -- "$1" "$1"
if [ -z "$py" ]; then
	[ "${CI:-}" = true ] && fail "no CPython >= 3.12 (pyenv or PATH)"
	skip "no CPython >= 3.12 on PATH or under pyenv"
fi

# Each interpreter imports some 60 standard modules, each for the first
# time (tests/programs/py_imports.py).
cat >"$TMP/drv.py" <<'EOF'
import subprocess, sys
for py in sys.argv[2:]:
    subprocess.run([py, "-X", "perf", sys.argv[1]], check=True)
EOF

sh -c 'while :; do :; done' &
busy1=$!
sh -c 'while :; do :; done' &
busy2=$!
trap 'kill $busy1 $busy2 2>/dev/null; rm -rf "$TMP"' EXIT
"$SP_RECORD" -f -g dwarf -o "$TMP/p.spool" -- "$1" -X perf "$TMP/drv.py" \
	"$PROGRAMS/py_imports.py" "$@" 2>"$TMP/err" ||
	fail "sp-record exited $?: $(cat "$TMP/err")"
kill $busy1 $busy2
pipeline "$SP_DUMP" "$TMP/p.spool" \| "$SP_SYMBOLIZE" \| "$SP_FOLD" \
	>"$TMP/folded" 2>"$TMP/err" || fail "pipeline failed: $(cat "$TMP/err")"

# The frames of importlib's _bootstrap right under the marker.
awk '{ n = $NF; t += n }
	/<stack truncated>;(_find_and_load|_find_and_load_unlocked|_load_unlocked|_call_with_frames_removed|exec_module|_handle_fromlist|py::)/ { bad += n }
	/<stack truncated>/ { tr += n }
	END { printf "%d %d %d\n", t, tr, bad }' "$TMP/folded" >"$TMP/n"
read -r total trunc bad <"$TMP/n"
echo "$* -X perf imports: $total samples, $trunc truncated," \
	"$bad at the import machinery" >&2
[ "$total" -ge 300 ] || fail "only $total samples of the imports"
[ $((bad * 1000)) -le "$total" ] ||
	fail "$bad of $total stacks end in the truncated marker at the import machinery"
exit 0

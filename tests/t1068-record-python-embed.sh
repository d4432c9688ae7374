#!/bin/sh
# t1068-record-python-embed.sh: a program that is not CPython loads
# libpython with dlopen after a while in C (tests/programs/py_embed.c),
# as an application embedding Python does; two processes of one
# executable (a hard link, so two names) run one after the other under
# -f.  The first is probed at its first sample and found without an
# interpreter; the second is then not probed (its executable is known
# plain) until it maps libpython.  Each must get its Python frames:
# at least 80% of its samples under PyRun_SimpleString name the Python
# function embedded_work.
. "$(dirname "$0")/lib.sh"
need_perf

lib=
for v in 3.12 3.13 3.11 3.10; do
	for p in "${PYENV_ROOT:-$HOME/.pyenv}"/versions/"$v".*/lib/libpython"$v".so.1.0 \
		/usr/lib/x86_64-linux-gnu/libpython"$v".so.1.0; do
		[ -f "$p" ] && lib=$p && break
	done
	[ -n "$lib" ] && break
done
if [ -z "$lib" ]; then
	[ "${CI:-}" = true ] && fail "no libpython 3.10-3.13 (pyenv or Debian)"
	skip "no libpython 3.10-3.13 under pyenv or in /usr/lib"
fi

cc_prog py_embed py_embed.c -O2 -g -ldl
ln -f "$TMP/py_embed" "$TMP/py_embed2" || fail "cannot link py_embed"
"$SP_RECORD" -f -g dwarf -o "$TMP/e.spool" -- sh -c \
	'"$1" "$3" 0.2 0.3 && "$2" "$3" 0.2 0.3' sh "$TMP/py_embed" \
	"$TMP/py_embed2" "$lib" 2>"$TMP/err" ||
	fail "sp-record exited $?: $(cat "$TMP/err")"
pipeline "$SP_DUMP" "$TMP/e.spool" \| "$SP_SYMBOLIZE" \| "$SP_FOLD" \
	>"$TMP/folded" 2>"$TMP/err" || fail "pipeline failed: $(cat "$TMP/err")"

for name in py_embed py_embed2; do
	awk -v name="$name" 'index($0, name ";") == 1 && /;PyRun_SimpleString/ {
			py += $NF; if (/;embedded_work/) w += $NF }
		END { printf "%s (%s): %d samples in Python, %d in " \
			"embedded_work\n", name, lib, py, w
		      exit py < 100 || w * 100 < py * 80 }' lib="$lib" \
		"$TMP/folded" >&2 ||
		fail "$name: its Python frames are missing"
done
# The second process was not probed before it mapped libpython.
"$SP_DUMP" "$TMP/e.spool" | grep '^stats' | tr '\t' '\n' |
	grep -q '^python_known_plain=[1-9]' ||
	fail "no process was found plain by its executable"
exit 0

#!/bin/sh
# t1067-record-python-cext.sh: a C extension function called from Python
# (tests/programs/py_cext.c, built against each interpreter's headers)
# while the program alternates every ~65 us between a Python function
# that calls it and one that does not (py_cext.py).  In the merged
# folded stacks the extension's frame must sit above the Python function
# that called it, never above the other one (at most 1% of its samples),
# and at most 5% of its samples may lack Python frames.  Where the BPF
# program reads the stacks at the sample (always under CI=true), it must
# have read at least 90% of them.
. "$(dirname "$0")/lib.sh"
need_perf

# pythons: "PATH INCLUDE" for each interpreter with its headers, one of
# each frame layout (t1043 runs them all): frame objects (3.9), the
# frame stack with C-stack shims (3.12), _Py_DebugOffsets (3.13), and
# Debian's static 3.11.
pythons() {
	for p in /usr/bin/python3 "${PYENV_ROOT:-$HOME/.pyenv}"/versions/3.9.*/bin/python3.9 \
		"${PYENV_ROOT:-$HOME/.pyenv}"/versions/3.12.*/bin/python3.12 \
		"${PYENV_ROOT:-$HOME/.pyenv}"/versions/3.13.*/bin/python3.13; do
		[ -x "$p" ] || continue
		"$p" -c 'import sys, sysconfig, os
v = sys.version_info
inc = sysconfig.get_paths()["include"]
ok = (3, 8) <= v[:2] <= (3, 13) and os.path.exists(inc + "/Python.h")
print(inc if ok else "")' 2>/dev/null | sed "s|^.|$p &|;/^$/d"
	done
}

# check PY INC: builds the extension for PY, records and judges.
check() {
	suffix=$("$1" -c 'import sysconfig
print(sysconfig.get_config_var("EXT_SUFFIX"))')
	rm -rf "$TMP/ext" && mkdir "$TMP/ext"
	${CC:-cc} -O2 -shared -fPIC -I"$2" -o "$TMP/ext/spinext$suffix" \
		"$PROGRAMS/py_cext.c" || fail "cannot build the extension for $1"
	PYTHONPATH=$TMP/ext "$SP_RECORD" -o "$TMP/c.spool" -- "$1" \
		"$PROGRAMS/py_cext.py" 0.3 2>"$TMP/err" ||
		fail "sp-record $1 exited $?: $(cat "$TMP/err")"
	pipeline "$SP_DUMP" "$TMP/c.spool" \| "$SP_SYMBOLIZE" --no-lines \| \
		"$SP_FOLD" \
		>"$TMP/folded" 2>/dev/null || fail "pipeline failed on $1"
	# The Python function nearest under each spinext_burn frame.
	awk '$0 ~ /;spinext_burn/ { n = $NF; e += n; s = $0
		sub(/;spinext_burn.*/, "", s); k = split(s, f, ";"); who = ""
		for (i = k; i > 0 && who == ""; i--)
			if (f[i] ~ /^(with_ext|pure|main)$/) who = f[i]
		if (who == "with_ext") ok += n
		else if (who == "") none += n
		else wrong += n }
		END { printf "%d %d %d %d\n", e, ok, none, wrong }' \
		"$TMP/folded" >"$TMP/n"
	read -r ext ok none wrong <"$TMP/n"
	echo "$1: $ext samples in the extension, $ok under with_ext," \
		"$none without Python frames, $wrong under another" >&2
	[ "$ext" -ge 60 ] || fail "$1: only $ext samples in the extension"
	[ $((wrong * 100)) -le "$ext" ] ||
		fail "$1: $wrong of $ext extension samples under another Python function"
	[ $((none * 100)) -le $((ext * 5)) ] ||
		fail "$1: $none of $ext extension samples without Python frames"
	if grep -q "read at the sample by BPF" "$TMP/err"; then
		bpf=$(sed -n 's/.*Python: \([0-9]*\) stacks\{0,1\} read at the sample.*/\1/p' "$TMP/err")
		all=$(sed -n 's/.*Python: \([0-9]*\) stacks\{0,1\} read from.*/\1/p' "$TMP/err")
		[ $((bpf * 10)) -ge $((all * 9)) ] ||
			fail "$1: only $bpf of $all Python stacks read at the sample"
	elif [ "${CI:-}" = true ]; then
		fail "$1: Python stacks not read by BPF: $(grep 'Python:' "$TMP/err")"
	else
		echo "$1: Python stacks read after the sample (no BPF here)" >&2
	fi
}

pythons >"$TMP/pythons"
[ -s "$TMP/pythons" ] || skip "no CPython 3.8-3.13 with its headers"
while read -r py inc; do
	check "$py" "$inc"
done <"$TMP/pythons"

# A command not named like Python that becomes one (a shell's exec): the
# program is loaded when the CPython process is found, and reads its
# stacks at the samples from then on.  Those before are read late, a
# few: 74 in a loaded test run (the BPF program's load, 9-22 ms of
# CPU, waits for the recorder to get a CPU), so 1.2 s of CPU keeps them
# under a tenth.
read -r py inc <"$TMP/pythons"
"$SP_RECORD" -o "$TMP/s.spool" -- sh -c "exec '$py' '$PROGRAMS/py_work.py' 1.2c" \
	2>"$TMP/err" >/dev/null || fail "sp-record sh -c exec $py exited $?"
if [ "${CI:-}" = true ] || grep -q "read at the sample by BPF" "$TMP/err"; then
	bpf=$(sed -n 's/.*Python: \([0-9]*\) stacks\{0,1\} read at the sample.*/\1/p' "$TMP/err")
	all=$(sed -n 's/.*Python: \([0-9]*\) stacks\{0,1\} read from.*/\1/p' "$TMP/err")
	echo "sh -c exec $py: ${bpf:-0} of ${all:-0} stacks read at the sample" >&2
	[ "${all:-0}" -ge 100 ] || fail "sh -c exec $py: ${all:-0} Python stacks"
	[ $((${bpf:-0} * 10)) -ge $((all * 9)) ] ||
		fail "sh -c exec $py: ${bpf:-0} of $all stacks read at the sample"
fi
exit 0

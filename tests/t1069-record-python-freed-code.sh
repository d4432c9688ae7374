#!/bin/sh
# t1069-record-python-freed-code.sh: a plain CPython importing some 60
# standard modules, each for the first time (tests/programs/py_imports.py),
# recorded by launch: a
# module's body is freed with its name and file name strings as soon as
# it has run, and their memory reused at once by the next import's, so a
# name read after the sample can be another string's ("__stdin__" for
# site.py's body was seen).  Every pycode record of a source file must
# name what that file defines at the code's first line (a def or class
# of that name within the next lines, or a <module>, <lambda>,
# <genexpr>... code), and where the BPF program read the stacks, the
# strings of codes it met first came with them (python_bpf.codes).
. "$(dirname "$0")/lib.sh"
need_perf

# Debian's python3, and a 3.8-3.10 (frames of another layout) if pyenv
# has one.
set -- python3
for v in 3.9 3.10 3.8; do
	for p in "${PYENV_ROOT:-$HOME/.pyenv}"/versions/"$v".*/bin/"python$v"; do
		[ -x "$p" ] && { set -- "$@" "$p"; break 2; }
	done
done

# check.py DUMP: "CHECKED WRONG", then the wrong records.
cat >"$TMP/check.py" <<'PY'
import re, sys
checked, wrong = 0, []
for line in open(sys.argv[1], encoding="utf-8", errors="replace"):
    f = line.rstrip("\n").split("\t")
    if f[0] != "pycode" or not f[4].endswith(".py"):
        continue
    try:
        with open(f[4], encoding="utf-8", errors="replace") as src:
            lines = src.read().split("\n")
    except OSError:
        continue
    checked += 1
    name, first = f[3].split(".")[-1], int(f[2])
    if name.startswith("<"):
        continue
    near = "\n".join(lines[max(first - 1, 0):first + 8])
    if not re.search(r"\b(def|class)\s+" + re.escape(name) + r"\b", near):
        wrong.append(line.strip())
print(checked, len(wrong))
for w in wrong[:5]:
    print(w)
PY

# python3 is the one on PATH (lib.sh), the others by path.
i=0
for py; do
	i=$((i + 1))
	for run in 1 2; do
		"$SP_RECORD" -o "$TMP/$i.spool" -- "$py" "$PROGRAMS/py_imports.py" \
			>/dev/null 2>"$TMP/err" ||
			fail "sp-record $py exited $?: $(cat "$TMP/err")"
		"$SP_DUMP" "$TMP/$i.spool" >"$TMP/$i.$run.dump" ||
			fail "sp-dump failed"
	done
	cat "$TMP/$i.1.dump" "$TMP/$i.2.dump" >"$TMP/$i.dump"
	python3 "$TMP/check.py" "$TMP/$i.dump" >"$TMP/out" ||
		fail "check.py failed"
	read -r checked wrong <"$TMP/out"
	echo "# $py: $checked pycode records of source files, $wrong wrong" >&2
	[ "$checked" -ge 100 ] || fail "$py: only $checked pycode records"
	[ "$wrong" -eq 0 ] ||
		fail "$py: a name not in its file: $(sed -n 2,4p "$TMP/out")"
	if grep -q "read at the sample by BPF" "$TMP/err"; then
		codes=$(grep '^stats' "$TMP/$i.1.dump" | tr '\t' '\n' |
			awk -F= '$1 == "python_bpf.codes" { print $2 }')
		[ "${codes:-0}" -gt 0 ] ||
			fail "$py: no code's strings came from the BPF program"
	fi
done
exit 0

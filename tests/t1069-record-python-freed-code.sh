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
# <genexpr>... code); of the module bodies calling the import machinery
# each must be at a statement of its file, 80% of them at an import,
# and at most a fifth without a line (one recording each: node and code
# ids are a spool's own, so two dumps are never checked as one) (their line tables are freed with them: 38% had none before the
# program copied them); and where the BPF program read the stacks, the
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

# check.py DUMP: "CHECKED WRONG CALLS LINELESS IMPORTS", then what was
# wrong.  CALLS: module bodies calling the import machinery, whose line
# should be a statement of its file (BADLINE: past its end, blank or a
# comment); LINELESS: those without a line; IMPORTS: those at an import
# statement (its line or the three before it: the others import from C,
# a class's metaclass or an enum's conversion).
cat >"$TMP/check.py" <<'PY'
import collections, re, sys
checked, wrong, calls, lineless, imports, badline = 0, [], 0, 0, 0, []
codes, nodes, src = {}, {}, {}
kids = collections.defaultdict(set)


def source(path):
    if path not in src:
        try:
            with open(path, encoding="utf-8", errors="replace") as f:
                src[path] = f.read().split("\n")
        except OSError:
            src[path] = None
    return src[path]


for line in open(sys.argv[1], encoding="utf-8", errors="replace"):
    f = line.rstrip("\n").split("\t")
    if f[0] == "pynode":
        nodes[f[1]] = (f[3], f[4])
        kids[f[2]].add(f[3])
    if f[0] == "pycode":
        codes[f[1]] = (f[3], f[4])
    if f[0] != "pycode" or not f[4].endswith(".py"):
        continue
    lines = source(f[4])
    if lines is None:
        continue
    checked += 1
    name, first = f[3].split(".")[-1], int(f[2])
    if name.startswith("<"):
        continue
    near = "\n".join(lines[max(first - 1, 0):first + 8])
    if not re.search(r"\b(def|class)\s+" + re.escape(name) + r"\b", near):
        wrong.append(line.strip())
for nid, (code, at) in nodes.items():
    name, path = codes.get(code, ("", ""))
    called = {codes.get(c, ("", ""))[0] for c in kids[nid]}
    if name != "<module>" or not called & {"_find_and_load",
                                           "_handle_fromlist"}:
        continue
    calls += 1
    if not re.fullmatch(r"[0-9]+", at) or int(at) < 1:
        lineless += 1
        continue
    lines, n = source(path), int(at)
    if not lines:
        continue
    text = lines[n - 1].strip() if n <= len(lines) else ""
    if not text or text.startswith("#"):
        badline.append("%s:%d: %s" % (path, n, text))
    elif "import" in " ".join(lines[max(n - 4, 0):n]):
        imports += 1
print(checked, len(wrong), calls, lineless, imports, len(badline))
for w in (wrong + badline)[:5]:
    print(w)
PY

# python3 is the one on PATH (lib.sh), the others by path.
i=0
for py; do
	i=$((i + 1))
	"$SP_RECORD" -o "$TMP/$i.spool" -- "$py" "$PROGRAMS/py_imports.py" \
		>/dev/null 2>"$TMP/err" ||
		fail "sp-record $py exited $?: $(cat "$TMP/err")"
	"$SP_DUMP" "$TMP/$i.spool" >"$TMP/$i.dump" || fail "sp-dump failed"
	python3 "$TMP/check.py" "$TMP/$i.dump" >"$TMP/out" ||
		fail "check.py failed"
	read -r checked wrong calls lineless imports badline <"$TMP/out"
	echo "# $py: $checked pycode records of source files, $wrong wrong;" \
		"$calls module bodies calling imports, $lineless without a" \
		"line, $imports at an import, $badline at no statement" >&2
	[ "$checked" -ge 100 ] || fail "$py: only $checked pycode records"
	[ "$wrong" -eq 0 ] ||
		fail "$py: a name not in its file: $(sed -n 2,4p "$TMP/out")"
	[ "$badline" -eq 0 ] ||
		fail "$py: $badline lines at no statement: $(sed -n 2,4p "$TMP/out")"
	[ "$calls" -ge 20 ] || fail "$py: only $calls module bodies importing"
	[ $((lineless * 5)) -le "$calls" ] ||
		fail "$py: $lineless of $calls module bodies without a line"
	[ $((imports * 10)) -ge $(((calls - lineless) * 8)) ] ||
		fail "$py: $imports of $calls module bodies at an import"
	if grep -q "read at the sample by BPF" "$TMP/err"; then
		codes=$(stats_counter "$TMP/$i.dump" python_bpf.codes)
		[ "$codes" -gt 0 ] ||
			fail "$py: no code's strings came from the BPF program"
	fi
done
exit 0

#!/bin/sh
# tests/check-includes.sh: fails when the project's own files include one
# another in a circle, and names each circle with the #include lines that
# close it.  Two graphs are checked: files, where only headers can close a
# circle, and parts, where a part is a .c file with the .h of the same
# name, so that a reader including a writer's header while the writer
# includes the reader's is a circle although no header includes itself.
# A header without a .c of its name (types, or what a tool's files share
# privately) is no part: its includes count as its includer's.
#   sh tests/check-includes.sh [DIR...]
# DIRs default to common/ and the four tool folders, each with its part
# folders (sp-record/unwind/, ...) one level down.  Includes are
# "path" ones, resolved from the top (as -I. does) or from the file's own
# folder; <system> headers and files outside the DIRs are not followed.
# Exit status: 0 no circle, 1 a circle, 2 a missing folder.
cd "$(dirname "$0")/.." || exit 2
[ $# -gt 0 ] || set -- common sp-dump sp-record sp-symbolize sp-fold
files=""
for d in "$@"; do
	d=${d%/}
	[ -d "$d" ] || { echo "check-includes: no folder '$d'" >&2; exit 2; }
	for f in "$d"/*.c "$d"/*.h "$d"/*/*.c "$d"/*/*.h; do
		[ -f "$f" ] && files="$files $f"
	done
done
[ -n "$files" ] || exit 0
# Unit tests take Check through tests/unit/ck.h (no pipe write for every
# assertion that holds).
direct=$(grep -l '^#include <check.h>' tests/unit/*.c 2>/dev/null)
if [ -n "$direct" ]; then
	echo "check-includes: include \"tests/unit/ck.h\", not <check.h>:" $direct >&2
	exit 1
fi
# Header guards are spelled one way: SP_NAME_H in common/, SP_TOOL_NAME_H
# in a tool's folder (sp-fold/args.h: SP_FOLD_ARGS_H) and
# SP_TOOL_PART_NAME_H in a part folder (sp-record/unwind/stack.h:
# SP_RECORD_UNWIND_STACK_H).
headers=""
for f in $files; do
	case $f in *.h) headers="$headers $f" ;; esac
done
# One awk for every header: a process per file costs seconds here.
# shellcheck disable=SC2086 # one word per file on purpose
awk '
function check(f) {
	if (have != wanted || !def) {
		print "check-includes: " f ": guard \047" have "\047, not \047" wanted "\047"
		bad = 1
	}
}
function want(f, w) {
	w = f
	sub(/^\.\//, "", w)
	sub(/\.h$/, "", w)
	sub(/^common\//, "", w)
	sub(/^sp-/, "", w)
	w = "SP_" toupper(w) "_H"
	gsub(/[.\/-]/, "_", w)
	return w
}
FNR == 1 { if (NR > 1) check(prev); prev = FILENAME; have = ""; def = 0; wanted = want(FILENAME) }
have == "" && /^#ifndef / { have = $2 }
$0 == "#define " wanted { def = 1 }
END { check(prev); exit bad }
' $headers || exit 1
# sp-record's parts include one way, as docs/ARCHITECTURE.md's table of
# parts says: a part includes its own files and those of the parts listed
# after it here, never the top's (sp-record/opts.h and the like).  An
# arrow not in the table is a new dependency: change both, or pass the
# part what it needs (capture.h has its own settings, not opts.h).
record_parts="
ptrace: sys
capture: out files sys
python: out files bpf sys
unwind: perf files bpf sys
out: perf files sys
perf: sys
files:
bpf:
sys:
"
record_files=""
for f in $files; do
	case $f in sp-record/*/*) record_files="$record_files $f" ;; esac
done
# shellcheck disable=SC2086 # one word per file on purpose
[ -z "$record_files" ] || awk -v table="$record_parts" '
BEGIN {
	n = split(table, lines, "\n")
	for (i = 1; i <= n; i++) {
		if (split(lines[i], w, " ") < 1)
			continue
		p = w[1]
		sub(/:$/, "", p)
		known[p] = 1
		for (j = 2; j in w; j++)
			may[p, w[j]] = 1
	}
}
/^[ \t]*#[ \t]*include[ \t]*"sp-record\// {
	split(FILENAME, f, "/")
	t = $0
	sub(/^[^"]*"/, "", t)
	sub(/".*/, "", t)
	n = split(t, g, "/")
	if (!(f[2] in known)) {
		print "check-includes: " FILENAME ": part \047" f[2] "\047 is not in the table of parts"
		bad = 1
	} else if (n == 2) {
		print "check-includes: " FILENAME " includes " t ", at the top of sp-record: a part includes only parts"
		bad = 1
	} else if (g[2] != f[2] && !((f[2], g[2]) in may)) {
		print "check-includes: " FILENAME " includes " t ": part " f[2] "/ does not use " g[2] "/"
		bad = 1
	}
}
END { exit bad }' $record_files || exit 1
# shellcheck disable=SC2086 # one word per file on purpose
exec awk '
function part(f) {
	sub(/\.[ch]$/, "", f)
	return f
}
function dir(f) {
	if (f !~ /\//)
		return ""
	sub(/\/[^\/]*$/, "/", f)
	return f
}
# Adds an edge a -> b of graph g (adjacency in adj[g, a]) once.
function edge(g, a, b, why) {
	if (a == b || ((g, a, b) in via))
		return
	via[g, a, b] = why
	adj[g, a] = adj[g, a] " " b
}
# The parts file f reaches, through headers that are no part.
function reach(f, from, why, seen, n, i, t, list) {
	n = split(adj["file", f], list, " ")
	for (i = 1; i <= n; i++) {
		t = list[i]
		if (!(t in partless))
			edge("part", part(from), part(t),
			    why " includes " t)
		else if (!(t in seen)) {
			seen[t] = 1
			reach(t, from, why " includes " t ", which", seen)
		}
	}
}
# Depth-first search of graph g; a grey node met again closes a circle.
function visit(g, p, i, n, q, list, j, k, msg) {
	color[g, p] = 1
	stack[++depth] = p
	n = split(adj[g, p], list, " ")
	for (i = 1; i <= n; i++) {
		q = list[i]
		if (color[g, q] == 1) {
			for (k = depth; stack[k] != q; k--)
				;
			msg = q
			for (j = k + 1; j <= depth; j++)
				msg = msg " -> " stack[j]
			print "check-includes: circle of " g "s: " msg " -> " q
			for (; k < depth; k++)
				print "    " via[g, stack[k], stack[k + 1]]
			print "    " via[g, p, q]
			circles++
		} else if (color[g, q] == 0) {
			visit(g, q)
		}
	}
	depth--
	color[g, p] = 2
}
BEGIN {
	for (i = 1; i < ARGC; i++)
		known[ARGV[i]] = 1
	for (f in known)
		if (f ~ /\.h$/ && !((part(f) ".c") in known))
			partless[f] = 1
}
/^[ \t]*#[ \t]*include[ \t]*"/ {
	t = $0
	sub(/^[^"]*"/, "", t)
	sub(/".*/, "", t)
	if (!(t in known))
		t = dir(FILENAME) t
	if (t in known)
		edge("file", FILENAME, t, FILENAME " includes " t)
}
END {
	for (i = 1; i < ARGC; i++) {
		f = ARGV[i]
		if (!(f in partless)) {
			split("", seen)
			reach(f, f, f, seen)
		}
	}
	for (i = 1; i < ARGC; i++)
		if (color["file", ARGV[i]] == 0)
			visit("file", ARGV[i])
	for (i = 1; i < ARGC; i++)
		if (!(ARGV[i] in partless) && color["part", part(ARGV[i])] == 0)
			visit("part", part(ARGV[i]))
	exit circles ? 1 : 0
}
' $files

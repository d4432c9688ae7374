#!/bin/sh
# tests/check-calls.sh: fails when two or more files of one tool (or of
# common/) call one another in a circle (a.c uses a function or variable
# b.c defines, and b.c, directly or through others, uses one of a.c's),
# and names each circle with one symbol per step.  check-includes.sh sees
# the headers; this sees what the compiled objects really reference, so a
# circle of calls through one shared header is found too.
#
# A tool made of part folders (sp-record/unwind/, sp-fold/write/, ...)
# is held to two more rules: the calls between its parts go one way (no
# circle of parts, however long), and no part calls the files at the
# tool's top (sp-record/recorder.c and the like), which hold the parts
# together.  Each break is named with the symbol that makes it.
#   sh tests/check-calls.sh [OBJDIR]
# OBJDIR defaults to $B/obj (B defaults to build), and must hold the
# objects of common/ and the four tools (make does that).
# Exit status: 0 no circle, 1 a circle or a call upward, 2 no objects.
cd "$(dirname "$0")/.." || exit 2
objdir=${1:-${B:-build}/obj}
set --
# Objects of sources that are gone (a renamed file) would add old edges;
# sp-record/bpf/object.o is made from a .S.
for o in "$objdir"/common/*.o "$objdir"/sp-*/*.o "$objdir"/sp-*/*/*.o; do
	s=${o#"$objdir"/}
	[ -f "${s%.o}.c" ] || [ -f "${s%.o}.S" ] && set -- "$@" "$o"
done
[ $# -gt 0 ] || { echo "check-calls: no objects under '$objdir'" >&2; exit 2; }
# nm -A prints "file: [address] type name"; one line per symbol.
nm -A "$@" 2>/dev/null | awk -v objdir="$objdir" '
# A file is named by its path without .o (sp-record/python/reader), its
# tool by the first folder (sp-record, common), its part by its folder.
function top(f) {
	sub(/\/.*/, "", f)
	return f
}
function folder(f) {
	sub(/\/[^\/]*$/, "", f)
	return f
}
{
	f = $1
	sub(/:[^:]*$/, "", f)
	f = substr(f, length(objdir) + 2)
	sub(/\.o$/, "", f)
	files[f] = 1
	type = NF == 3 ? $2 : $1
	name = $NF
	if (type == "U")
		uses[f, ++nu[f]] = name
	else if (type ~ /^[TDBRCGSVW]$/)
		def[top(f), name] = f
}
# Adds the edge a -> b of graph g (files "F", parts "P") once.
function edge(g, a, b, sym) {
	if ((g, a, b) in why)
		return
	why[g, a, b] = sym
	adj[g, a] = adj[g, a] " " b
	node[g, a] = node[g, b] = 1
}
# Tarjan: each strongly connected set of two or more is a circle.
function visit(g, f, i, n, list, h) {
	idx[g, f] = low[g, f] = ++counter
	stack[++sp] = f
	on[g, f] = 1
	n = split(adj[g, f], list, " ")
	for (i = 1; i <= n; i++) {
		h = list[i]
		if (!((g, h) in idx)) {
			visit(g, h)
			if (low[g, h] < low[g, f])
				low[g, f] = low[g, h]
		} else if (on[g, h] && idx[g, h] < low[g, f])
			low[g, f] = idx[g, h]
	}
	if (low[g, f] == idx[g, f]) {
		n = 0
		do {
			h = stack[sp--]
			on[g, h] = 0
			member[++n] = h
		} while (h != f)
		if (n > 1)
			report(g, n)
	}
}
function report(g, n, i, j, line) {
	bad = 1
	line = "check-calls: circle" (g == "P" ? " of parts" : "") ":"
	for (i = 1; i <= n; i++)
		for (j = 1; j <= n; j++)
			if ((g, member[i], member[j]) in why)
				line = line sprintf(" %s -> %s (%s);", \
					member[i], member[j], \
					why[g, member[i], member[j]])
	print line
}
END {
	for (f in files)
		for (i = 1; i <= nu[f]; i++) {
			g = def[top(f), uses[f, i]]
			if (g == "" || g == f)
				continue
			edge("F", f, g, uses[f, i])
			if (folder(f) == folder(g))
				continue
			edge("P", folder(f), folder(g), uses[f, i])
			if (folder(g) == top(f) && !((f, g) in told)) {
				told[f, g] = 1
				print "check-calls: " f " calls " g \
				    " (" uses[f, i] "), at the top of " \
				    top(f) ": a part calls only parts"
				bad = 1
			}
		}
	for (k in node) {
		split(k, kk, SUBSEP)
		if (!((kk[1], kk[2]) in idx))
			visit(kk[1], kk[2])
	}
	exit bad
}'

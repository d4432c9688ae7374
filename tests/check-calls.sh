#!/bin/sh
# tests/check-calls.sh: fails when two or more files of one folder call
# one another in a circle (a.c uses a function or variable b.c defines,
# and b.c, directly or through others, uses one of a.c's), and names each
# circle with one symbol per step.  check-includes.sh sees the headers;
# this sees what the compiled objects really reference, so a circle of
# calls through one shared header is found too.
#   sh tests/check-calls.sh [OBJDIR]
# OBJDIR defaults to $B/obj (B defaults to build), and must hold the
# objects of common/ and the four tools (make does that).
# Exit status: 0 no circle, 1 a circle, 2 no objects.
cd "$(dirname "$0")/.." || exit 2
objdir=${1:-${B:-build}/obj}
set --
# Objects of sources that are gone (a renamed file) would add old edges.
for o in "$objdir"/common/*.o "$objdir"/sp-*/*.o; do
	s=${o#"$objdir"/}
	[ -f "${s%.o}.c" ] && set -- "$@" "$o"
done
[ $# -gt 0 ] || { echo "check-calls: no objects under '$objdir'" >&2; exit 2; }
# nm -A prints "file: [address] type name"; one line per symbol.
nm -A "$@" 2>/dev/null | awk '
{
	file = $1
	sub(/:[^:]*$/, "", file)
	n = split(file, p, "/")
	f = p[n - 1] "/" p[n]
	dir[f] = p[n - 1]
	type = NF == 3 ? $2 : $1
	name = $NF
	if (type == "U")
		uses[f, ++nu[f]] = name
	else if (type ~ /^[TDBRCGSVW]$/)
		def[p[n - 1], name] = f
}
function visit(f, i, g, s) {
	idx[f] = low[f] = ++counter
	stack[++sp] = f
	on[f] = 1
	for (i = 1; i <= nu[f]; i++) {
		g = def[dir[f], uses[f, i]]
		if (g == "" || g == f)
			continue
		if (!((f, g) in why))
			why[f, g] = uses[f, i]
		if (!(g in idx)) {
			visit(g)
			if (low[g] < low[f])
				low[f] = low[g]
		} else if (on[g] && idx[g] < low[f])
			low[f] = idx[g]
	}
	if (low[f] == idx[f]) {
		s = ""
		n = 0
		do {
			g = stack[sp--]
			on[g] = 0
			member[++n] = g
		} while (g != f)
		if (n > 1)
			report(n)
	}
}
function report(n, i, j, line) {
	bad = 1
	line = "check-calls: circle:"
	for (i = 1; i <= n; i++)
		for (j = 1; j <= n; j++)
			if ((member[i], member[j]) in why)
				line = line sprintf(" %s -> %s (%s);", \
					member[i], member[j], \
					why[member[i], member[j]])
	print line
}
END {
	for (f in dir)
		if (!(f in idx))
			visit(f)
	exit bad
}'

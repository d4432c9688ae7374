# rec_stacks.awk: names the sampled stacks of an sp-dump stream, for the
# sp-record tests.  Usage:
#   nm -n --defined-only PROG | awk -f rec_stacks.awk -v prog=PATH - DUMP
# The first input is nm's output for PROG (a PIE, whose text addresses
# equal file offsets); frames in PROG's modules get their function names,
# frames of other modules their file's basename, kernel frames "[k]",
# unresolved frames "?".  Prints one line per sample:
#   PID TID root;...;leaf
function hex(s,   i, v) {
	v = 0
	s = tolower(s)
	sub(/^0x/, "", s)
	for (i = 1; i <= length(s); i++)
		v = v * 16 + index("0123456789abcdef", substr(s, i, 1)) - 1
	return v
}
function name(f,   m, a, i, best, n) {
	if (fmode[f] == "kernel")
		return "[k]"
	m = fmod[f]
	if (m == "-" || !(m in mpath))
		return "?"
	if (mpath[m] != prog) {
		n = mpath[m]
		sub(/.*\//, "", n)
		return n
	}
	a = hex(frel[f])
	best = "?"
	for (i = 1; i <= nsym; i++) {
		if (symaddr[i] > a)
			break
		best = symname[i]
	}
	return best
}
FNR == NR {
	if ($2 ~ /^[tTwW]$/) {
		symaddr[++nsym] = hex($1)
		symname[nsym] = $3
	}
	next
}
{ split($0, F, "\t") }
F[1] == "module" { mpath[F[2]] = F[9] }
F[1] == "frame" { fmode[F[2]] = F[3]; fmod[F[2]] = F[5]; frel[F[2]] = F[6] }
F[1] == "stack" { sprefix[F[2]] = F[3]; sframe[F[2]] = F[4] }
F[1] == "sample" {
	s = ""
	for (id = F[5]; id != "-" && id != ""; id = sprefix[id])
		s = name(sframe[id]) (s == "" ? "" : ";") s
	print F[3], F[4], s
}

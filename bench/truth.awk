# bench/truth.awk: compares two folded profiles of the same workload.
#
#   awk -f bench/truth.awk -v name=NAME PERF.folded SP.folded
#
# For each: samples, the share whose stack reaches a root (_start, the
# thread start or the dynamic loader's entry, or an unnamed root that
# calls __libc_start_main; with no truncated marker),
# the share whose leaf is unresolved ([unknown], an address, or a
# [module] group).  Then, over perf's 15 functions with the most self
# samples, the largest difference in self share and in total share
# (total: the samples whose stack holds the function), in points.
function root_ok(f) {
	return f ~ /^(_start|__clone3|clone3|__clone|clone|_dl_start_user|__libc_start_main|start_thread)$/
}
function unresolved(f) {
	return f ~ /^\[unknown\]$|^<0x|^0x[0-9a-f]+$|\+0x[0-9a-f]+$|^\[[^]]*\]$/
}
{
	p = FILENAME == ARGV[1] ? 1 : 2
	n = $NF
	s = $0
	sub(/ [0-9]+$/, "", s)
	k = split(s, f, ";")
	total[p] += n
	# a stripped executable's _start has no name: its callee tells
	if (k >= 2 && (root_ok(f[2]) || f[3] ~ /^__libc_start_main/) &&
	    s !~ /<stack truncated>/)
		complete[p] += n
	if (unresolved(f[k]))
		unres[p] += n
	self[p, f[k]] += n
	if (p == 1)
		seen[f[k]] = 1
	delete once
	for (i = 2; i <= k; i++)
		if (!(f[i] in once)) {
			once[f[i]] = 1
			tot[p, f[i]] += n
		}
}
function pct(a, b) { return b ? 100 * a / b : 0 }
function abs(x) { return x < 0 ? -x : x }
END {
	for (p = 1; p <= 2; p++)
		printf "%-24s %-10s %7d samples  %6.2f%% complete  %6.2f%% unresolved\n",
		    name, p == 1 ? "perf" : "stackpulse", total[p],
		    pct(complete[p], total[p]), pct(unres[p], total[p])
	# perf's top 15 by self samples
	m = 0
	for (fn in seen)
		top[++m] = fn
	for (i = 1; i <= m; i++)
		for (j = i + 1; j <= m; j++)
			if (self[1, top[j]] > self[1, top[i]]) {
				t = top[i]; top[i] = top[j]; top[j] = t
			}
	ds = dt = 0
	for (i = 1; i <= m && i <= 15; i++) {
		fn = top[i]
		d = abs(pct(self[1, fn], total[1]) - pct(self[2, fn], total[2]))
		if (d > ds) { ds = d; dsf = fn }
		d = abs(pct(tot[1, fn], total[1]) - pct(tot[2, fn], total[2]))
		if (d > dt) { dt = d; dtf = fn }
	}
	printf "%-24s top-15 largest difference: self %.2f points (%s), total %.2f points (%s)\n",
	    name, ds, dsf, dt, dtf
}

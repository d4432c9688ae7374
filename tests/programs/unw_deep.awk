# unw_deep.awk: judges the folded stacks of unw_deep.c (sp-fold output,
# "COMM;ROOT;...;LEAF COUNT").
#
#   awk -f unw_deep.awk [-v min_pct=99] [-v max_unrooted_pct=1] \
#       [-v stable=1] FOLDED
#
# A stack is right when, root first, it is _start, __libc_start_*
# frames, main, walk, descend, then descend_* frames in one cyclic order
# (a -> b -> c or a -> c -> b; with stable=1 only the first, from
# descend_a), at most 401 of them, then fill as the leaf, or bottom and
# what it calls (steer, clock_gettime, nanosleep...); under walk with no
# descend_*, what walk calls.  A stack that starts
# with the truncated marker must be right from there on.  Stacks without
# walk (start-up, exit) only need to end nowhere near a descend_* frame.
# A stack of right frames that reaches no root without the marker (the
# sample ip alone, when the kernel copied no stack) is unrooted.
# Prints the counts; exits 1 when a stack is wrong, when more than
# max_unrooted_pct percent of the samples are unrooted, or when fewer
# than min_pct percent of the others are complete (right, not
# truncated): a sample the kernel gave no stack is no unwinder's to
# complete (1 to 6 in 1,000 of unw_segs's under load, in its segments'
# mmap and munmap).
BEGIN {
	if (min_pct == "")
		min_pct = 99
	if (max_unrooted_pct == "")
		max_unrooted_pct = 1
	idx["descend_a"] = 0
	idx["descend_b"] = 1
	idx["descend_c"] = 2
}

# Whether f[i..n] is a descend_* run in one order, then at most one leaf.
function run_ok(f, i, n, after_walk,    k, dir, d) {
	k = 0
	dir = -1
	for (; i <= n && f[i] in idx; i++) {
		if (k == 0 && stable && after_walk && f[i] != "descend_a")
			return 0
		if (k > 0) {
			d = (idx[f[i]] - idx[f[i - 1]] + 3) % 3
			if (d == 0 || (dir >= 0 && d != dir) || (stable && d != 1))
				return 0
			dir = d
		}
		k++
	}
	if (k > 401)
		return 0
	if (i > n)
		return 1
	if (k > 0 && f[i] == "fill")
		return i == n
	if (k > 0 && f[i] != "bottom")
		return 0
	for (i++; i <= n; i++)
		if (f[i] ~ /^(descend.*|walk|main|fill|bottom)$/)
			return 0
	return k > 0 || after_walk
}

function judge(stack,    f, n, i, trunc, walk) {
	n = split(stack, f, ";")
	trunc = f[2] == "<stack truncated>"
	i = trunc ? 3 : 2
	if (!trunc) {
		if (f[i] != "_start" && stack ~ /descend_/)
			return run_ok(f, i, n, 0) ? "unrooted" : "wrong"
		if (f[i++] != "_start")
			return "other"
		while (i <= n && f[i] ~ /^__libc_start/)
			i++
		if (f[i] != "main" || f[i + 1] != "walk")
			return stack !~ /descend_/ ? "other" : "wrong"
		i += 2
		walk = 1
		if (f[i] == "descend")
			i++
		else if (f[i] ~ /^descend_/)
			return "wrong"
	} else {
		# Cut short where the program's own frames are not (a libc PLT
		# stub at start-up or exit): outside the walk, not wrong.
		if (stack !~ /;(descend[^;]*|walk|main|fill|bottom)(;|$)/)
			return "other"
		for (; i <= n && f[i] ~ /^(__libc_start.*|main|walk|descend)$/; i++)
			walk = f[i] ~ /^(walk|descend)$/
	}
	if (!run_ok(f, i, n, walk))
		return "wrong"
	return trunc ? "truncated" : "complete"
}

{
	count = $NF
	stack = $0
	sub(/ [0-9]+$/, "", stack)
	kind = judge(stack)
	n[kind] += count
	total += count
	if (kind == "wrong" && shown++ < 5)
		print "wrong: " stack > "/dev/stderr"
}

END {
	other = n["other"] + n["complete"]
	rooted = total - n["unrooted"]
	# The share is of the samples with a stack, those min_pct bounds.
	printf "%d samples: %d complete (%.2f%%), %d truncated, %d unrooted, " \
	    "%d wrong, %d outside walk\n", total, other, \
	    rooted ? 100 * other / rooted : 0, n["truncated"], n["unrooted"], \
	    n["wrong"], n["other"]
	exit n["wrong"] > 0 || total < 100 ||
	    n["unrooted"] * 100 > total * max_unrooted_pct ||
	    other * 100 < rooted * min_pct
}

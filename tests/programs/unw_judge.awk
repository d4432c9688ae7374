# unw_judge.awk: checks the stacks sp-record wrote for unw_chains.c.
#
#   awk -f unw_judge.awk [-v min_pct=99] [-v min_complete=3] SYMS DUMP
#
# SYMS: lines "PATH<tab>DELTA<tab>ADDR<tab>SIZE<tab>NAME" (hex, no 0x) for
# the functions of unw_chains and libunw_lib.so, DELTA being the
# executable segment's vaddr - offset.  DUMP: sp-dump output.
# Each sample's frames that name one of those functions, root first (a run
# of recurse counted as one), must be a prefix of one of the chains below,
# with no truncated marker.  Samples wholly inside the dynamic loader
# (start-up, before main exists) are counted apart.  Prints a summary;
# exits 1 when fewer than min_pct percent of the other samples pass or a
# chain appears complete fewer than min_complete times.
BEGIN {
	FS = "\t"
	nchains = split("qsort_thread run_qsort cmp_ints cmp_key|" \
	    "deep_thread recurse leaf_work|" \
	    "shlib_thread lib_work lib_inner shlib_cb|" \
	    "_start main sig_loop on_signal handler_work|" \
	    "_start main sig_loop sig_spin", chains, "|")
	if (min_pct == "")
		min_pct = 99
	if (recursions == "")
		recursions = 121
	if (min_complete == "")
		min_complete = 3
}

function hex(s,    i, v) {
	s = tolower(s)
	sub(/^0x/, "", s)
	v = 0
	for (i = 1; i <= length(s); i++)
		v = v * 16 + index("0123456789abcdef", substr(s, i, 1)) - 1
	return v
}

# The function at module-relative (file offset) address rel of `path`.
function name_at(path, rel,    i, va) {
	for (i = 1; i <= nsym; i++) {
		if (sym_path[i] != path)
			continue
		va = rel + sym_delta[i]
		if (va >= sym_addr[i] && va < sym_addr[i] + sym_size[i])
			return sym_name[i]
	}
	return ""
}

# Returns the chain index the names follow (prefix), 0 if none; sets full.
function match_chain(k, nrec,    c, n, i, tok, ok) {
	for (c = 1; c <= nchains; c++) {
		n = split(chains[c], tok, " ")
		ok = k > 0 && k <= n
		for (i = 1; ok && i <= k; i++) {
			ok = tok[i] == names[i]
			if (ok && tok[i] == "recurse")
				ok = nrec == recursions || i == k
		}
		if (ok) {
			full = k == n
			return c
		}
	}
	return 0
}

FNR == NR {
	nsym++
	sym_path[nsym] = $1
	sym_delta[nsym] = hex($2)
	sym_addr[nsym] = hex($3)
	sym_size[nsym] = hex($4)
	sym_name[nsym] = $5
	next
}
$1 == "module" { mod_path[$2] = $9 }
$1 == "frame" {
	floader[$2] = $5 != "-" && mod_path[$5] ~ /\/ld-linux[^\/]*$/
	if ($3 == "truncated")
		fname[$2] = "<truncated>"
	else if ($5 != "-")
		fname[$2] = name_at(mod_path[$5], hex($6))
	else
		fname[$2] = ""
}
$1 == "pframe" && $4 != "-" { fname[$2] = name_at(mod_path[$4], hex($5)) }
$1 == "stack" { prefix[$2] = $3; leaf[$2] = $4 }
$1 == "sample" { judge($5) }

function judge(s,    k, nrec, trunc, c, i, j, line, nm, rev, in_ld) {
	in_ld = 1
	for (i = s; i != "-" && i != ""; i = prefix[i])
		in_ld = in_ld && floader[leaf[i]]
	if (in_ld) {
		loader++
		return
	}
	total++
	k = 0
	nrec = 0
	trunc = 0
	# leaf first along the prefixes, then reversed
	for (; s != "-" && s != ""; s = prefix[s]) {
		nm = fname[leaf[s]]
		if (nm == "<truncated>")
			trunc = 1
		else if (nm != "")
			rev[++k] = nm
	}
	j = 0
	for (i = k; i >= 1; i--) {
		if (rev[i] == "recurse" && nrec++ > 0)
			continue
		names[++j] = rev[i]
	}
	c = match_chain(j, nrec)
	if (c && !trunc) {
		ok++
		if (full)
			complete[c]++
		return
	}
	if (shown++ < 5) {
		line = ""
		for (i = 1; i <= j; i++)
			line = line " " names[i]
		printf "bad sample (%s%d recurse):%s\n", \
		    trunc ? "truncated, " : "", nrec, line > "/dev/stderr"
	}
}

END {
	printf "%d samples, %d (%.2f%%) unwound through their chain; " \
	    "%d more in the dynamic loader\n", total, ok, \
	    total ? 100 * ok / total : 0, loader
	status = total < 100 || ok * 100 < total * min_pct
	for (c = 1; c <= nchains; c++) {
		printf "  %4d complete: %s\n", complete[c], chains[c]
		if (complete[c] < min_complete)
			status = 1
	}
	exit status
}

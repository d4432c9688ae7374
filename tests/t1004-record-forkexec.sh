#!/bin/sh
# -f follows a forked child: it inherits its parent's modules (cloned
# module records), its exec starts a new module epoch (exec, deactivate,
# then the new program's modules), and its samples resolve against the
# right program before and after.  Without -f the child is not recorded.
. "$(dirname "$0")/lib.sh"
need_perf
cc_prog rec_chain rec_chain.c -O0 -fno-omit-frame-pointer -pthread
cc_prog rec_forkexec rec_forkexec.c -O0 -fno-omit-frame-pointer

"$SP_RECORD" -f -d 10 -o "$TMP/x.spool" -- "$TMP/rec_forkexec" 1 \
	"$TMP/rec_chain" 0.5 2>"$TMP/err"
rc=$?
cat "$TMP/err" >&2
[ $rc -eq 0 ] || fail "exit status $rc (the command checks its child)"
"$SP_DUMP" "$TMP/x.spool" >"$TMP/dump" || fail "sp-dump rejected the spool"

parent=$(awk -F'\t' '$1 == "exec" { print $3; exit }' "$TMP/dump")
child=$(awk -F'\t' -v p="$parent" '$1 == "exec" && $3 != p { print $3 }' \
	"$TMP/dump")
[ -n "$parent" ] && [ -n "$child" ] || fail "want exec records of 2 pids"

# Order of the child's records: cloned modules, exec, deactivate, new ones.
awk -F'\t' -v c="$child" -v fe="$TMP/rec_forkexec" -v ch="$TMP/rec_chain" '
	$1 == "module" && $3 == c && $9 == fe && !clone { clone = NR }
	$1 == "exec" && $3 == c { exec = NR }
	$1 == "deactivate" && $2 == c && !deact { deact = NR }
	$1 == "module" && $3 == c && $9 == ch && !fresh { fresh = NR }
	END { printf "clone %d exec %d deactivate %d new %d\n", clone, exec,
		deact, fresh > "/dev/stderr"
	      exit !(clone && clone < exec && exec < deact && deact < fresh) }
	' "$TMP/dump" || fail "the child's module epochs are out of order"
grep -q "$(printf '^comm\t.*\t%s\t%s\texec\trec_chain$' "$child" "$child")" \
	"$TMP/dump" || fail "no exec comm record for the child"

nm -n --defined-only "$TMP/rec_forkexec" |
	awk -f "$PROGRAMS/rec_stacks.awk" -v prog="$TMP/rec_forkexec" - \
	"$TMP/dump" >"$TMP/before"
nm -n --defined-only "$TMP/rec_chain" |
	awk -f "$PROGRAMS/rec_stacks.awk" -v prog="$TMP/rec_chain" - \
	"$TMP/dump" >"$TMP/after"
n=$(awk -v c="$child" '$1 == c && $3 ~ /;main;child_spin$/' "$TMP/before" |
	wc -l)
[ "$n" -gt 0 ] || fail "only $n child samples in child_spin before exec"
n=$(awk -v c="$child" '$1 == c && $3 ~ /;main;run;chain_a;chain_b;chain_c;spin$/' \
	"$TMP/after" | wc -l)
[ "$n" -gt 10 ] || fail "only $n child samples in rec_chain after exec"
n=$(awk -v p="$parent" '$1 == p && $3 ~ /;main;parent_spin$/' \
	"$TMP/before" | wc -l)
[ "$n" -gt 10 ] || fail "only $n parent samples in parent_spin"

# Without -f only the parent is recorded.
"$SP_RECORD" -d 10 -o "$TMP/y.spool" -- "$TMP/rec_forkexec" 0.5 \
	"$TMP/rec_chain" 0.3 2>"$TMP/err" || fail "recording without -f failed"
"$SP_DUMP" "$TMP/y.spool" >"$TMP/dump"
awk -F'\t' '$1 == "sample" { p[$3] = 1 } END { for (k in p) n++; exit n != 1 }' \
	"$TMP/dump" || fail "without -f, samples of more than one process"
grep -q "$(printf '^stats\t.*untracked_samples=[1-9]')" "$TMP/dump" ||
	fail "the child's samples are not counted as untracked"
exit 0

#!/bin/sh
# Kernel frames group by function: rec_syscall spends its time in write
# system calls, whose kernel frames sp-symbolize names with their offsets
# (do_syscall_64+0x44, +0x70).  sp-fold's folded, top, svg, speedscope
# and pprof outputs show each kernel function once, without an offset;
# --addrs keeps the offsets.
. "$(dirname "$0")/lib.sh"
need_perf
cc_prog rec_syscall rec_syscall.c -O0 -fno-omit-frame-pointer

# 1 s of the workload's own CPU time is about 1,000 samples at 999 Hz
# whatever the machine's speed or load.  (It was dd copying 600,000
# bytes one at a time, a count of system calls: 1,750 to 1,870 samples
# on this VM idle or under eight busy loops, but 258 and 264 in two CI
# runs, so what those calls cost is not the test's to assume.)
"$SP_RECORD" -k -o "$TMP/x.spool" -- "$TMP/rec_syscall" 1c \
	>"$TMP/rec.out" 2>"$TMP/rec.err" ||
	fail "sp-record: $(cat "$TMP/rec.err")"
grep -q 'kernel stacks are not permitted' "$TMP/rec.err" &&
	skip "kernel stacks not permitted here"
"$SP_DUMP" "$TMP/x.spool" >"$TMP/records" || fail "sp-dump failed"
"$SP_SYMBOLIZE" <"$TMP/records" >"$TMP/sym" 2>"$TMP/sym.err" ||
	fail "sp-symbolize: $(cat "$TMP/sym.err")"

# Resolved kernel symbols as the stream names them, and their functions.
awk -F'\t' '$1 == "symbol" && $5 ~ /k/ && $5 !~ /u/ { print $8 }' \
	"$TMP/sym" | sort -u >"$TMP/ksyms"
[ -s "$TMP/ksyms" ] || skip "no kernel symbols (is /proc/kallsyms readable?)"
sed 's/+0x[0-9a-f]*\( \|$\)/\1/' "$TMP/ksyms" | sort -u >"$TMP/kfuncs"
[ "$(wc -l <"$TMP/ksyms")" -gt "$(wc -l <"$TMP/kfuncs")" ] ||
	skip "no kernel function was sampled at two offsets"

total() {	# FILE: the samples of folded stacks
	awk '{ n += $NF } END { print n + 0 }' "$1"
}
kframes() {	# FILE: the kernel frames of folded stacks (--kernel)
	sed 's/ [0-9]*$//' "$1" | tr ';' '\n' | sed -n 's/_\[k\]$//p' |
		sort -u
}

# Folded: every kernel frame is a function (or unresolved [kernel]).
"$SP_FOLD" --kernel "$TMP/sym" >"$TMP/folded" || fail "sp-fold failed"
kframes "$TMP/folded" | grep -vx '\[kernel\]' >"$TMP/kframes"
diff -u "$TMP/kfuncs" "$TMP/kframes" ||
	fail "kernel frames are not the kernel functions"
"$SP_FOLD" --kernel --addrs "$TMP/sym" >"$TMP/addrs" || fail "--addrs failed"
kframes "$TMP/addrs" | grep -v '^\[kernel\]+0x' >"$TMP/kaddrs"
diff -u "$TMP/ksyms" "$TMP/kaddrs" || fail "--addrs lost the offsets"
[ "$(total "$TMP/folded")" -eq "$(total "$TMP/addrs")" ] ||
	fail "--addrs changed the sample count"
n=$(total "$TMP/folded")
echo "$n samples" >&2
[ "$n" -gt 500 ] || fail "only $n samples ($(grep '^stats' "$TMP/records"))"
[ "$(wc -l <"$TMP/folded")" -lt "$(wc -l <"$TMP/addrs")" ] ||
	fail "grouping by function merged no stacks"

# Top: one row per kernel function, none per offset.
"$SP_FOLD" --format top "$TMP/sym" >"$TMP/top" || fail "top failed"
sed -n '3,$s/^ *[0-9.]*% *[0-9.]*% *[0-9]* *[0-9]*  //p' "$TMP/top" |
	sort >"$TMP/topnames"
[ -z "$(uniq -d "$TMP/topnames")" ] || fail "top repeats a function"
grep -Fxf "$TMP/ksyms" "$TMP/topnames" && fail "top has kernel offsets"
grep -Fxvf "$TMP/topnames" "$TMP/kfuncs" && fail "top lacks kernel functions"

# Svg (wide enough to keep frames of one sample), speedscope and pprof
# name the same functions.
"$SP_FOLD" --format svg --width 50000 "$TMP/sym" >"$TMP/x.svg" || fail "svg failed"
"$SP_FOLD" --format speedscope "$TMP/sym" >"$TMP/x.json" || fail "speedscope failed"
"$SP_FOLD" --format pprof "$TMP/sym" >"$TMP/x.pb.gz" || fail "pprof failed"
python3 "$PROGRAMS/pprof_names.py" "$TMP/x.pb.gz" >"$TMP/pprof.names" ||
	fail "cannot read the pprof profile"
python3 - "$TMP" <<'PY' || fail "svg, speedscope or pprof keep kernel offsets"
import json, sys, xml.dom.minidom as m
tmp = sys.argv[1]
lines = lambda f: set(open(tmp + "/" + f).read().splitlines())
ksyms, kfuncs = lines("ksyms"), lines("kfuncs")
d = m.parse(tmp + "/x.svg")
svg = {t.firstChild.data.rsplit(" (", 1)[0]
       for t in d.getElementsByTagName("title")}
ss = {f["name"] for f in json.load(open(tmp + "/x.json"))["shared"]["frames"]}
names = open(tmp + "/pprof.names").read().splitlines()
# A kernel function is one pprof function whatever its offsets.  (Two
# user functions of one name in two modules, libc's and the vdso's
# clock_gettime, are two: a machine under load samples both.)
dups = {n for n in names if names.count(n) > 1}
assert not dups & kfuncs, ("pprof repeats a kernel function", dups & kfuncs)
for what, got in ("svg", svg), ("speedscope", ss), ("pprof", set(names)):
    assert not got & ksyms, (what, sorted(got & ksyms)[:5])
    assert kfuncs <= got, (what, sorted(kfuncs - got)[:5])
PY
"$SP_FOLD" --format pprof --addrs "$TMP/sym" >"$TMP/a.pb.gz" || fail "pprof --addrs"
python3 "$PROGRAMS/pprof_names.py" "$TMP/a.pb.gz" | sort -u >"$TMP/pprof.a"
grep -Fxvf "$TMP/pprof.a" "$TMP/ksyms" && fail "pprof --addrs lost offsets"
exit 0

#!/bin/sh
# sp-fold --format pprof writes gzip-compressed profile.proto that decodes
# (with a small independent decoder here) to the totals of the folded
# output, with mappings, build ids, inlined lines and labels from a record
# stream, and function-only locations from perf script text.
. "$(dirname "$0")/lib.sh"

cat >"$TMP/a.rec" <<'EOF_IN'
spool	1	1700000000000000	1000
module	0	7	0x400000	0x401000	0x0	11	user	/usr/bin/app
module	1	-1	0xffffffff81000000	0xffffffff82000000	0x0	0	kernel	[kernel.kallsyms]
module	2	7	0x7f0000000000	0x7f0000100000	0x1000	12	user	/usr/lib/libc.so.6
buildid	0	abcdef0123
frame	0	user	0x400100	0	0x100
symbol	0	-	0	-	0x10	app.c:10	main
frame	1	user	0x400200	0	0x200
symbol	1	-	0	-	0x8	app.c:20	work
symbol	1	-	1	i	-	app.c:22	inner
frame	2	kernel	0xffffffff81000010	1	0x10
symbol	2	-	0	k	0x10	-	do_syscall_64
frame	3	user	0x7f0000001234	2	0x2234
stack	0	-	0
stack	1	0	1
stack	2	1	2
stack	3	0	3
comm	100	7	7	exec	app
sample	1000000000	7	7	1
sample	1001000000	7	7	1
sample	1002000000	7	7	2
sample	1003000000	7	7	3
EOF_IN

cat >"$TMP/decode.py" <<'PY'
# Prints the sample total, then one folded line per sample (root first).
import gzip, sys
def varint(b, i):
    v = s = 0
    while True:
        c = b[i]; i += 1; v |= (c & 0x7f) << s; s += 7
        if c < 0x80: return v, i
def fields(b):
    i, out = 0, []
    while i < len(b):
        k, i = varint(b, i)
        if k & 7 == 0: v, i = varint(b, i)
        elif k & 7 == 2:
            n, i = varint(b, i); v = b[i:i + n]; i += n
        else: raise SystemExit("wire type %d" % (k & 7))
        out.append((k >> 3, v))
    return out
def packed(b):
    i, out = 0, []
    while i < len(b):
        v, i = varint(b, i); out.append(v)
    return out
p = fields(gzip.decompress(open(sys.argv[1], "rb").read()))
strs = [v.decode() for f, v in p if f == 6]
assert strs[0] == ""
funcs, locs, maps, total, lines = {}, {}, {}, 0, []
for f, v in p:
    if f == 5:
        d = dict(fields(v)); funcs[d[1]] = strs[d[2]]
    elif f == 3:
        d = dict(fields(v)); maps[d[1]] = (strs[d[5]], strs[d.get(6, 0)])
for f, v in p:
    if f == 4:
        fl = fields(v); d = dict(fl)
        names = [funcs[dict(fields(x))[1]] for k, x in fl if k == 4]
        locs[d[1]] = (names, d.get(2, 0))
        if d.get(2): assert d[2] in maps
types = [strs[dict(fields(v))[1]] for f, v in p if f == 1]
assert types[0] == "samples", types
for f, v in p:
    if f != 2: continue
    fl = fields(v)
    ids = [x for k, b in fl if k == 1 for x in packed(b)]
    vals = [x for k, b in fl if k == 2 for x in packed(b)]
    labels = [dict(fields(b)) for k, b in fl if k == 3]
    thread = [strs[l[2]] for l in labels if strs[l[1]] == "thread"]
    total += vals[0]
    names = [n for i in reversed(ids) for n in reversed(locs[i][0])]
    lines.append(";".join(thread + names) + " %d" % vals[0])
print(total)
for l in sorted(lines): print(l)
for m in sorted(maps.values()): print("mapping", m[0], m[1])
PY

"$SP_FOLD" --format pprof "$TMP/a.rec" >"$TMP/a.pb.gz" || fail "pprof: exit $?"
"$SP_FOLD" "$TMP/a.rec" >"$TMP/a.folded" || fail "folded: exit $?"
python3 "$TMP/decode.py" "$TMP/a.pb.gz" >"$TMP/decoded" || fail "decode failed"
awk '{ n += $NF } END { print n }' "$TMP/a.folded" >"$TMP/exp"
cat "$TMP/a.folded" >>"$TMP/exp"
cat >>"$TMP/exp" <<'EOF_OUT'
mapping /usr/bin/app abcdef0123
mapping /usr/lib/libc.so.6 
mapping [kernel.kallsyms] 
EOF_OUT
diff -u "$TMP/exp" "$TMP/decoded" || fail "pprof does not match folded"

# --max-depth cuts pprof samples as it cuts folded stacks (issue 13).
"$SP_FOLD" --format pprof --max-depth 2 "$TMP/a.rec" >"$TMP/d.pb.gz" ||
	fail "pprof --max-depth: exit $?"
# (samples whose cut stacks are the same are summed, as folded sums them)
python3 "$TMP/decode.py" "$TMP/d.pb.gz" | grep -v '^mapping ' |
	awk 'NR == 1 { print; next }
	{ c = $NF; sub(/ [0-9]+$/, ""); n[$0] += c }
	END { for (k in n) print k, n[k] | "LC_ALL=C sort" }' >"$TMP/d.decoded" ||
	fail "decode d"
"$SP_FOLD" --max-depth 2 "$TMP/a.rec" >"$TMP/d.folded" || fail "folded depth"
{ awk '{ n += $NF } END { print n }' "$TMP/d.folded"; cat "$TMP/d.folded"; } |
	diff -u - "$TMP/d.decoded" || fail "pprof --max-depth differs"

# perf script input: function-only locations, same totals.
"$SP_FOLD" --format perf-script "$TMP/a.rec" >"$TMP/ps.txt" || fail "perf-script"
"$SP_FOLD" --from perf-script --format pprof "$TMP/ps.txt" >"$TMP/b.pb.gz" ||
	fail "pprof from perf script: exit $?"
"$SP_FOLD" --from perf-script "$TMP/ps.txt" >"$TMP/b.folded" || fail "fold"
python3 "$TMP/decode.py" "$TMP/b.pb.gz" >"$TMP/b.decoded" || fail "decode b"
awk '{ n += $NF } END { print n }' "$TMP/b.folded" >"$TMP/b.exp"
cat "$TMP/b.folded" >>"$TMP/b.exp"
diff -u "$TMP/b.exp" "$TMP/b.decoded" || fail "perf script pprof differs"
exit 0

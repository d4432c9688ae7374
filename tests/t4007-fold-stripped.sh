#!/bin/sh
# Frames of a stripped binary group as its module: sp-symbolize names
# them fold_stripped+0xADDR, one name per sampled address; sp-fold's
# folded, top, svg, speedscope and pprof outputs show one frame
# [fold_stripped], as perf does, and --addrs keeps the addresses.  Its
# perf script output names them so too and folds back to the same stacks.
. "$(dirname "$0")/lib.sh"
need_perf
command -v strip >/dev/null || skip "no strip"

cc_prog fold_stripped fold_stripped.c -O1
strip "$TMP/fold_stripped" || fail "strip failed"
"$SP_RECORD" -o "$TMP/x.spool" -- "$TMP/fold_stripped" 3000 \
	>"$TMP/rec.out" 2>"$TMP/rec.err" ||
	fail "sp-record: $(cat "$TMP/rec.err")"
grep -q 'fold_stripped: done' "$TMP/rec.out" ||
	fail "the program did not finish"
"$SP_DUMP" "$TMP/x.spool" >"$TMP/records" || fail "sp-dump failed"
"$SP_SYMBOLIZE" <"$TMP/records" >"$TMP/sym" 2>"$TMP/sym.err" ||
	fail "sp-symbolize: $(cat "$TMP/sym.err")"
# The stream keeps the exact fallback names: the case sp-fold groups.
n=$(awk -F'\t' '$1 == "symbol" && $5 ~ /u/ && $8 ~ /^fold_stripped\+0x/' \
	"$TMP/sym" | wc -l)
[ "$n" -gt 3 ] || fail "only $n fallback names in the stripped binary"

total() {	# FILE: the samples of folded stacks
	awk '{ n += $NF } END { print n + 0 }' "$1"
}
frames() {	# FILE: the distinct frames but the comm that name the binary
	sed 's/ [0-9]*$//' "$1" | cut -s -d';' -f2- | tr ';' '\n' |
		grep fold_stripped | sort -u
}

"$SP_FOLD" "$TMP/sym" >"$TMP/folded" || fail "sp-fold failed"
[ "$(frames "$TMP/folded")" = "[fold_stripped]" ] ||
	fail "frames of the binary: $(frames "$TMP/folded" | head -n 5)"
in_prog=$(awk '/;\[fold_stripped\]/ { n += $NF } END { print n + 0 }' \
	"$TMP/folded")
[ "$in_prog" -ge $(($(total "$TMP/folded") * 9 / 10)) ] ||
	fail "only $in_prog of $(total "$TMP/folded") samples in the binary"
"$SP_FOLD" --addrs "$TMP/sym" >"$TMP/addrs" || fail "--addrs failed"
[ "$(frames "$TMP/addrs" | grep -c '^fold_stripped+0x[0-9a-f]*$')" -gt 3 ] ||
	fail "--addrs lost the addresses: $(frames "$TMP/addrs" | head -n 5)"
[ "$(total "$TMP/folded")" -eq "$(total "$TMP/addrs")" ] ||
	fail "--addrs changed the sample count"
[ "$(wc -l <"$TMP/folded")" -lt "$(wc -l <"$TMP/addrs")" ] ||
	fail "grouping by module merged no stacks"

# Top: one row for the binary.
"$SP_FOLD" --format top "$TMP/sym" >"$TMP/top" || fail "top failed"
sed -n '3,$s/^ *[0-9.]*% *[0-9.]*% *[0-9]* *[0-9]*  //p' "$TMP/top" |
	grep fold_stripped >"$TMP/topnames"
[ "$(cat "$TMP/topnames")" = "[fold_stripped]" ] ||
	fail "top rows of the binary: $(head -n 5 "$TMP/topnames")"

# Svg, speedscope and pprof: the same one frame.
"$SP_FOLD" --format svg "$TMP/sym" >"$TMP/x.svg" || fail "svg failed"
"$SP_FOLD" --format speedscope "$TMP/sym" >"$TMP/x.json" || fail "speedscope failed"
"$SP_FOLD" --format pprof "$TMP/sym" >"$TMP/x.pb.gz" || fail "pprof failed"
python3 "$PROGRAMS/pprof_names.py" "$TMP/x.pb.gz" >"$TMP/pprof.names" ||
	fail "cannot read the pprof profile"
python3 - "$TMP" <<'PY' || fail "svg, speedscope or pprof keep addresses"
import json, sys, xml.dom.minidom as m
tmp = sys.argv[1]
d = m.parse(tmp + "/x.svg")
svg = [t.firstChild.data.rsplit(" (", 1)[0]
       for t in d.getElementsByTagName("title")]
ss = [f["name"] for f in json.load(open(tmp + "/x.json"))["shared"]["frames"]]
pp = open(tmp + "/pprof.names").read().splitlines()
for what, got in ("svg", set(svg)), ("speedscope", ss), ("pprof", pp):
    # (the svg has the comm frame too, named after the program)
    mine = [n for n in got if "fold_stripped" in n and n != "fold_stripped"]
    assert mine == ["[fold_stripped]"], (what, mine[:5])
PY
"$SP_FOLD" --format pprof --addrs "$TMP/sym" >"$TMP/a.pb.gz" || fail "pprof --addrs"
n=$(python3 "$PROGRAMS/pprof_names.py" "$TMP/a.pb.gz" |
	grep -c '^fold_stripped+0x')
[ "$n" -gt 3 ] || fail "pprof --addrs has $n addresses of the binary"

# Perf script text names them so too, and folds back to the same stacks.
"$SP_FOLD" --format perf-script "$TMP/sym" >"$TMP/ps" || fail "perf-script failed"
grep -q '^	 *[0-9a-f]* \[fold_stripped\] (/.*/fold_stripped)$' \
	"$TMP/ps" ||
	fail "perf script does not name the binary's frames [fold_stripped]"
"$SP_FOLD" --from perf-script --weight samples "$TMP/ps" >"$TMP/refolded" || fail "refold"
diff -u "$TMP/folded" "$TMP/refolded" || fail "perf script round trip differs"
exit 0

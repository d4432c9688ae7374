#!/bin/sh
# A recorded program folds to its own stacks with the expected shares:
# main;hot;burn three times main;cold;burn, the renamed thread under its
# own name (or the process's with --process-name); every output format
# agrees with the folded one (perf script folds back to the same lines).
. "$(dirname "$0")/lib.sh"
need_perf

cc_prog fold_ratio fold_ratio.c -O1 -g -pthread
"$SP_RECORD" -F 499 -g dwarf -o "$TMP/x.spool" -- "$TMP/fold_ratio" 1.5c \
	>"$TMP/rec.out" 2>"$TMP/rec.err" || fail "sp-record: $(cat "$TMP/rec.err")"
grep -q 'fold_ratio: done' "$TMP/rec.out" || fail "the program did not finish"
"$SP_DUMP" "$TMP/x.spool" >"$TMP/records" || fail "sp-dump failed"
"$SP_SYMBOLIZE" <"$TMP/records" >"$TMP/sym" || fail "sp-symbolize failed"
"$SP_FOLD" "$TMP/sym" >"$TMP/folded" || fail "sp-fold failed"

count() {	# PATTERN [FILE]: samples of the stacks matching PATTERN
	awk -v pat="$1" '$0 ~ pat { n += $NF } END { print n + 0 }' \
		"${2:-$TMP/folded}"
}
total=$(count '')
[ "$total" -gt 200 ] || fail "only $total samples"
hot=$(count '^fold_ratio;.*;main;hot;burn ')
cold=$(count '^fold_ratio;.*;main;cold;burn ')
helper=$(count '^fold-helper;.*;helper;spin;burn ')
[ "$cold" -gt 10 ] || fail "only $cold samples in cold"
# 3:1 by design; allow for sampling noise and a loaded machine
[ $((hot * 10)) -ge $((cold * 20)) ] && [ $((hot * 10)) -le $((cold * 45)) ] ||
	fail "hot/cold = $hot/$cold, not about 3"
[ "$helper" -gt 10 ] || fail "only $helper samples under fold-helper"
[ $((hot + cold + helper)) -ge $((total * 8 / 10)) ] ||
	fail "hot+cold+helper = $((hot + cold + helper)) of $total"

"$SP_FOLD" --process-name "$TMP/sym" >"$TMP/pname" || fail "--process-name"
[ "$(count '^fold-helper' "$TMP/pname")" -eq 0 ] ||
	fail "--process-name kept the thread name"
# (the helper's first samples may come before it renamed itself)
[ "$(count ';helper;spin' "$TMP/pname")" -eq "$(count ';helper;spin')" ] ||
	fail "--process-name lost helper samples"

# perf script text folds back to the same stacks.
"$SP_FOLD" --format perf-script "$TMP/sym" >"$TMP/ps" || fail "perf-script"
"$SP_FOLD" --from perf-script --weight samples "$TMP/ps" >"$TMP/refolded" || fail "refold"
diff -u "$TMP/folded" "$TMP/refolded" || fail "perf script round trip differs"

# The other formats hold the same samples.
"$SP_FOLD" --format top "$TMP/sym" >"$TMP/top" || fail "top"
grep -q "^# $total samples" "$TMP/top" || fail "top total: $(head -n 1 "$TMP/top")"
grep -Eq '^ +[0-9.]+% +[0-9.]+% +[0-9]+ +[0-9]+  burn$' "$TMP/top" ||
	fail "burn missing from top"
"$SP_FOLD" --format svg "$TMP/sym" >"$TMP/x.svg" || fail "svg"
python3 -c 'import sys, xml.dom.minidom as m; m.parse(sys.argv[1])' \
	"$TMP/x.svg" || fail "svg is not well-formed"
"$SP_FOLD" --format speedscope "$TMP/sym" >"$TMP/x.json" || fail "speedscope"
python3 - "$TMP/x.json" "$total" <<'PY' || fail "speedscope check failed"
import json, sys
d = json.load(open(sys.argv[1]))
names = sorted(p["name"].split(" (")[0] for p in d["profiles"])
assert "fold-helper" in names and "fold_ratio" in names, names
# (empty samples are idle time between samples)
n = sum(len([s for s in p["samples"] if s]) for p in d["profiles"])
assert n == int(sys.argv[2]), (n, sys.argv[2])
frames = [f["name"] for f in d["shared"]["frames"]]
assert "hot" in frames and "burn" in frames, frames
PY
"$SP_FOLD" --format pprof "$TMP/sym" >"$TMP/x.pb.gz" || fail "pprof"
python3 -c 'import gzip, sys; assert len(gzip.open(sys.argv[1]).read()) > 100' \
	"$TMP/x.pb.gz" || fail "pprof is not gzip"

# The real pprof client: the main binary is mapping 1 ("File:"), and the
# mapping flags say what the locations carry (issue 13).
if command -v go >/dev/null 2>&1; then
	go tool pprof -top "$TMP/x.pb.gz" >"$TMP/pp.top" 2>&1 ||
		fail "go tool pprof -top: $(cat "$TMP/pp.top")"
	grep -q '^File: fold_ratio$' "$TMP/pp.top" ||
		fail "pprof file: $(head -n 3 "$TMP/pp.top")"
	grep -Eq ' burn$' "$TMP/pp.top" || fail "burn missing from pprof -top"
	go tool pprof -raw "$TMP/x.pb.gz" >"$TMP/pp.raw" 2>&1 ||
		fail "go tool pprof -raw"
	sed -n '/^Mappings/,$p' "$TMP/pp.raw" >"$TMP/pp.maps"
	grep -Eq "^1: .*/fold_ratio [0-9a-f]* ?\[FN\]\[FL\]\[LN\]" \
		"$TMP/pp.maps" || fail "mapping 1: $(cat "$TMP/pp.maps")"
	# Function.start_line from DWARF: where burn() begins in its source.
	want=$(grep -n '^burn(' "$PROGRAMS/fold_ratio.c" | cut -d: -f1)
	grep -Eq " burn [^ ]*fold_ratio\.c:[0-9]+ s=$want\$" "$TMP/pp.raw" ||
		fail "burn's start line, not $want: $(grep ' burn ' "$TMP/pp.raw")"
else
	echo "note: go not installed, go tool pprof not tried"
fi
exit 0

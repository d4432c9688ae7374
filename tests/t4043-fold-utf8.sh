#!/bin/sh
# Issue 24, item 18: a symbol name that is not UTF-8 (a Latin-1 name, a
# cut character, an overlong form, a surrogate) made --format speedscope
# write JSON that is not UTF-8.  The JSON and SVG writers replace each
# byte that starts no well-formed character (U+FFFD in JSON, '?' in the
# SVG), so Python's json and xml.etree load both.
. "$(dirname "$0")/lib.sh"
command -v python3 >/dev/null || skip "no python3"

{
	printf 'spool\t1\t0\t1000\n'
	printf 'module\t0\t7\t0x1000\t0x9000\t0x0\t1\tuser\t/bin/caf\\xe9\n'
	i=0
	for name in 'caf\xe9' 'cut\xe2\x82' 'over\xc0\x80long' 'sur\xed\xa0\x80' \
		'big\xf4\x90\x80\x80' 'ok\xc3\xa9' 'lead\xff'; do
		printf 'frame\t%d\tuser\t0x%x\t0\t0x%x\n' $i $((0x1010 + i * 16)) $((0x10 + i * 16))
		printf 'symbol\t%d\t-\t0\t-\t0x0\tsrc\\xe9.c:3\t%s\n' $i "$name"
		if [ $i -eq 0 ]; then prefix=-; else prefix=$((i - 1)); fi
		printf 'stack\t%d\t%s\t%d\n' $i $prefix $i
		printf 'sample\t%d\t7\t7\t%d\n' $((i + 1)) $i
		i=$((i + 1))
	done
	printf 'comm\t1\t7\t7\tname\tapp\\xe9\n'
} >"$TMP/in.rec"

"$SP_FOLD" --format speedscope "$TMP/in.rec" >"$TMP/out.json" ||
	fail "speedscope: exit $?"
python3 - "$TMP/out.json" <<'PY' || fail "speedscope output is not UTF-8 JSON"
import json, sys
with open(sys.argv[1], encoding="utf-8") as f:
    doc = json.load(f)
names = [fr["name"] for fr in doc["shared"]["frames"]]
assert "ok\u00e9" in names, names
assert "caf\ufffd" in names and "over\ufffd\ufffdlong" in names, names
PY
"$SP_FOLD" --format svg "$TMP/in.rec" >"$TMP/out.svg" || fail "svg: exit $?"
python3 -c 'import sys, xml.etree.ElementTree as E; E.parse(sys.argv[1])' \
	"$TMP/out.svg" || fail "the svg does not parse"

# Folded input from elsewhere, the same.
printf 'app;caf\351;over\300\200long 2\napp;sur\355\240\200 1\n' >"$TMP/in.folded"
"$SP_FOLD" --from folded --format svg "$TMP/in.folded" >"$TMP/f.svg" ||
	fail "folded svg: exit $?"
python3 -c 'import sys, xml.etree.ElementTree as E; E.parse(sys.argv[1])' \
	"$TMP/f.svg" || fail "the svg of folded input does not parse"
if "$SP_FOLD" --from folded --format speedscope "$TMP/in.folded" \
	>"$TMP/f.json" 2>/dev/null; then
	python3 -c 'import json, sys; json.load(open(sys.argv[1], encoding="utf-8"))' \
		"$TMP/f.json" || fail "speedscope of folded input is not UTF-8 JSON"
fi
exit 0

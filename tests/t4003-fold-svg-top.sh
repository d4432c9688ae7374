#!/bin/sh
# sp-fold --format svg writes a well-formed, self-contained SVG with one
# rect per distinct frame (plus the background), its own zoom/search
# script (run against a stand-in DOM when node is there) and palettes;
# --format top writes the self/total table.
. "$(dirname "$0")/lib.sh"

cat >"$TMP/in.txt" <<'EOF_IN'
app 10/11 [000] 1.000001: 1000 cpu-clock:
	1 leaf (/bin/app)
	2 mid (/bin/app)
	3 main (/bin/app)

app 10/11 [000] 1.000002: 1000 cpu-clock:
	1 leaf (/bin/app)
	2 mid (/bin/app)
	3 main (/bin/app)

app 10/11 [000] 1.000003: 1000 cpu-clock:
	2 mid (/bin/app)
	3 main (/bin/app)

app 10/11 [000] 1.000004: 1000 cpu-clock:
	ffffffff81000000 do_syscall_64 ([kernel.kallsyms])
	9 other<int> & "x" (/bin/app)
	3 main (/bin/app)

app 10/11 [000] 1.000005: 1000 cpu-clock:
	4 rec (/bin/app)
	4 rec (/bin/app)
	3 main (/bin/app)

EOF_IN

"$SP_FOLD" --from perf-script --weight samples --kernel --format svg --title 'A <title> & more' \
	"$TMP/in.txt" >"$TMP/out.svg" || fail "svg: exit $?"
python3 - "$TMP/out.svg" <<'PY' || fail "svg check failed"
import sys, xml.dom.minidom as m
d = m.parse(sys.argv[1])
rects = d.getElementsByTagName("rect")
titles = [t.firstChild.data for t in d.getElementsByTagName("title")]
# all, app, main, mid, leaf, other..., do_syscall_64_[k], rec, rec
want = 9
assert len(rects) == want + 1, (len(rects), titles)
assert len(titles) == want, titles
assert "all (5 samples, 100.00%)" in titles, titles
assert "mid (3 samples, 60.00%)" in titles, titles
assert 'other<int> & x (1 samples, 20.00%)' in titles, titles
assert d.getElementsByTagName("script"), "no script"
t = [e for e in d.getElementsByTagName("text") if e.getAttribute("id") == "title"]
assert t[0].firstChild.data == "A <title> & more"
k = [r for r in rects if r.parentNode.getElementsByTagName("title") and
     r.parentNode.getElementsByTagName("title")[0].firstChild.data.startswith("do_syscall_64_[k]")]
assert k[0].getAttribute("fill").endswith(",0)"), k[0].getAttribute("fill")
PY
# flamegraph.pl's options (issue 13): subtitle, count name, name type,
# frame height, font, minimum width, palettes; a frame's own time is
# drawn left of its children (main has 1 sample of its own here).
"$SP_FOLD" --from perf-script --weight samples --format svg --subtitle 'sub <x>' \
	--countname pages --nametype 'Frame:' --height 20 --fontsize 14 \
	--fonttype Courier --minwidth 30% --colors java "$TMP/in.txt" \
	>"$TMP/opts.svg" || fail "svg options: exit $?"
python3 - "$TMP/opts.svg" <<'PY' || fail "svg options check failed"
import sys, xml.dom.minidom as m
d = m.parse(sys.argv[1])
texts = {e.getAttribute("id"): e for e in d.getElementsByTagName("text")
         if e.getAttribute("id")}
assert texts["subtitle"].firstChild.data == "sub <x>"
titles = [t.firstChild.data for t in d.getElementsByTagName("title")]
assert "main (5 pages, 100.00%)" in titles, titles
# --minwidth 30%: 20% frames are left out
assert not [t for t in titles if "20.00%" in t], titles
rects = [r for r in d.getElementsByTagName("rect") if r.parentNode.tagName == "g"]
assert all(r.getAttribute("height") == "19" for r in rects), rects[0].toxml()
style = d.getElementsByTagName("style")[0].firstChild.data
assert "font-family: Courier; font-size: 14px;" in style, style
assert 'FG_NT = "Frame:"' in d.getElementsByTagName("script")[0].firstChild.data
PY
printf 'a;b 1\na;b;c 2\n' | "$SP_FOLD" --from folded --format svg >"$TMP/self.svg" ||
	fail "self svg"
python3 - "$TMP/self.svg" <<'PY' || fail "own time is not left of the children"
import sys, xml.dom.minidom as m
d = m.parse(sys.argv[1])
x = {}
for g in d.getElementsByTagName("g"):
    t = g.getElementsByTagName("title")
    if t and g.getElementsByTagName("rect"):
        x[t[0].firstChild.data.split(" (")[0]] = float(
            g.getElementsByTagName("rect")[0].getAttribute("x"))
assert x["b"] < x["c"], x
PY
for pal in java js perl wakeup chain mem io; do
	"$SP_FOLD" --from perf-script --format svg --colors $pal "$TMP/in.txt" \
		>/dev/null 2>&1 || fail "--colors $pal"
done
"$SP_FOLD" --from perf-script --format svg --minwidth 5x "$TMP/in.txt" \
	>/dev/null 2>&1
[ $? -eq 2 ] || fail "--minwidth 5x is not a usage error"

# --flamechart: samples in time order; a function that comes back after
# another is a second frame, where a flame graph merges the two.
T='	'
{
	printf 'spool\t1\t0\t1000\n'
	printf 'frame\t0\tuser\t0x10\t-\t-\nsymbol\t0\t-\t0\t-\t-\t-\tfa\n'
	printf 'frame\t1\tuser\t0x20\t-\t-\nsymbol\t1\t-\t0\t-\t-\t-\tfb\n'
	printf 'stack\t0\t-\t0\nstack\t1\t-\t1\n'
	printf 'comm\t0\t7\t7\texec\tapp\n'
	for st in 0 0 1 0; do printf 'sample\t1\t7\t7\t%s\n' $st; done
} >"$TMP/chart.rec"
"$SP_FOLD" --format svg --flamechart "$TMP/chart.rec" >"$TMP/chart.svg" ||
	fail "--flamechart: exit $?"
python3 - "$TMP/chart.svg" <<'PY' || fail "flame chart order"
import sys, xml.dom.minidom as m
d = m.parse(sys.argv[1])
fr = []
for g in d.getElementsByTagName("g"):
    t = g.getElementsByTagName("title")
    r = g.getElementsByTagName("rect")
    if t and r:
        fr.append((float(r[0].getAttribute("x")), t[0].firstChild.data))
leaves = [n for x, n in sorted(fr) if n.startswith(("fa ", "fb "))]
assert leaves == ["fa (2 samples, 50.00%)", "fb (1 samples, 25.00%)",
                  "fa (1 samples, 25.00%)"], leaves
t = [e for e in d.getElementsByTagName("text") if e.getAttribute("id") == "title"]
assert t[0].firstChild.data == "Flame Chart"
PY
# Tooltips give a frame's source on a second line when the symbols carry
# one (issue 13): "file:line" while every stack through the frame agrees,
# the file alone when only the lines differ, nothing when the files
# differ or a frame has no source (today's tooltip, exactly).
{
	printf 'spool\t1\t0\t1000\n'
	printf 'frame\t0\tuser\t0x10\t-\t-\nsymbol\t0\t-\t0\t-\t-\tapp.c:10\tmain\n'
	printf 'frame\t1\tuser\t0x14\t-\t-\nsymbol\t1\t-\t0\t-\t-\tapp.c:12\tmain\n'
	printf 'frame\t2\tuser\t0x20\t-\t-\nsymbol\t2\t-\t0\t-\t-\tsrc/leaf & <x>.c:5\tleaf\n'
	printf 'frame\t3\tuser\t0x30\t-\t-\n'
	printf 'frame\t4\tuser\t0x40\t-\t-\nsymbol\t4\t-\t0\t-\t-\to.c:3\touter\n'
	printf 'symbol\t4\t-\t1\ti\t-\ti.h:7\tinl\n'
	printf 'frame\t5\tuser\t0x50\t-\t-\nsymbol\t5\t-\t0\t-\t-\ta.c:1\tdup\n'
	printf 'frame\t6\tuser\t0x60\t-\t-\nsymbol\t6\t-\t0\t-\t-\tb.c:1\tdup\n'
	printf 'frame\t7\tuser\t0x70\t-\t-\nsymbol\t7\t-\t0\t-\t-\t-\tnosrc\n'
	printf 'stack\t0\t-\t0\nstack\t1\t0\t2\nstack\t2\t-\t1\nstack\t3\t2\t2\n'
	printf 'stack\t4\t0\t3\nstack\t5\t2\t4\nstack\t6\t-\t5\n'
	printf 'stack\t7\t-\t6\nstack\t8\t-\t7\n'
	printf 'comm\t0\t7\t7\texec\tapp\n'
	for st in 1 3 3 4 5 6 7 8; do printf 'sample\t1\t7\t7\t%s\n' $st; done
} >"$TMP/src.rec"
"$SP_FOLD" --format svg "$TMP/src.rec" >"$TMP/src.svg" || fail "sources: exit $?"
"$SP_FOLD" --format svg --flamechart "$TMP/src.rec" >"$TMP/srcchart.svg" ||
	fail "sources, --flamechart: exit $?"
for f in src srcchart; do
	python3 - "$TMP/$f.svg" <<'PY' || fail "$f.svg: tooltip sources"
import sys, xml.dom.minidom as m
d = m.parse(sys.argv[1])
titles = {}
for t in d.getElementsByTagName("title"):
    s = t.firstChild.data
    titles.setdefault(s.split(" (")[0], set()).add(s)
def only(name):
    assert len(titles[name]) == 1, titles[name]
    return next(iter(titles[name]))
# main was sampled at two lines of app.c: the file alone.
assert only("main") == "main (5 samples, 62.50%)\napp.c", titles["main"]
# leaf: under two call sites of main, one line of its own.
assert only("leaf") == "leaf (3 samples, 37.50%)\nsrc/leaf & <x>.c:5", titles["leaf"]
assert only("outer") == "outer (1 samples, 12.50%)\no.c:3", titles["outer"]
assert only("inl") == "inl (1 samples, 12.50%)\ni.h:7", titles["inl"]
# Two files: no source.  No source at all: the tooltip of today.
assert only("dup") == "dup (2 samples, 25.00%)", titles["dup"]
assert only("nosrc") == "nosrc (1 samples, 12.50%)", titles["nosrc"]
assert only("[unknown]") == "[unknown] (1 samples, 12.50%)", titles["[unknown]"]
assert only("app") == "app (8 samples, 100.00%)", titles["app"]
assert only("all") == "all (8 samples, 100.00%)", titles["all"]
PY
done
# The source line stays one line of the file and is no part of the name
# the script fits, searches and shows.
grep -c '&#10;' "$TMP/src.svg" | grep -qx 4 || fail "source lines: $(grep -c '&#10;' "$TMP/src.svg")"
if command -v node >/dev/null; then
	node - "$TMP/src.svg" <<'JS' || fail "the svg script takes the source for the name"
const svg = require('fs').readFileSync(process.argv[2], 'utf8');
const script = svg.substring(svg.indexOf('<![CDATA[') + 9, svg.indexOf(']]>'));
global.document = { getElementById: () => null };
global.window = { addEventListener() {}, location: { search: '' } };
(0, eval)(script);
const g = (t) => ({ getElementsByTagName: () => [{ textContent: t }] });
const n = name_of(g('f (x) (2 samples, 25.00%)\ndir (1)/a.c:5'));
if (n !== 'f (x)') { console.error('name_of: ' + n); process.exit(1); }
JS
	node "$PROGRAMS/fold_svg_dom.js" "$TMP/src.svg" leaf 'main' ||
		fail "the svg script misbehaves with sources"
fi
"$SP_FOLD" --format top --flamechart "$TMP/chart.rec" >/dev/null 2>&1
[ $? -eq 2 ] || fail "--flamechart with --format top is not a usage error"

if command -v xmllint >/dev/null; then
	xmllint --noout "$TMP/out.svg" || fail "xmllint rejects the svg"
fi
# The script itself, against a stand-in DOM: tooltip, zoom, search, reset.
if command -v node >/dev/null; then
	node "$PROGRAMS/fold_svg_dom.js" "$TMP/out.svg" mid 'leaf|rec' ||
		fail "the svg script misbehaves"
	"$SP_FOLD" --from perf-script --weight samples --format svg --inverted "$TMP/in.txt" \
		>"$TMP/inv.svg" || fail "svg --inverted: exit $?"
	node "$PROGRAMS/fold_svg_dom.js" "$TMP/inv.svg" rec 'other' ||
		fail "the icicle script misbehaves"
fi
for flag in --inverted --reverse '--colors mem' '--width 600'; do
	"$SP_FOLD" --from perf-script --weight samples --format svg $flag "$TMP/in.txt" >"$TMP/f.svg" ||
		fail "svg $flag: exit $?"
	python3 -c 'import sys, xml.dom.minidom as m; m.parse(sys.argv[1])' \
		"$TMP/f.svg" || fail "svg $flag is not well-formed"
done
"$SP_FOLD" --format svg --colors nope "$TMP/in.txt" 2>/dev/null
[ $? -eq 2 ] || fail "unknown palette is not a usage error"

"$SP_FOLD" --from perf-script --weight samples --format top "$TMP/in.txt" >"$TMP/top" ||
	fail "top: exit $?"
cat >"$TMP/top.exp" <<'EOF_OUT'
# 5 samples, 6 functions
   self%   total%         self        total  function
  40.00%   40.00%            2            2  leaf
  20.00%   60.00%            1            3  mid
  20.00%   20.00%            1            1  do_syscall_64
  20.00%   20.00%            1            1  rec
   0.00%  100.00%            0            5  main
   0.00%   20.00%            0            1  other<int> & x
EOF_OUT
diff -u "$TMP/top.exp" "$TMP/top" || fail "top table differs"

# --sort total: the top table by total count (issue 26), self next.
printf 'app;main;a 3\napp;main;b;c 4\napp;main;b 1\n' |
	"$SP_FOLD" --format top --sort total >"$TMP/bytotal" ||
	fail "--sort total: exit $?"
sed -n '3,6p' "$TMP/bytotal" | awk '{ print $NF }' | tr '\n' ' ' >"$TMP/order"
[ "$(cat "$TMP/order")" = "main b c a " ] ||
	fail "--sort total: $(cat "$TMP/bytotal")"
printf 'a;b 1\n' | "$SP_FOLD" --format top --sort size >/dev/null 2>"$TMP/err"
[ $? -eq 2 ] && grep -q "(one of: self, total)" "$TMP/err" ||
	fail "--sort size: $(cat "$TMP/err")"

# A stream without samples is no error in any format ...
for f in folded top svg pprof speedscope perf-script; do
	printf 'spool\t1\t0\t1000\n' | "$SP_FOLD" --format $f >"$TMP/empty.$f" \
		2>"$TMP/err" || fail "empty input, -f $f: exit $?"
	# ... but says so, as flamegraph.pl's "No stack counts found" does
	grep -qx 'sp-fold: no samples: the output is empty' "$TMP/err" ||
		fail "empty input, -f $f: $(cat "$TMP/err")"
done
python3 -c 'import sys, xml.dom.minidom as m; m.parse(sys.argv[1])' \
	"$TMP/empty.svg" || fail "empty svg is not well-formed"
exit 0

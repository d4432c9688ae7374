#!/bin/sh
# sp-fold --diff BEFORE AFTER: difffolded.pl's two-column output (every
# stack with both counts, --normalize scales BEFORE to AFTER's total,
# --strip-hex joins stacks that differ in hex numbers only), and the
# differential flame graph flamegraph.pl draws from it: widths after,
# red where stacks grew, blue where they shrank, --negate swaps.
. "$(dirname "$0")/lib.sh"

printf 'app;main;grow 10\napp;main;shrink 30\napp;main;same 20\napp;gone 5\napp;f 0x1a2b 4\n' \
	>"$TMP/before"
printf 'app;main;grow 40\napp;main;shrink 10\napp;main;same 20\napp;new 5\napp;f 0xffee 1\n' \
	>"$TMP/after"
"$SP_FOLD" --diff --from folded "$TMP/before" "$TMP/after" >"$TMP/out" ||
	fail "exit $?"
cat >"$TMP/exp" <<'EOF_OUT'
app;f 0x1a2b 4 0
app;f 0xffee 0 1
app;gone 5 0
app;main;grow 10 40
app;main;same 20 20
app;main;shrink 30 10
app;new 0 5
EOF_OUT
diff -u "$TMP/exp" "$TMP/out" || fail "diff output differs"

# --strip-hex joins the f stacks; --normalize scales before (69) to 76.
"$SP_FOLD" --diff --from folded --strip-hex --normalize "$TMP/before" \
	"$TMP/after" >"$TMP/out2" || fail "exit $?"
grep -qx 'app;f 0x... 4 1' "$TMP/out2" || fail "strip-hex: $(cat "$TMP/out2")"
grep -qx 'app;main;shrink 33 10' "$TMP/out2" ||
	fail "normalize: $(grep shrink "$TMP/out2")"

# The differential svg: red grew, blue shrank, white unchanged.
fill() {	# NAME SVG: the fill of the frame NAME
	sed -n "s|.*<title>$1 (.*fill=\"\\(rgb([0-9,]*)\\)\".*|\\1|p" "$2" |
		head -n 1
}
"$SP_FOLD" --diff --from folded --format svg "$TMP/before" "$TMP/after" \
	>"$TMP/d.svg" || fail "svg exit $?"
python3 -c 'import sys, xml.dom.minidom as m; m.parse(sys.argv[1])' \
	"$TMP/d.svg" || fail "svg is not well-formed"
[ "$(fill grow "$TMP/d.svg")" = "rgb(255,0,0)" ] ||
	fail "grow: $(fill grow "$TMP/d.svg")"
[ "$(fill shrink "$TMP/d.svg")" = "rgb(70,70,255)" ] ||
	fail "shrink: $(fill shrink "$TMP/d.svg")"
[ "$(fill same "$TMP/d.svg")" = "rgb(255,255,255)" ] ||
	fail "same: $(fill same "$TMP/d.svg")"
grep -q '<title>grow (40 samples, [0-9.]*%; +39.47%)' "$TMP/d.svg" ||
	fail "grow title: $(grep -o '<title>grow[^<]*' "$TMP/d.svg")"
"$SP_FOLD" --diff --negate --from folded --format svg "$TMP/before" "$TMP/after" \
	>"$TMP/n.svg" || fail "negate exit $?"
[ "$(fill grow "$TMP/n.svg")" = "rgb(0,0,255)" ] ||
	fail "negate grow: $(fill grow "$TMP/n.svg")"

# Usage errors.
"$SP_FOLD" --diff --from folded "$TMP/before" >/dev/null 2>&1
[ $? -eq 2 ] || fail "one file is not a usage error"
"$SP_FOLD" --diff --from folded --format top "$TMP/before" "$TMP/after" \
	>/dev/null 2>&1
[ $? -eq 2 ] || fail "--diff --format top is not a usage error"
"$SP_FOLD" --normalize --from folded "$TMP/before" >/dev/null 2>&1
[ $? -eq 2 ] || fail "--normalize without --diff is not a usage error"
exit 0

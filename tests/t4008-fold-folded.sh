#!/bin/sh
# sp-fold --from folded reads what any collapser writes: several files
# merge with their counts added, lines that are no "STACK COUNT" are
# skipped with one warning, every output format serves them, the frame
# filters apply, and -o writes the output to a file.
. "$(dirname "$0")/lib.sh"

printf 'app;main;work 3\napp;main 2\n# a comment\n\nnot folded\n' >"$TMP/a.folded"
printf 'app;main;work 4\napp;other 1\nalso;bad x\n' >"$TMP/b.folded"
"$SP_FOLD" --from folded "$TMP/a.folded" "$TMP/b.folded" >"$TMP/out" \
	2>"$TMP/err" || fail "exit $?"
printf 'app;main 2\napp;main;work 7\napp;other 1\n' | diff -u - "$TMP/out" ||
	fail "merged counts differ"
grep -qx "sp-fold: '$TMP/a.folded': line 5: not a folded stack (STACK COUNT): not folded" \
	"$TMP/err" || fail "warning: $(cat "$TMP/err")"
grep -q "b.folded': line 3: .*also;bad x" "$TMP/err" ||
	fail "no warning for b: $(cat "$TMP/err")"

# Standard input, filters, and the other formats.
"$SP_FOLD" --from folded --exclude '^work$' <"$TMP/a.folded" >"$TMP/ex" \
	2>/dev/null || fail "--exclude exited $?"
grep -q 'work' "$TMP/ex" && fail "--exclude kept work"
"$SP_FOLD" --from folded --max-depth 1 <"$TMP/a.folded" 2>/dev/null >"$TMP/d"
[ "$(cat "$TMP/d")" = "app;main 5" ] || fail "--max-depth: $(cat "$TMP/d")"
"$SP_FOLD" --from folded --format top "$TMP/a.folded" 2>/dev/null >"$TMP/top" ||
	fail "top"
grep -q '^# 5 samples' "$TMP/top" || fail "top: $(head -n 1 "$TMP/top")"
"$SP_FOLD" --from folded --format svg -o "$TMP/x.svg" "$TMP/a.folded" 2>/dev/null ||
	fail "svg -o"
python3 -c 'import sys, xml.dom.minidom as m; m.parse(sys.argv[1])' \
	"$TMP/x.svg" || fail "-o did not write a well-formed svg"
"$SP_FOLD" --from folded --format pprof "$TMP/a.folded" 2>/dev/null >"$TMP/x.pb.gz" ||
	fail "pprof"
python3 -c 'import gzip, sys; gzip.open(sys.argv[1]).read()' "$TMP/x.pb.gz" ||
	fail "pprof is not gzip"

# Options about unfolded input are usage errors.
for opt in --kernel --pid --event-filter=x --format=speedscope; do
	"$SP_FOLD" --from folded $opt "$TMP/a.folded" >/dev/null 2>&1
	[ $? -eq 2 ] || fail "--from folded $opt is not a usage error"
done
"$SP_FOLD" --from folded "$TMP/nonexistent" 2>/dev/null
[ $? -eq 1 ] || fail "missing file did not exit 1"
# Several files are for text input only.
"$SP_FOLD" "$TMP/a.folded" "$TMP/b.folded" 2>"$TMP/err2"
[ $? -eq 2 ] || fail "two record streams: not a usage error"
grep -q 'one record stream at a time' "$TMP/err2" || fail "$(cat "$TMP/err2")"
exit 0

#!/bin/sh
# sp-fold --format threads: the samples of each thread, busiest first,
# with its share, process, thread and name; in milliseconds for time
# views; refused for text input, which has no threads.  The SVG's
# default title names the busiest thread.
. "$(dirname "$0")/lib.sh"

cat >"$TMP/in" <<'EOF2'
spool	1	0	1000
frame	0	user	0x10	-	-
stack	0	-	0
comm	1	7	7	exec	app
comm	1	7	8	name	worker
comm	1	9	9	exec	other
sample	10	7	7	0
sample	20	7	8	0
sample	30	7	8	0
sample	40	7	8	0
sample	50	9	9	0
sample	60	7	8	0
EOF2
"$SP_FOLD" --format threads "$TMP/in" >"$TMP/out" 2>"$TMP/err" ||
	fail "threads: $(cat "$TMP/err")"
cat "$TMP/out"
[ "$(sed -n 1p "$TMP/out")" = "# 3 threads, 6 samples" ] || fail "header"
# Rows: share, count, pid, tid, name, the busiest first.
awk 'NR == 3 && !($1 == "66.67%" && $2 == 4 && $3 == 7 && $4 == 8 && $5 == "worker") { exit 1 }
     NR == 4 && !($2 == 1 && $3 == 7 && $4 == 7 && $5 == "app") { exit 1 }
     NR == 5 && !($2 == 1 && $3 == 9 && $4 == 9 && $5 == "other") { exit 1 }
     END { if (NR != 5) exit 1 }' "$TMP/out" || fail "rows: $(cat "$TMP/out")"
[ -s "$TMP/err" ] && fail "unexpected message: $(cat "$TMP/err")"

# A thread no comm record named shows "-" (its name was looked up out of
# bounds: a crash under ASan, garbage without).
grep -v '^comm' "$TMP/in" >"$TMP/nocomm"
"$SP_FOLD" --format threads "$TMP/nocomm" >"$TMP/out" 2>"$TMP/err" ||
	fail "threads without names: $(cat "$TMP/err")"
awk 'NR > 2 && $5 != "-" { exit 1 } END { if (NR != 5) exit 1 }' \
	"$TMP/out" || fail "rows without names: $(cat "$TMP/out")"

# A flame graph of the stream is titled after its busiest thread;
# --title still wins.
"$SP_FOLD" --format svg "$TMP/in" >"$TMP/svg" || fail "svg"
grep -q '<text id="title"[^>]*>Flame Graph: worker</text>' "$TMP/svg" ||
	fail "svg title: $(grep -o '<text id="title"[^<]*' "$TMP/svg")"
"$SP_FOLD" --format svg --title mine "$TMP/in" >"$TMP/svg" || fail "svg"
grep -q '<text id="title"[^>]*>mine</text>' "$TMP/svg" || fail "--title lost"

# Folded input has no threads: a usage error that says so.
printf 'app;main 3\n' >"$TMP/folded"
"$SP_FOLD" --format threads "$TMP/folded" >/dev/null 2>"$TMP/err"
[ $? -eq 2 ] || fail "threads of folded input: not a usage error"
grep -q "threads needs a record stream, not folded stacks" "$TMP/err" ||
	fail "message: $(cat "$TMP/err")"
exit 0

#!/bin/sh
# Issue 24, items 3 and 5: sp-fold never ends in a silent partial success.
# A line longer than the cap (/dev/zero is one endless line) is an error
# with its line number, in the record stream, in folded input (diff too)
# and in perf script text; counts whose sum would pass 2^64-1 are an error with the line
# number, never a wrapped total ("0 samples", an empty flame graph).
. "$(dirname "$0")/lib.sh"

# expect_fail WHAT TEXT ARGS...: sp-fold ARGS exits 1 with one line TEXT.
expect_fail() {
	_what=$1 _text=$2
	shift 2
	"$SP_FOLD" "$@" >"$TMP/out" 2>"$TMP/err"
	rc=$?
	[ $rc -eq 1 ] || fail "$_what: exit $rc, stderr: $(cat "$TMP/err")"
	[ "$(wc -l <"$TMP/err")" -eq 1 ] || fail "$_what: $(cat "$TMP/err")"
	grep -qF "$_text" "$TMP/err" || fail "$_what: $(cat "$TMP/err")"
}

expect_fail "records from /dev/zero" \
	"sp-fold: '/dev/zero': line 1: longer than 64 MiB, not a record" /dev/zero
expect_fail "folded from /dev/zero" \
	"sp-fold: '/dev/zero': line 1: longer than 64 MiB, not a folded stack" \
	--from folded /dev/zero
expect_fail "perf script from /dev/zero" \
	"sp-fold: '/dev/zero': line 1: longer than 64 MiB, not perf script text" \
	--from perf-script /dev/zero
printf 'a;b 1\n' >"$TMP/ok.folded"
expect_fail "diff from /dev/zero" "'/dev/zero': line 1: longer than 64 MiB" \
	--from folded --diff "$TMP/ok.folded" /dev/zero
# The line after a long but allowed one is read.
python3 -c 'print("a;" + "f;" * 100000 + "g 2"); print("a;b 3")' >"$TMP/long.folded"
"$SP_FOLD" --from folded --format top "$TMP/long.folded" >"$TMP/out" ||
	fail "a 200 KB line: exit $?"
grep -q '^# 5 samples' "$TMP/out" || fail "long line: $(head -1 "$TMP/out")"

# Counts that pass 2^64 together.
printf 'a;b 18446744073709551615\na;c 1\n' >"$TMP/wrap.folded"
for fmt in folded top svg; do
	expect_fail "folded sum, $fmt" \
		"sp-fold: '$TMP/wrap.folded': line 2: the counts add up past 2^64-1" \
		--from folded --format $fmt "$TMP/wrap.folded"
done
printf 'a;b 18446744073709551615\n' >"$TMP/max.folded"
"$SP_FOLD" --from folded "$TMP/max.folded" "$TMP/ok.folded" >"$TMP/out" 2>"$TMP/err"
[ $? -eq 1 ] && grep -q "ok.folded': line 1: the counts add up" "$TMP/err" ||
	fail "two files' sum: $(cat "$TMP/err")"
"$SP_FOLD" --from folded --format top "$TMP/max.folded" >"$TMP/out" ||
	fail "2^64-1 alone is allowed"
grep -q '^# 18446744073709551615 samples' "$TMP/out" || fail "$(head -1 "$TMP/out")"

# Sample weights of a record stream, the same.
printf 'spool\t1\t0\t0\nframe\t0\tuser\t0x10\t-\t-\nstack\t0\t-\t0\nevent\t0\tcycles\tperiod\t1000\nsample\t1\t7\t7\t0\t0\t18446744073709551615\nsample\t2\t7\t7\t0\t0\t1\n' >"$TMP/wrap.rec"
expect_fail "record weights" \
	"line 6: the sample weights add up past 2^64-1" --weight period "$TMP/wrap.rec"
exit 0

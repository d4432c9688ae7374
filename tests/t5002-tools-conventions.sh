#!/bin/sh
# The conventions a perf or FlameGraph user types without thinking:
# --help and -h print the options on stdout and exit 0; --version prints
# "sp-NAME VERSION", the same version for every tool; a usage error says
# what was wrong on stderr and exits 2; a spool given to a text reader
# says to run it through sp-dump; -o FILE writes the output to a file.
. "$(dirname "$0")/lib.sh"

version=""
for t in dump fold record symbolize profile archive; do
	eval "bin=\$SP_$(echo "$t" | tr a-z A-Z)"
	for h in --help -h; do
		"$bin" $h >"$TMP/help" 2>"$TMP/help.err" ||
			fail "sp-$t $h: exit $?"
		grep -q "^usage: sp-$t" "$TMP/help" || fail "sp-$t $h: no usage on stdout"
		[ "$(wc -l <"$TMP/help")" -gt 5 ] || fail "sp-$t $h: no option list"
		[ -s "$TMP/help.err" ] && fail "sp-$t $h wrote to stderr"
	done
	"$bin" --version >"$TMP/v" || fail "sp-$t --version: exit $?"
	grep -Eq "^sp-$t [0-9]+\\.[0-9]+\\.[0-9]+" "$TMP/v" ||
		fail "sp-$t --version: $(cat "$TMP/v")"
	v=$(cut -d' ' -f2 "$TMP/v")
	[ -z "$version" ] || [ "$v" = "$version" ] || fail "two versions: $v $version"
	version=$v
	"$bin" --no-such-option </dev/null >"$TMP/out" 2>"$TMP/err"
	[ $? -eq 2 ] || fail "sp-$t: a bad option does not exit 2"
	[ -s "$TMP/out" ] && fail "sp-$t: usage error wrote to stdout"
	grep -q "^sp-$t: unrecognized option '--no-such-option'" "$TMP/err" ||
		fail "sp-$t: usage error does not say what: $(cat "$TMP/err")"
done

# A spool where text is expected: the hint says what to do.
printf 'SPULSE1\000\001\002' >"$TMP/x.spool"
for from in records perf-script folded; do
	"$SP_FOLD" --from $from "$TMP/x.spool" >/dev/null 2>"$TMP/err"
	[ $? -eq 1 ] || fail "sp-fold --from $from on a spool: exit status"
	grep -q "this is a spool.*sp-dump" "$TMP/err" ||
		fail "sp-fold --from $from on a spool: $(cat "$TMP/err")"
done
"$SP_SYMBOLIZE" "$TMP/x.spool" >/dev/null 2>"$TMP/err"
grep -q "this is a spool.*sp-dump" "$TMP/err" ||
	fail "sp-symbolize on a spool: $(cat "$TMP/err")"

# --pid LIST written with a space: the message shows the right spelling.
printf 'spool\t1\t0\t1000\n' >"$TMP/a.rec"
"$SP_FOLD" --pid 17031 "$TMP/a.rec" >/dev/null 2>"$TMP/err"
[ $? -eq 2 ] || fail "--pid 17031 FILE: not a usage error"
grep -q -- "--pid=17031" "$TMP/err" || fail "--pid hint: $(cat "$TMP/err")"

# -o FILE; a missing input leaves no output file behind.
"$SP_FOLD" -o "$TMP/out.folded" "$TMP/a.rec" || fail "sp-fold -o"
[ -f "$TMP/out.folded" ] || fail "sp-fold -o wrote no file"
"$SP_DUMP" -o "$TMP/never" "$TMP/nonexistent" 2>/dev/null
[ $? -eq 1 ] || fail "sp-dump on a missing file: exit status"
[ -e "$TMP/never" ] && fail "sp-dump left an output file for a missing input"
exit 0

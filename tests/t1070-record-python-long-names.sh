#!/bin/sh
# t1070-record-python-long-names.sh: four Python functions doing the same
# work in turn (tests/programs/py_longname.py), one renamed with a
# 1,100-character name and one given a 4,200-character file name, both
# past what the reader keeps (1,024 and 4,096 characters).  Such a
# function used to vanish: its code could not be read (-E2BIG), its
# stack was read late, when the thread ran a sibling, and the sibling
# got its samples (0 against 2x on main).  Now each of the four must get
# between half and twice the mean of their samples, and the long name and
# file name are kept cut, marked "[...]", with the file's base name kept.
# Runs 3.12 (frames with C-stack shims), Debian's 3.11 and one of 3.9, 3.10,
# 3.8 (frame objects), where present.
. "$(dirname "$0")/lib.sh"
need_perf

set --
for p in /usr/bin/python3 \
	"${PYENV_ROOT:-$HOME/.pyenv}"/versions/3.12.*/bin/python3.12; do
	[ -x "$p" ] && set -- "$@" "$p"
done
for v in 3.9 3.10 3.8; do
	for p in "${PYENV_ROOT:-$HOME/.pyenv}"/versions/"$v".*/bin/"python$v"; do
		[ -x "$p" ] && { set -- "$@" "$p"; break 2; }
	done
done
[ $# -gt 0 ] || skip "no CPython here"

for py; do
	"$SP_RECORD" -o "$TMP/x.spool" -- "$py" "$PROGRAMS/py_longname.py" \
		0.8 >/dev/null 2>"$TMP/err" ||
		fail "sp-record $py exited $?: $(cat "$TMP/err")"
	"$SP_DUMP" "$TMP/x.spool" >"$TMP/dump" || fail "sp-dump failed"
	pipeline "$SP_SYMBOLIZE" --no-lines "$TMP/dump" \| "$SP_FOLD" \
		>"$TMP/folded" 2>/dev/null || fail "pipeline failed on $py"
	# The samples whose innermost of the four is each of them.
	awk '{ n = $NF; s = $0; sub(/ [0-9]+$/, "", s); k = split(s, f, ";")
		for (i = k; i > 0; i--) {
			if (f[i] ~ /^(short|sibling|longfile)$/) { c[f[i]] += n; break }
			if (f[i] ~ /^longname_L+\[\.\.\.\]L+$/) { c["long"] += n; break }
		} }
		END { printf "%d %d %d %d\n", c["short"], c["sibling"],
			c["long"], c["longfile"] }' "$TMP/folded" >"$TMP/n"
	read -r short sibling long longfile <"$TMP/n"
	echo "# $py: short $short, sibling $sibling, long name $long," \
		"long file name $longfile; $(grep 'Python: [0-9]* stacks read from' "$TMP/err" |
		sed 's/^sp-record: //')" >&2
	sum=$((short + sibling + long + longfile))
	[ "$sum" -ge 400 ] || fail "$py: only $sum samples in the four"
	for c in $short $sibling $long $longfile; do
		[ $((c * 8)) -ge "$sum" ] && [ $((c * 2)) -le "$sum" ] ||
			fail "$py: $c samples of $sum, outside half to twice the mean (short $short, sibling $sibling, long name $long, long file $longfile)"
	done
	# The names as written: cut in the middle, the mark between.
	awk -F'\t' '$1 == "pycode" && $4 ~ /^longname_/ {
			if (length($4) == 1024 + 5 && $4 ~ /\[\.\.\.\]L+$/) n++ }
		$1 == "pycode" && $4 == "longfile" {
			if (length($5) == 4096 + 5 && $5 ~ /^\/d+\[\.\.\.\]d+\/py_longname\.py$/) f++ }
		END { exit !(n && f) }' "$TMP/dump" ||
		fail "$py: the long name or file name not kept cut with its mark"
done
exit 0

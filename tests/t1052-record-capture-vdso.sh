#!/bin/sh
# Issue 29: the vdso travels with the spool.  sp-record writes the vdso
# of the recorded processes (its own image: one per kernel) under its
# build id in the tree under the symbol cache's directory, once: a
# second recording keeps nothing new.  One machine cannot record
# another kernel's vdso, so that spool is made here: the stream's host
# record names another release and its vdso another build id, and the
# kept image gets that build id too (as t3046 does); with the host's
# vdso hidden so, sp-symbolize names clock_gettime from the tree alone,
# as on the recording machine, and without the tree keeps [vdso].
. "$(dirname "$0")/lib.sh"
need_perf
command -v python3 >/dev/null || skip "no python3"
cc_prog sym_vdso sym_vdso.c -O1
vdso_copy "$TMP/vdso.so" || fail "cannot copy the vdso"
hid=$(readelf -n "$TMP/vdso.so" | sed -n 's/.*Build ID: //p')
[ -n "$hid" ] || skip "the vdso has no build id"
tree=$XDG_CACHE_HOME/stackpulse
rel() {
	echo ".build-id/$(echo "$1" | cut -c1-2)/$(echo "$1" | cut -c3-)"
}

"$SP_RECORD" -q -o "$TMP/x.spool" -- "$TMP/sym_vdso" 0.5 2>"$TMP/err" ||
	fail "sp-record: exit $?: $(cat "$TMP/err")"
cmp "$TMP/vdso.so" "$tree/$(rel "$hid")" ||
	fail "the vdso is not kept: $(cat "$TMP/err")"
grep -q "^sp-record: kept 1 module file, [0-9]* bytes" "$TMP/err" ||
	fail "summary: $(cat "$TMP/err")"
"$SP_DUMP" "$TMP/x.spool" >"$TMP/x.rec" || fail "sp-dump"
mid=$(awk -F'\t' '$1 == "module" && $NF == "[vdso]" { print $2; exit }' \
	"$TMP/x.rec")
[ -n "$mid" ] || fail "no [vdso] module"
awk -F'\t' -v m="$mid" -v id="$hid" '$1 == "buildid" && $2 == m &&
	$3 == id { ok = 1 } END { exit !ok }' "$TMP/x.rec" ||
	fail "the spool's vdso build id is not $hid"
awk -F'\t' '$1 == "stats" { for (i = 2; i <= NF; i++) if ($i == "capture_files=1")
	ok = 1 } END { exit !ok }' "$TMP/x.rec" ||
	fail "no capture_files=1 in the stats: $(grep '^stats' "$TMP/x.rec")"
# Once per kernel: a second recording keeps nothing.
"$SP_RECORD" -q -o "$TMP/y.spool" -- "$TMP/sym_vdso" 0.2 2>"$TMP/err2" ||
	fail "sp-record: exit $?: $(cat "$TMP/err2")"
grep -q 'kept' "$TMP/err2" && fail "kept again: $(cat "$TMP/err2")"

fold() {	# IN OUT: folded stacks of a record stream
	pipeline "$SP_SYMBOLIZE" --no-cache \| "$SP_FOLD" <"$1" >"$2" \
		2>"$TMP/ferr" || fail "pipeline: $(cat "$TMP/ferr")"
	sort -o "$2" "$2"
}
fold "$TMP/x.rec" "$TMP/here"
grep -Eq ';(__vdso_)?clock_gettime ' "$TMP/here" ||
	fail "clock_gettime not named here: $(cat "$TMP/here")"

# Another kernel: another release, another vdso build id.
vid=$(echo "$hid" | sed 's/^\(.\)./\1f/')
[ "$vid" = "$hid" ] && vid=$(echo "$hid" | sed 's/^\(.\)./\1e/')
T='	'
sed -e "s/^host${T}release=[^$T]*/host${T}release=0.0.0-another/" \
	-e "s/^\(buildid${T}[0-9]*${T}\)$hid\$/\1$vid/" "$TMP/x.rec" >"$TMP/o.rec"
grep -q "$vid" "$TMP/o.rec" || fail "the stream was not changed"
fold "$TMP/o.rec" "$TMP/bare"
grep -q ';\[vdso\]' "$TMP/bare" || fail "named without a tree: $(cat "$TMP/bare")"
mkdir -p "$(dirname "$tree/$(rel "$vid")")"
python3 - "$tree/$(rel "$hid")" "$tree/$(rel "$vid")" "$hid" "$vid" <<'PY' ||
import sys
b = open(sys.argv[1], "rb").read()
old, new = bytes.fromhex(sys.argv[3]), bytes.fromhex(sys.argv[4])
assert b.count(old) == 1
open(sys.argv[2], "wb").write(b.replace(old, new))
PY
	fail "cannot change the build id"
chmod 600 "$tree/$(rel "$vid")"
fold "$TMP/o.rec" "$TMP/there"
diff -u "$TMP/here" "$TMP/there" ||
	fail "another kernel's vdso named otherwise: $(cat "$TMP/ferr")"
exit 0

#!/bin/sh
# vdso frames get names (issue 9 item 7): a program spinning in
# clock_gettime and gettimeofday is recorded; its [vdso] frames resolve
# from this host's vdso, and the vdso's local helpers (where the clock
# is read; the image in memory exports only the entry points) from a
# debug file found by the vdso's build id under --debug-dir.
. "$(dirname "$0")/lib.sh"
need_perf
command -v python3 >/dev/null || skip "no python3 to copy the vdso"
command -v objcopy >/dev/null || skip "no objcopy"

T='	'
cc_prog vdso sym_vdso.c -O2 -g
"$SP_RECORD" -o "$TMP/x.spool" "$TMP/vdso" 1 2>"$TMP/rec.err" ||
	fail "sp-record: exit $?: $(cat "$TMP/rec.err")"
"$SP_DUMP" "$TMP/x.spool" >"$TMP/x.txt" || fail "sp-dump: exit $?"
# The recorder writes the vdso's build id, so the spool can be read on
# another boot or host (the build id picks the right image).
vid=$(awk -F'\t' '$1 == "module" && $9 == "[vdso]" { print $2; exit }' "$TMP/x.txt")
[ -n "$vid" ] || fail "no [vdso] module"
awk -F'\t' -v id="$vid" '$1 == "buildid" && $2 == id { f = 1 } END { exit !f }' \
	"$TMP/x.txt" || fail "no build id for [vdso] (module $vid)"
grep -q "${T}user${T}\[vdso\]\$" "$TMP/x.txt" || skip "no [vdso] module"
timeout 60 "$SP_SYMBOLIZE" "$TMP/x.txt" >"$TMP/x.sym" 2>"$TMP/err" ||
	fail "sp-symbolize: exit $?: $(cat "$TMP/err")"
# symbols of frames in the [vdso] module
vid=$(awk -F "$T" '$1 == "module" && $NF == "[vdso]" { print $2 }' "$TMP/x.txt")
awk -F "$T" -v m="$vid" '$1 == "frame" && $5 == m { f[$2] = 1 }
	$1 == "symbol" && ($2 in f) && $4 == 0 { print $8 }' "$TMP/x.sym" |
	sort | uniq -c | sort -rn >"$TMP/vdso.names"
grep -Eq ' (__vdso_)?(clock_gettime|gettimeofday)$' "$TMP/vdso.names" ||
	fail "no vdso entry point named: $(cat "$TMP/vdso.names")"

# This host's vdso, with a symbol table naming its code below the first
# exported function, as the kernel's unstripped vdso64.so would.
vdso_copy "$TMP/vdso.so" || skip "cannot copy the vdso"
text=$(readelf -SW "$TMP/vdso.so" | awk '$2 == ".text" { print $4 }')
first=$(nm -D "$TMP/vdso.so" | awk '$2 == "T" { print $1 }' | sort | head -n 1)
[ -n "$text" ] && [ $((0x$first)) -gt $((0x$text)) ] ||
	skip "this vdso has no code before its first entry point"
set -- --add-symbol "sym_vdso_helper=.text:0x0,local,function"
for s in $(nm -D "$TMP/vdso.so" | awk '$2 == "T" { print $1 "/" $3 }'); do
	a=${s%%/*} n=${s#*/}
	set -- "$@" --add-symbol "${n%%@*}=.text:0x$(printf %x $((0x$a - 0x$text))),global,function"
done
id=$(readelf -n "$TMP/vdso.so" | sed -n 's/.*Build ID: //p')
[ -n "$id" ] || skip "the vdso has no build id"
d=$TMP/dbg/.build-id/$(echo "$id" | cut -c1-2)
mkdir -p "$d"
objcopy "$@" "$TMP/vdso.so" "$d/$(echo "$id" | cut -c3-).debug" ||
	fail "objcopy"
timeout 60 "$SP_SYMBOLIZE" --debug-dir "$TMP/dbg" "$TMP/x.txt" >"$TMP/y.sym" 2>"$TMP/err" ||
	fail "sp-symbolize -d: exit $?: $(cat "$TMP/err")"
# every vdso frame below the first entry point is in the helper now
awk -F "$T" -v m="$vid" -v lim=$((0x$first)) '
	function hex(s,  i, v) {
		for (i = 3; i <= length(s); i++)
			v = v * 16 + index("0123456789abcdef", substr(s, i, 1)) - 1
		return v
	}
	$1 == "frame" && $5 == m && hex($6) < lim { f[$2] = 1 }
	$1 == "symbol" && ($2 in f) && $4 == 0 { print $8 }' "$TMP/y.sym" |
	sort -u >"$TMP/helper.names"
if [ -s "$TMP/helper.names" ]; then
	echo sym_vdso_helper | diff -u - "$TMP/helper.names" ||
		fail "the vdso's debug file was not used"
else
	echo "no sample below the first entry point: helper not checked" >&2
fi
exit 0

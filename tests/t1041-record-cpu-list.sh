#!/bin/sh
# -C names CPUs this machine can have (/sys/devices/system/cpu/possible):
# any other number, however large, is a usage error (exit 2) naming the
# CPU and the range, before anything is opened or written; a malformed
# list is one too (issue 24 item 16: -C 2147483647 overflowed a loop and
# ran 8 s through 2.1 GB; -C 0-4294967296 recorded CPU 0).
. "$(dirname "$0")/lib.sh"
possible=/sys/devices/system/cpu/possible
[ -r $possible ] || skip "no $possible"
last=$(awk -F'[-,]' '{ print $NF }' $possible)
range="0-$last"

# out_of_range CPU LIST: -a -C LIST is refused, naming CPU.
out_of_range() {
	"$SP_RECORD" -a -C "$2" -d 0.1 -o "$TMP/x" 2>"$TMP/err"
	rc=$?
	[ $rc -eq 2 ] || fail "-C $2: exit $rc, not 2: $(cat "$TMP/err")"
	head -n 1 "$TMP/err" | grep -qx "sp-record: -C: CPU $1 is out of range: this machine's CPUs are $range" ||
		fail "-C $2: $(cat "$TMP/err")"
	[ ! -e "$TMP/x" ] || fail "-C $2 left an output file"
}

out_of_range 2147483647 2147483647
out_of_range 4294967296 0-4294967296
out_of_range 4294967296 4294967296
out_of_range 99999999999999999999999 0,99999999999999999999999
out_of_range $((last + 1)) "0-$((last + 1))"
out_of_range $((last + 1)) "$((last + 1))"

for list in "" "0," "1-0" " 1" "-1" "+1" "0x1" "1-" "0;1"; do
	"$SP_RECORD" -a -C "$list" -d 0.1 -o "$TMP/x" 2>"$TMP/err"
	rc=$?
	[ $rc -eq 2 ] || fail "-C '$list': exit $rc, not 2: $(cat "$TMP/err")"
	head -n 1 "$TMP/err" | grep -qxF "sp-record: invalid CPU list '$list' (as 0-3,6)" ||
		fail "-C '$list': $(cat "$TMP/err")"
done
exit 0

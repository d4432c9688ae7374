#!/bin/sh
# A recording appended to a file (`sp-record ... >> file`) that fills its
# disk is cut back to its last whole record counting from where it
# started, not from byte 0 of the file: what the file held before (other
# data, an earlier spool) stays byte for byte, the new spool read from its
# start reads to its end, and the summary's byte count is its size (issue
# 24 item 2).  The full disk is a 64 KiB tmpfs (root only).
. "$(dirname "$0")/lib.sh"
need_perf
cc_prog rec_chain rec_chain.c -O0 -fno-omit-frame-pointer -pthread
full_disk "$TMP/full"

# append_full PRIOR: appends a recording that fills the disk to a file
# holding PRIOR; checks the prior bytes, the new spool and the summary.
append_full() {
	f=$TMP/full/x.spool
	cp "$1" "$f"
	n=$(wc -c <"$1")
	"$SP_RECORD" -F 5000 -- "$TMP/rec_chain" 20 1 >>"$f" 2>"$TMP/err"
	rc=$?
	cat "$TMP/err" >&2
	[ $rc -eq 1 ] || fail "sp-record exited $rc, want 1"
	grep -q "^sp-record: 'stdout': write: No space left on device$" \
		"$TMP/err" || fail "the write error is not said"
	head -c "$n" "$f" | cmp -s - "$1" ||
		fail "the $n bytes before the spool changed"
	tail -c +$((n + 1)) "$f" >"$TMP/new.spool"
	"$SP_DUMP" "$TMP/new.spool" >"$TMP/dump" 2>"$TMP/dump.err" ||
		fail "the new spool ends inside a record: $(cat "$TMP/dump.err")"
	size=$(wc -c <"$TMP/new.spool")
	grep -q "^sp-record: kept $size bytes of 'stdout', up to the last whole record" \
		"$TMP/err" || fail "the summary does not say the $size bytes kept"
	s=$(grep -c '^sample' "$TMP/dump")
	[ "$s" -gt 500 ] || fail "only $s samples kept after $n bytes"
	rm -f "$f"
}

# Other data first: 5000 bytes that are not a spool.
awk 'BEGIN { for (i = 0; i < 5000; i++) printf "%c", 33 + i % 90 }' \
	>"$TMP/junk"
append_full "$TMP/junk"

# An earlier spool first: it must still read as it did.
"$SP_RECORD" -F 1000 -o "$TMP/first.spool" -- "$TMP/rec_chain" 0.3 \
	2>"$TMP/err1"
[ $? -eq 7 ] || fail "the first recording failed: $(cat "$TMP/err1")"
"$SP_DUMP" "$TMP/first.spool" >"$TMP/first.dump" ||
	fail "the first spool does not read"
append_full "$TMP/first.spool"
exit 0

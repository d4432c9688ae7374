#!/bin/sh
# Issue 29: what sp-record's capture of module files refuses.  A module
# over --capture-max-file, or past --capture-max-total, is not kept and
# the summary counts it; a FIFO left at a deleted library's path is
# never opened (its waiting writer still waits) while the library is
# kept from the mapping itself; a tree that is a symbolic link, or
# another user's, is not written to, with one warning.  (A path that
# leads out of a container's root through a symbolic link is
# check_record_capture's: it needs a chroot held still.)
. "$(dirname "$0")/lib.sh"
need_perf
cc_prog rec_chain rec_chain.c -O0 -g -fno-omit-frame-pointer -pthread
size=$(stat -c %s "$TMP/rec_chain")
[ "$size" -gt 16384 ] || fail "rec_chain is only $size bytes"
rel() {
	_id=$(readelf -n "$1" | awk '/Build ID:/ { print $3 }')
	echo ".build-id/$(echo "$_id" | cut -c1-2)/$(echo "$_id" | cut -c3-)"
}

# A file over the cap per file: every sampled module is wanted (all),
# none over 16 KiB is kept.
"$SP_RECORD" -q --capture all --capture-max-file 16K --capture-dir "$TMP/a" \
	-o "$TMP/a.spool" -- "$TMP/rec_chain" 0.2c 2>"$TMP/a.err"
[ $? -eq 7 ] || fail "sp-record: $(cat "$TMP/a.err")"
grep -q '^sp-record: module files not kept: over --capture-max-file [1-9]' \
	"$TMP/a.err" || fail "no count of files over the cap: $(cat "$TMP/a.err")"
[ -e "$TMP/a/$(rel "$TMP/rec_chain")" ] && fail "a file over the cap was kept"
[ -z "$(find "$TMP/a" -type f -size +16k)" ] ||
	fail "kept over the cap: $(find "$TMP/a" -type f -size +16k)"
# The cap per recording: what is kept stays within it.
"$SP_RECORD" -q --capture all --capture-max-total 30K --capture-dir "$TMP/t" \
	-o "$TMP/t.spool" -- "$TMP/rec_chain" 0.2c 2>"$TMP/t.err"
[ $? -eq 7 ] || fail "sp-record: $(cat "$TMP/t.err")"
grep -q 'past --capture-max-total [1-9]' "$TMP/t.err" ||
	fail "no count past the total: $(cat "$TMP/t.err")"
kept=$(find "$TMP/t" -type f -exec stat -c %s {} + | awk '{ s += $1 } END { print s + 0 }')
[ "$kept" -le 30720 ] || fail "kept $kept bytes past a cap of 30K"

# A tree that is a symbolic link, or another user's: not written to.
mkdir "$TMP/elsewhere" && ln -s elsewhere "$TMP/link"
"$SP_RECORD" -q --capture all --capture-dir "$TMP/link" -o "$TMP/l.spool" \
	-- "$TMP/rec_chain" 0.1c 2>"$TMP/l.err"
[ $? -eq 7 ] || fail "sp-record: $(cat "$TMP/l.err")"
grep -qx "sp-record: '$TMP/link': a symbolic link, or not a directory; module files are not kept" \
	"$TMP/l.err" || fail "link: $(cat "$TMP/l.err")"
[ -z "$(ls -A "$TMP/elsewhere")" ] || fail "written through the link"
if [ "$(id -u)" = 0 ] && id nobody >/dev/null 2>&1; then
	mkdir "$TMP/theirs" && chown nobody "$TMP/theirs"
	"$SP_RECORD" -q --capture all --capture-dir "$TMP/theirs" \
		-o "$TMP/u.spool" -- "$TMP/rec_chain" 0.1c 2>"$TMP/u.err"
	[ $? -eq 7 ] || fail "sp-record: $(cat "$TMP/u.err")"
	grep -qx "sp-record: '$TMP/theirs': another user's, or writable by others; module files are not kept" \
		"$TMP/u.err" || fail "another user's: $(cat "$TMP/u.err")"
	[ -z "$(ls -A "$TMP/theirs")" ] || fail "written into another user's tree"
fi

# A FIFO at the deleted library's path, a writer waiting on it.
cc_prog rec_libswap rec_libswap.c -O0 -ldl
cc_prog lib.so rec_intlib.c -O0 -shared -fPIC
cp "$TMP/lib.so" "$TMP/lib.orig"
"$TMP/rec_libswap" fifo 1c "$TMP/lib.so" "$TMP/ready" &
target=$!
wait_for_file "$TMP/ready" || fail "rec_libswap did not set up the FIFO"
[ -p "$TMP/lib.so (deleted)" ] || fail "no FIFO at the module path"
(exec 3>"$TMP/lib.so (deleted)" && touch "$TMP/opened") &
writer=$!
trap 'kill $target $writer 2>/dev/null; rm -rf "$TMP"' EXIT
"$SP_RECORD" -q -p $target -o "$TMP/f.spool" 2>"$TMP/f.err" ||
	fail "sp-record: $(cat "$TMP/f.err")"
[ -e "$TMP/opened" ] && fail "the FIFO was opened"
if [ "$(id -u)" = 0 ]; then
	cmp "$TMP/lib.orig" "$XDG_CACHE_HOME/stackpulse/$(rel "$TMP/lib.orig")" ||
		fail "the deleted library was not kept: $(cat "$TMP/f.err")"
fi
exit 0

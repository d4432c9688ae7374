#!/bin/sh
# --capture-dir refuses a filesystem root, a system directory and a
# kernel pseudo filesystem before recording anything (a usage error naming
# the directory and --capture-dir-force), so root's `--capture-dir /` no
# longer plants /.build-id (issue 39 item 11).  (A directory others may
# write is the build-id store's to refuse, with a word: t1053.)  A
# directory of one's own, existing or not, is taken, and so is a
# mount point with --capture-dir-force.  No perf events are needed for the
# refusals: they come before the recording starts.
. "$(dirname "$0")/lib.sh"

# refused DIR WHAT: sp-record refuses DIR as WHAT, exit 2, and writes
# nothing there.
refused() {
	had=false
	[ -e "$1/.build-id" ] && had=true
	"$SP_RECORD" --capture all --capture-dir "$1" -o "$TMP/r.spool" \
		-- true 2>"$TMP/err"
	rc=$?
	[ $rc -eq 2 ] || fail "--capture-dir $1: exit $rc: $(cat "$TMP/err")"
	grep -q "^sp-record: --capture-dir '$1' is $2" "$TMP/err" ||
		fail "--capture-dir $1: $(cat "$TMP/err")"
	[ -e "$1/.build-id" ] && ! $had &&
		fail "--capture-dir $1: a .build-id tree was made"
	[ -s "$TMP/r.spool" ] && fail "--capture-dir $1: a recording was made"
	return 0
}

refused / "a system directory"
refused /usr/lib "a system directory"
refused /tmp "a system directory"
refused /proc "a system directory"
refused /proc/self "a kernel pseudo filesystem"
[ -d /sys/fs/cgroup ] && refused /sys/fs/cgroup "a"
ln -s / "$TMP/root-link"
refused "$TMP/root-link" "a system directory ('/')"

have_perf || {
	[ "${CI:-}" = true ] && fail "perf_event_open: $perf_why"
	skip "the refusals hold; recording: $perf_why"
}
# A directory of one's own is taken, whether it exists or not.
cc_prog spin rec_cpuspin.c -O0
mkdir "$TMP/mine"
"$SP_RECORD" -q --capture all --capture-dir "$TMP/mine" \
	-o "$TMP/m.spool" -- "$TMP/spin" 0.1 ||
	fail "--capture-dir of one's own refused"
[ -d "$TMP/mine/.build-id" ] || fail "nothing kept under '$TMP/mine'"
"$SP_RECORD" -q --capture all --capture-dir "$TMP/new/dir" \
	-o "$TMP/n.spool" -- true || fail "--capture-dir not yet made refused"
# Forced, a mount point is taken (root mounts one of its own).
mkdir "$TMP/mnt"
if [ "$(id -u)" = 0 ] && mount -t tmpfs -o size=16m,mode=0700 none "$TMP/mnt"
then
	trap 'umount "$TMP/mnt"; rm -rf "$TMP"' EXIT
	refused "$TMP/mnt" "a filesystem root"
	"$SP_RECORD" -q --capture all --capture-dir "$TMP/mnt" \
		--capture-dir-force -o "$TMP/f.spool" -- "$TMP/spin" 0.1 ||
		fail "--capture-dir-force refused"
	[ -d "$TMP/mnt/.build-id" ] || fail "nothing kept with the force"
fi
exit 0

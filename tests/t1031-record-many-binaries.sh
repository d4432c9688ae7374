#!/bin/sh
# t1031-record-many-binaries.sh: sp-record -f over 60 distinct binaries
# run one after the other must not keep every module file it unwound
# through mapped (issue 24: 43 MB of resident memory for 50 binaries,
# 296 MB for 400, and deleted binaries pinning their disk space).  After
# the children exit, at most the unwinder's idle list (32 files) stays
# mapped, and a binary deleted while it ran is neither mapped nor open;
# within the wait no binary stays open (the capture holds a file the
# host reaches for a second after its last process, for the next one of
# its build id: all 60 copies share one).
# The command reads the recorder's (its parent's) maps and descriptors.
. "$(dirname "$0")/lib.sh"
need_perf

cc_prog rec_cpuspin rec_cpuspin.c -O1
mkdir "$TMP/bin" || fail "mkdir"
i=1
while [ $i -le 60 ]; do
	cp "$TMP/rec_cpuspin" "$TMP/bin/spin$i" || fail "cp"
	i=$((i + 1))
done
cp "$TMP/rec_cpuspin" "$TMP/bin/deleted" || fail "cp"

cat >"$TMP/many.sh" <<'SH'
# many.sh DIR: runs DIR/bin/spin1..60, then DIR/bin/deleted deleted while
# it runs; then waits (at most ~10 s) for the recorder to let them go.
mapped() { grep -c "$1/bin/" "/proc/$PPID/maps"; }
i=1
while [ $i -le 60 ]; do
	"$1/bin/spin$i" 0.02
	i=$((i + 1))
done
"$1/bin/deleted" 0.5 &
n=0
while ! grep -q "$1/bin/deleted" "/proc/$PPID/maps" && [ $n -lt 100 ]; do
	sleep 0.05
	n=$((n + 1))
done
grep -q "$1/bin/deleted" "/proc/$PPID/maps" && : >"$1/was_mapped"
rm "$1/bin/deleted"
wait
n=0
while [ "$(mapped "$1")" -gt 32 ] || grep -q "$1/bin/deleted" \
	"/proc/$PPID/maps" || ls -l "/proc/$PPID/fd" 2>/dev/null |
	grep -q "$1/bin/"; do
	[ $n -ge 100 ] && break
	sleep 0.1
	n=$((n + 1))
done
cat "/proc/$PPID/maps" >"$1/maps"
# ls fails when a descriptor closes as it reads them: what it listed is
# enough, and sp-record's exit status is this script's.
ls -l "/proc/$PPID/fd" >"$1/fds" 2>/dev/null
exit 0
SH
"$SP_RECORD" -q -f -o "$TMP/x.spool" -- sh "$TMP/many.sh" "$TMP" \
	2>"$TMP/err"
rc=$?
cat "$TMP/err" >&2
[ $rc -eq 0 ] || fail "sp-record exited $rc"
[ -e "$TMP/was_mapped" ] ||
	fail "the recorder never mapped the binary to delete: nothing to test"
n=$(grep -c "$TMP/bin/spin" "$TMP/maps")
echo "binaries still mapped after they exited: $n of 60" >&2
[ "$n" -le 32 ] || fail "$n of 60 exited binaries still mapped"
grep "$TMP/bin/deleted" "$TMP/maps" >&2 &&
	fail "a deleted binary is still mapped after its process exited"
grep "$TMP/bin/" "$TMP/fds" >&2 && fail "a binary is still open"
exit 0

#!/bin/sh
# sp-symbolize never opens a file it reads before knowing it is a
# regular file (issue 24 item 11): a module path, a debug file by build
# id, a .gnu_debuglink target, a perf map and a jitdump that are FIFOs,
# each with a writer waiting for a reader, leave the writer waiting (the
# old code opened them, non-blocking, before its check: the writer's
# open returned); a character device (a serial line's numbers, made
# here) at a module path is named "not a regular file" and, where strace
# is installed, is seen opened only with O_PATH.
. "$(dirname "$0")/lib.sh"

T='	'
cc_prog withid sym_elf.c -O2 -g -Wl,--build-id
id=$(readelf -n "$TMP/withid" | sed -n 's/.*Build ID: //p')
[ -n "$id" ] || skip "the toolchain writes no build ids"

# stream PATH: one module of process 77 mapping PATH, one frame in it,
# and one frame of the same process outside every module (for JIT maps).
stream() {
	printf 'spool\t1\t0\t1000\n'
	printf 'module\t0\t77\t0x7f0000000000\t0x7f0000100000\t0x0\t0\tuser\t%s\n' "$1"
	printf 'frame\t0\tuser\t0x7f0000001100\t0\t0x1100\n'
	printf 'frame\t1\tuser\t0x1010\t-\t-\npframe\t1\t77\t-\t-\n'
}

# waiter FIFO: makes FIFO with a writer that blocks in open(2) until a
# reader opens it, then leaves FIFO.opened; its pid in $wpid.
waiter() {
	rm -f "$1" "$1.opened"
	mkfifo "$1"
	( exec 3>"$1"; : >"$1.opened" ) &
	wpid=$!
}

# unopened NAME FIFO: after the run, FIFO's writer must still wait
# (given 2 s to show it did not), then it is stopped.
unopened() {
	_i=0
	while [ $_i -lt 20 ]; do
		[ -e "$2.opened" ] && fail "$1: sp-symbolize opened '$2'"
		sleep 0.1
		_i=$((_i + 1))
	done
	kill "$wpid" 2>/dev/null
	wait "$wpid" 2>/dev/null
	[ -e "$2.opened" ] && fail "$1: sp-symbolize opened '$2'"
	return 0
}

# run NAME ARGS...: sp-symbolize within 20 s, exit 0.
run() {
	_n=$1
	shift
	timeout 20 "$SP_SYMBOLIZE" --no-cache "$@" >"$TMP/$_n.out" \
		2>"$TMP/$_n.err"
	_rc=$?
	[ $_rc -eq 124 ] && fail "$_n: sp-symbolize hung"
	[ $_rc -eq 0 ] || fail "$_n: exit $_rc: $(cat "$TMP/$_n.err")"
}

# 1. A module path.
waiter "$TMP/mod.so"
stream "$TMP/mod.so" >"$TMP/in"
run module --no-perf-maps "$TMP/in"
unopened module "$TMP/mod.so"
grep -q "mod.so': not a regular file" "$TMP/module.err" ||
	fail "module: $(cat "$TMP/module.err")"

# 2. The debug file of a build id under --debug-dir.
d=$TMP/dbg/.build-id/$(echo "$id" | cut -c1-2)
mkdir -p "$d"
waiter "$d/$(echo "$id" | cut -c3-).debug"
stream "$TMP/withid" >"$TMP/in"
run buildid --no-perf-maps --debug-dir "$TMP/dbg" "$TMP/in"
unopened buildid "$d/$(echo "$id" | cut -c3-).debug"
grep -q "^symbol${T}0${T}-${T}0${T}-${T}" "$TMP/buildid.out" ||
	fail "buildid: the module's own symbols not used"

# 3. The .gnu_debuglink target next to the file.
cc_prog linked sym_elf.c -O2 -g -Wl,--build-id=none
objcopy --only-keep-debug "$TMP/linked" "$TMP/linked.debug"
objcopy --strip-debug --add-gnu-debuglink="$TMP/linked.debug" "$TMP/linked"
waiter "$TMP/linked.debug"
stream "$TMP/linked" >"$TMP/in"
run debuglink --no-perf-maps "$TMP/in"
unopened debuglink "$TMP/linked.debug"

# 4. A perf map, then a jitdump.
mkdir "$TMP/maps"
for f in perf-77.map jit-77.dump; do
	waiter "$TMP/maps/$f"
	run "$f" --perf-map-dir "$TMP/maps" "$TMP/in"
	unopened "$f" "$TMP/maps/$f"
	rm "$TMP/maps/$f" "$TMP/maps/$f.opened" 2>/dev/null
done

# 5. A character device with a serial line's numbers (ttyS0: 4, 64).
if [ "$(id -u)" = 0 ] && mknod "$TMP/ttyS0" c 4 64 2>/dev/null; then
	stream "$TMP/ttyS0" >"$TMP/in"
	run device --no-perf-maps "$TMP/in"
	grep -q "ttyS0': not a regular file" "$TMP/device.err" ||
		fail "device: $(cat "$TMP/device.err")"
	if command -v strace >/dev/null 2>&1 &&
		strace -f -qq -o /dev/null true 2>/dev/null; then
		strace -f -qq -e trace=open,openat -o "$TMP/trace" \
			"$SP_SYMBOLIZE" --no-cache --no-perf-maps "$TMP/in" \
			>/dev/null 2>&1
		grep -q 'ttyS0' "$TMP/trace" || fail "strace saw no open of it"
		grep 'ttyS0' "$TMP/trace" | grep -v 'O_PATH' &&
			fail "the device was opened for reading"
	fi
fi
exit 0

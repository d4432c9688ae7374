#!/bin/sh
# A target that moves a mapped library away and puts a symbolic link to a
# FIFO or a character device at the path its mapping was made with (the
# one the recorder's mmap event names) cannot make root's recorder open
# either: every open of a path a process named checks the type on an
# O_PATH descriptor first (issue 39 item 2).  A writer blocked in open(2)
# on the FIFO stays blocked, and strace sees the recorder open the link
# with O_PATH only.  The old recorder opened it O_RDONLY|O_NONBLOCK,
# releasing the writer.
. "$(dirname "$0")/lib.sh"
need_perf
command -v timeout >/dev/null || skip "no timeout(1)"
cc_prog rec_libswap rec_libswap.c -O0 -ldl
mkdir "$TMP/x" "$TMP/y"
cc_prog x/libx.so rec_intlib.c -O0 -shared -fPIC
cc_prog y/liby.so rec_intlib.c -O0 -shared -fPIC
mkfifo "$TMP/fifo" || fail "mkfifo"

# A writer that stays in open(2) until some reader opens the FIFO.
(exec 3>"$TMP/fifo" && echo released >"$TMP/released") &
writer=$!
trap 'kill $writer 2>/dev/null; rm -rf "$TMP"' EXIT

# record NAME LIB TARGET [STRACE...]: records rec_libswap spinning 1 s of
# CPU in LIB after replacing it by a link to TARGET; a readable spool of
# samples in LIB.
record() {
	_n=$1 _lib=$2 _target=$3
	shift 3
	timeout -k 5 60 "$@" "$SP_RECORD" -o "$TMP/$_n.spool" -- \
		"$TMP/rec_libswap" link 1c "$_lib" "$TMP/$_n.pid" "$_target" \
		2>"$TMP/$_n.err" ||
		fail "$_n: sp-record failed: $(cat "$TMP/$_n.err")"
	"$SP_DUMP" "$TMP/$_n.spool" >"$TMP/$_n.dump" ||
		fail "$_n: sp-dump rejected the spool"
	grep -q "^module.*$_lib\$" "$TMP/$_n.dump" ||
		fail "$_n: no module record of $_lib"
	grep -q '^sample' "$TMP/$_n.dump" || fail "$_n: no sample recorded"
}

record fifo "$TMP/x/libx.so" "$TMP/fifo"
sleep 0.2
[ -e "$TMP/released" ] && fail "the recorder opened the FIFO behind the link"

if command -v strace >/dev/null 2>&1 &&
	strace -f -qq -o /dev/null true 2>/dev/null; then
	record dev "$TMP/y/liby.so" /dev/null \
		strace -f -qq -e trace=open,openat -o "$TMP/trace"
	# The recorder's opens: not the target's, which dlopen()ed it.
	child=$(cat "$TMP/dev.pid")
	awk -v c="$child" '$1 != c' "$TMP/trace" >"$TMP/rec.trace"
	grep -q 'liby.so"' "$TMP/rec.trace" ||
		fail "strace saw the recorder open no liby.so"
	grep 'liby.so"' "$TMP/rec.trace" | grep -v 'O_PATH' &&
		fail "the device behind the link was opened for reading"
elif [ "${CI:-}" = true ]; then
	fail "no working strace under CI"
else
	record dev "$TMP/y/liby.so" /dev/null
	echo "strace missing: the device case was not checked"
fi
[ -e "$TMP/released" ] && fail "the FIFO was opened"
exit 0

#!/bin/sh
# t2008-unwind-deep.sh: stacks deeper than the stack copy (issue 28).
# unw_deep recurses 40 to 400 KiB deep, its depth following a sawtooth of
# CPU time: at least 99% of its samples with a stack (the kernel copied
# none for at most 1%, the ip alone) must be complete and every stack
# must follow the program's own call structure (unw_deep.awk), which
# takes the reads past the copy: without them (--stack-read 0)
# most stacks end in the truncated marker.  With "switch" the whole stack
# changes every 50 us, faster than the recorder reads it: the frames read
# live must be refused (counted as unwind_deep.call_mismatch or
# stack_changed), and still no stack may be wrong; where BPF copies more
# of the stack at the sample, the stacks within those copies complete.  unw_segs.rs (when
# rustc is here) recurses the same way over stack segments switched to as
# stacker's psm does: the reads must follow the switches into the older
# segments, with the same bounds.  Most deep stacks must take their outer
# frames from the last sample's, verified (deepcache.h).  CPU-time bounded.
. "$(dirname "$0")/lib.sh"
need_perf
cc_prog unw_deep unw_deep.c -O2 -fomit-frame-pointer

# record NAME ARGS...: records unw_deep ARGS into $TMP/NAME.{dump,folded}.
record() {
	_n=$1
	shift
	"$SP_RECORD" -g dwarf $read -o "$TMP/$_n.spool" -- "$TMP/$prog" "$@" \
		2>"$TMP/err" || fail "sp-record ($_n) exited $?: $(cat "$TMP/err")"
	"$SP_DUMP" "$TMP/$_n.spool" >"$TMP/$_n.dump" || fail "sp-dump exited $?"
	pipeline "$SP_SYMBOLIZE" \| "$SP_FOLD" <"$TMP/$_n.dump" \
		>"$TMP/$_n.folded" || fail "pipeline failed on $_n"
}

# counter NAME KEY: the value of a stats counter of $TMP/NAME.dump, or 0.
counter() { stats_counter "$TMP/$1.dump" "$2"; }

read=""
prog=unw_deep
record deep 1.5c
echo "-- reads past the copy"
awk -v stable=1 -f "$PROGRAMS/unw_deep.awk" "$TMP/deep.folded" ||
	fail "deep stacks: too few complete, or a wrong frame"
completed=$(counter deep unwind_deep.completed)
[ "$completed" -gt 0 ] ||
	fail "no unwind_deep.completed counter in the stats record"
# the outer frames come from the last sample's (deepcache.h), verified
cached=$(counter deep unwind_deep.cached)
echo "$cached of $completed completed with frames kept from a sample before"
[ $((cached * 10)) -ge $((completed * 8)) ] ||
	fail "fewer than 80% of deep stacks took their outer frames kept"

read="--stack-read 0"
record off 0.5c
read=""
echo "-- no reads past the copy"
awk -v stable=1 -v min_pct=0 -f "$PROGRAMS/unw_deep.awk" "$TMP/off.folded" \
	>"$TMP/off.out" ||
	fail "without reads: a wrong frame, too few samples or too many unrooted: $(cat "$TMP/off.out")"
cat "$TMP/off.out"
awk '{ sub(/%.*/, "", $5); sub(/\(/, "", $5); exit !($5 < 50) }' \
	"$TMP/off.out" || fail "without reads, half the stacks are complete"
[ "$(counter off unwind_deep.samples)" -eq 0 ] ||
	fail "--stack-read 0 still read past the copy"

record switch 1c switch
echo "-- a stack replaced faster than it is read"
awk -v min_pct=0 -f "$PROGRAMS/unw_deep.awk" "$TMP/switch.folded" ||
	fail "a stack read while it changed has a wrong frame"
refused=$(($(counter switch unwind_deep.call_mismatch) + \
	$(counter switch unwind_deep.stack_changed)))
[ "$refused" -gt 0 ] || fail "no frames read live were refused"
echo "$(counter switch unwind_deep.cached) with frames kept, $refused refused"
# Copied at the sample (deepbpf.h, as root): stacks within the copies are
# complete however fast they change, a quarter or more of them here
# (7.5-16.7% without).
taken=$(counter switch unwind_deep.bpf_taken)
if [ "$taken" -gt 0 ] || [ "${CI:-}" = true ]; then
	echo "$taken copied at the sample"
	[ "$taken" -gt 100 ] || fail "only $taken stacks copied at the sample"
	awk -v min_pct=25 -f "$PROGRAMS/unw_deep.awk" "$TMP/switch.folded" \
		>/dev/null || fail "copies at the sample: too few complete"
else
	echo "-- no copies at the sample (no BPF here)"
fi

if ! command -v rustc >/dev/null; then
	[ "${CI:-}" = true ] && fail "rustc is missing"
	echo "-- rustc is missing: no stack segments"
	exit 0
fi
rustc -O -g -o "$TMP/unw_segs" "$PROGRAMS/unw_segs.rs" 2>"$TMP/err" ||
	fail "rustc failed: $(cat "$TMP/err")"
prog=unw_segs
record segs 1c
echo "-- stack segments"
# complete stacks that crossed three switches or more
crossed=$(awk '!/<stack truncated>/ {
	if (gsub(/;seg_switch;/, "&") >= 3) n += $NF } END { print n + 0 }' \
	"$TMP/segs.folded")
echo "$crossed complete stacks over four segments or more"
sed -f "$PROGRAMS/unw_segs.sed" "$TMP/segs.folded" >"$TMP/segs.judged"
awk -v stable=1 -f "$PROGRAMS/unw_deep.awk" "$TMP/segs.judged" ||
	fail "stacks over segments: too few complete, or a wrong frame"
echo "$(counter segs unwind_deep.cached) of" \
	"$(counter segs unwind_deep.completed) with frames kept"
[ "$crossed" -gt 100 ] || fail "too few complete stacks crossed segments"
exit 0

#!/bin/sh
# sp-symbolize and JIT perf maps in a live pipe: symbols appear as soon as
# their frame arrives, a map that grows is reread, an exec drops it, and
# --perf-map-dir, --perf-map-pid and --no-perf-maps choose the maps.
. "$(dirname "$0")/lib.sh"

T='	'
maps=$TMP/maps
mkdir "$maps"
printf '1000 100 py::handler:/srv/app.py\n2000 40 LazyCompile:*tick app.js:3\n' \
	>"$maps/perf-77.map"

mkfifo "$TMP/fifo"
"$SP_SYMBOLIZE" --perf-map-dir "$maps" <"$TMP/fifo" 2>"$TMP/err" |
	cat >"$TMP/out" &
exec 3>"$TMP/fifo"
# wait_for PATTERN: up to 10 s for a line in the output.
wait_for() {
	i=0
	while ! grep -q "$1" "$TMP/out"; do
		i=$((i + 1))
		[ $i -gt 100 ] && { exec 3>&-; fail "no '$1' in: $(cat "$TMP/out")"; }
		sleep 0.1
	done
}
printf 'spool\t1\t0\t1000\nframe\t0\tuser\t0x1010\t-\t-\npframe\t0\t77\t-\t-\n' >&3
wait_for "^symbol${T}0${T}77${T}0${T}-${T}0x10${T}/srv/app.py${T}handler\$"
printf 'frame\t1\tuser\t0x2004\t-\t-\npframe\t1\t77\t-\t-\n' >&3
wait_for "^symbol${T}1${T}77${T}0${T}j${T}0x4${T}-${T}LazyCompile:\*tick app.js:3\$"
# The JIT writes more code: a frame the loaded map lacks rereads it.
printf '3000 10 py::late:/srv/app.py\n' >>"$maps/perf-77.map"
printf 'frame\t2\tuser\t0x3002\t-\t-\npframe\t2\t77\t-\t-\n' >&3
wait_for "^symbol${T}2${T}77${T}0${T}-${T}0x2${T}/srv/app.py${T}late\$"
# After an exec the old map is dropped and the new one read.
printf '1000 100 py::after_exec:/srv/new.py\n' >"$maps/perf-77.map"
printf 'exec\t5\t77\tpython\nframe\t3\tuser\t0x1010\t-\t-\npframe\t3\t77\t-\t-\n' >&3
wait_for "^symbol${T}3${T}77${T}0${T}-${T}0x10${T}/srv/new.py${T}after_exec\$"
exec 3>&-
wait
[ -s "$TMP/err" ] && fail "unexpected stderr: $(cat "$TMP/err")"
# The frame records themselves know no process: address names.
grep -q "^symbol${T}0${T}-${T}0${T}u${T}-${T}-${T}<0x1010>\$" "$TMP/out" ||
	fail "frame 0 without a process"

# Choosing the maps.
printf 'spool\t1\t0\t1\nframe\t0\tuser\t0x1010\t-\t-\npframe\t0\t77\t-\t-\npframe\t0\t78\t-\t-\n' \
	>"$TMP/in"
cp "$maps/perf-77.map" "$maps/perf-78.map"
pipeline "$SP_SYMBOLIZE" --perf-map-dir "$maps" --perf-map-pid 78 "$TMP/in" \
	\| grep "^symbol${T}0${T}7" \| cut -f 3,8 >"$TMP/got" || fail "--perf-map-pid"
printf '77\t<0x1010>\n78\tafter_exec\n' | diff -u - "$TMP/got" ||
	fail "--perf-map-pid"
"$SP_SYMBOLIZE" --perf-map-dir "$maps" --no-perf-maps "$TMP/in" >"$TMP/out" ||
	fail "--no-perf-maps exited $?"
grep -q after_exec "$TMP/out" && fail "--no-perf-maps"
# A file-backed module is never overridden by a perf map.
printf 'spool\t1\t0\t1\nmodule\t0\t77\t0x1000\t0x2000\t0x0\t0\tuser\t/no/such/bash\nframe\t0\tuser\t0x1010\t0\t0x10\n' \
	>"$TMP/in.file"
"$SP_SYMBOLIZE" --perf-map-dir "$maps" "$TMP/in.file" >"$TMP/out" 2>/dev/null ||
	fail "file-backed module: exit $?"
grep -q "${T}bash+0x10\$" "$TMP/out" || fail "perf map overrode a file-backed module"
exit 0

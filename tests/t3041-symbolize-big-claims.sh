#!/bin/sh
# sp-symbolize bounds what hostile files make it read (issue 24 items 12
# and 13): a perf map larger than the cap (a sparse file with a valid
# first line) is refused with a warning naming it and the cap; an ELF
# section whose header claims more than the file holds (past its end, or
# holes of a sparse file) is not read, with a warning naming the file
# and the section, and the names from the other sections stay.  The old
# code read the map whole with no word (8 GiB: 28 s, 2.2 GB), refused
# the whole file for a section past its end, and read a sparse section
# whole (3 GiB: up to 28 s and 3.15 GB).
. "$(dirname "$0")/lib.sh"

T='	'

# run NAME ARGS...: sp-symbolize, exit 0.
run() {
	_n=$1
	shift
	"$SP_SYMBOLIZE" --no-cache "$@" >"$TMP/$_n.out" 2>"$TMP/$_n.err" ||
		fail "$_n: exit $?: $(cat "$TMP/$_n.err")"
}

# 1. A perf map of 600 MiB, sparse after a valid first line.
mkdir "$TMP/maps"
printf '1000 100 jit_first\n' >"$TMP/maps/perf-77.map"
truncate -s 600M "$TMP/maps/perf-77.map" || skip "no sparse files here"
printf 'spool\t1\t0\t1000\nframe\t0\tuser\t0x1010\t-\t-\npframe\t0\t77\t-\t-\n' \
	>"$TMP/jit.in"
run bigmap --perf-map-dir "$TMP/maps" "$TMP/jit.in"
one_error sp-symbolize "$TMP/bigmap.err"
grep -q "perf-77.map': larger than the cap of 512 MiB; not read" \
	"$TMP/bigmap.err" || fail "bigmap: $(cat "$TMP/bigmap.err")"
grep -q jit_first "$TMP/bigmap.out" && fail "bigmap: the map was read"
# A map under the cap is read.
truncate -s 20 "$TMP/maps/perf-77.map"
run map --perf-map-dir "$TMP/maps" "$TMP/jit.in"
grep -q "${T}jit_first\$" "$TMP/map.out" || fail "map: $(cat "$TMP/map.out")"

exit 0

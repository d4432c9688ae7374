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
command -v python3 >/dev/null 2>&1 || skip "no python3 to patch ELF headers"

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

# 2. ELF sections claiming what the file does not hold.
cc_prog prog sym_elf.c -O0 -g -Wl,--build-id=none
# claim IN OUT SECTION OFFSET SIZE [FILESIZE]: OUT is IN with SECTION's
# header saying OFFSET and SIZE (OFFSET "-" keeps it), then made
# FILESIZE bytes long (sparse) when given.
claim() {
	python3 - "$@" <<'PY' || fail "cannot patch $4"
import struct, sys
src, out, name, off, size = sys.argv[1:6]
d = bytearray(open(src, "rb").read())
shoff, = struct.unpack_from("<Q", d, 0x28)
shentsize, shnum, shstrndx = struct.unpack_from("<HHH", d, 0x3a)
def sh(i):
    return shoff + i * shentsize
stroff, = struct.unpack_from("<Q", d, sh(shstrndx) + 0x18)
for i in range(shnum):
    nm, = struct.unpack_from("<I", d, sh(i))
    s = d[stroff + nm:d.index(0, stroff + nm)].decode()
    if s == name:
        if off != "-":
            struct.pack_into("<Q", d, sh(i) + 0x18, int(off))
        struct.pack_into("<Q", d, sh(i) + 0x20, int(size))
        break
else:
    sys.exit("no section " + name)
open(out, "wb").write(d)
if len(sys.argv) > 6:
    open(out, "r+b").truncate(int(sys.argv[6]))
PY
}

addr=$(nm "$TMP/prog" | awk '$3 == "sym_leaf" { print $1 }')
off=$(readelf -lW "$TMP/prog" | while read -r type o va _pa sz _rest; do
	[ "$type" = LOAD ] || continue
	if [ $((0x$addr)) -ge $((va)) ] && [ $((0x$addr)) -lt $((va + sz)) ]; then
		printf '%x\n' $((0x$addr - va + o))
	fi
done)
[ -n "$off" ] || fail "no segment holds sym_leaf"
stream() {
	printf 'spool\t1\t0\t1000\n'
	printf 'module\t0\t42\t0x7f0000000000\t0x7f0000100000\t0x0\t0\tuser\t%s\n' "$1"
	printf 'frame\t0\tuser\t0x%x\t0\t0x%s\n' $((0x7f0000000000 + 0x$off)) "$off"
}
stream "$TMP/prog" >"$TMP/ref.in"
run ref --no-inline "$TMP/ref.in"
grep -q "${T}sym_leaf\$" "$TMP/ref.out" || fail "ref: $(cat "$TMP/ref.out")"

M=$((1 << 20))
big=$((64 * M)) # claimed; the sparse files are twice as long
for case in "symtab .symtab - 3221225472" \
	"strtab .strtab - 3221225472" \
	"info .debug_info - 3221225472" \
	"sparse-symtab .symtab $big $big $((2 * big))" \
	"sparse-strtab .strtab $big $big $((2 * big))" \
	"sparse-info .debug_info $big $big $((2 * big))"; do
	set -- $case
	n=$1
	shift
	claim "$TMP/prog" "$TMP/$n" "$@"
	stream "$TMP/$n" >"$TMP/$n.in"
	run "$n" --no-inline "$TMP/$n.in"
	one_error sp-symbolize "$TMP/$n.err"
	grep -q "$n': section '$1' claims [0-9]* bytes the file does not hold" \
		"$TMP/$n.err" || fail "$n: $(cat "$TMP/$n.err")"
	# The other sections still name the frame: DWARF for .symtab and
	# .strtab, the symbol table for .debug_info.
	grep -q "${T}sym_leaf\$" "$TMP/$n.out" ||
		fail "$n: no name kept: $(grep symbol "$TMP/$n.out")"
done
exit 0

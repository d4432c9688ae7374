#!/bin/sh
# bench/symbolize-memory.sh: sp-symbolize's peak memory when a long
# stream keeps bringing new module files (a live pipeline on a target
# that keeps loading code), with and without the open-file bound and the
# DWARF byte bound.
#
#   B=build [OLD=path/to/old/sp-symbolize] sh bench/symbolize-memory.sh \
#       [FILE [COPIES [FRAMES]]]
#
# FILE (a shared library with DWARF; by default the pyenv libpython of
# python3) is linked under COPIES paths (40), each a module of the stream
# with FRAMES frames (40) at its first exported functions, so every path
# is a file sp-symbolize opens.  Prints the peak RSS (GNU time's %M, in
# MiB) and CPU for --max-open 1, 4, the default, unbounded (one per
# copy), and the default count with --max-dwarf 1G (the DWARF bound out
# of the way); checks that every run wrote the same output; then the
# default's RSS against issue 30's goal of 150 MB, and with OLD (another
# build, e.g. the commit before) its RSS at the default and the ratio.
# docs/bench-symbolize.md has the figures.
set -eu
cd "$(dirname "$0")/.."
B=${B:-build}
file=${1:-$(python3 -c 'import sysconfig as s; print(s.get_config_var("LIBDIR") + "/" + s.get_config_var("INSTSONAME"))')}
copies=${2:-40}
frames=${3:-40}
[ -r "$file" ] || { echo "bench/symbolize-memory.sh: no '$file'" >&2; exit 1; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# File offsets of the first FRAMES defined functions, through the load
# segment that holds each.
readelf -lW "$file" | awk '$1 == "LOAD" { print $2, $3, $6 }' |
	while read -r o v sz; do echo $((o)) $((v)) $((sz)); done >"$tmp/loads"
nm -D --defined-only "$file" | awk '$2 == "T" { print $1 }' |
	head -n "$frames" | while read -r va; do
		awk -v va=$((0x$va)) 'va >= $2 && va < $2 + $3 {
			printf "%d\n", va - $2 + $1; exit }' "$tmp/loads"
	done >"$tmp/offs"
[ -s "$tmp/offs" ] || { echo "bench/symbolize-memory.sh: no functions in '$file'" >&2; exit 1; }

ino=$(stat -c %i "$file")
{
	printf 'spool\t1\t0\t1000\n'
	i=0 id=0
	while [ $i -lt "$copies" ]; do
		ln "$file" "$tmp/lib$i.so" 2>/dev/null || cp "$file" "$tmp/lib$i.so"
		base=$((0x7f0000000000 + i * 0x10000000))
		printf 'module\t%d\t42\t0x%x\t0x%x\t0x0\t%s\tuser\t%s\n' $i \
			$base $((base + 0x10000000)) "$(stat -c %i "$tmp/lib$i.so")" \
			"$tmp/lib$i.so"
		while read -r off; do
			printf 'frame\t%d\tuser\t0x%x\t%d\t0x%x\n' $id \
				$((base + off)) $i "$off"
			id=$((id + 1))
		done <"$tmp/offs"
		i=$((i + 1))
	done
} >"$tmp/in"
: "$ino"

printf '%s: %d copies, %d frames each\n' "$file" "$copies" \
	"$(wc -l <"$tmp/offs")"
GOAL_MB=150

# measure NAME BINARY ARGS...: one run; prints its row, keeps its RSS
# in $tmp/NAME.rss and its output in $tmp/NAME.out.
measure() {
	name=$1 bin=$2
	shift 2
	/usr/bin/time -f '%M %U %S' -o "$tmp/time" "$bin" --no-cache "$@" \
		"$tmp/in" >"$tmp/$name.out"
	tail -n 1 "$tmp/time" | awk -v n="$name" -v rss="$tmp/$name.rss" \
		'{ printf "%-24s %7.1f MB %6.2f s\n", n, $1 / 1024, $2 + $3
		   printf "%.1f\n", $1 / 1024 >rss }'
}

printf '%-24s %10s %8s\n' "sp-symbolize" "peak RSS" "CPU"
measure "--max-open 1" "$B/sp-symbolize" --max-open 1
measure "--max-open 4" "$B/sp-symbolize" --max-open 4
measure "default" "$B/sp-symbolize"
measure "--max-open $copies" "$B/sp-symbolize" --max-open "$copies"
measure "--max-dwarf 1G" "$B/sp-symbolize" --max-dwarf 1G
same=yes
for f in "$tmp"/*.out; do
	cmp -s "$f" "$tmp/default.out" || same=no
done
echo "same output in every run: $same"
[ "$same" = yes ] || exit 1
now=$(cat "$tmp/default.rss")
awk -v now="$now" -v goal=$GOAL_MB 'BEGIN {
	printf "default against the goal: %.1f MB / %d MB = %.2f (%s)\n",
	    now, goal, now / goal, now <= goal ? "met" : "not met" }'
if [ -n "${OLD:-}" ]; then
	measure "default, OLD" "$OLD"
	cmp -s "$tmp/default, OLD.out" "$tmp/default.out" ||
		{ echo "OLD wrote other output" >&2; exit 1; }
	awk -v old="$(cat "$tmp/default, OLD.rss")" -v now="$now" 'BEGIN {
		printf "OLD / this build at the default: %.1f / %.1f MB = %.1fx\n",
		    old, now, old / now }'
fi

#!/bin/sh
# docs/offcpu-figure.sh B: docs/offcpu.svg, the off-CPU flame graph of
# tests/programs/rec_offcpu.c (the program t1026 checks), as the tools draw
# it (make docs-figure).  Needs what --off-cpu needs: kernel sampling.
set -e
B=${1:-build}
out=$B/docs-figure
mkdir -p "$out"
cc -O1 -g -pthread -o "$out/rec_offcpu" tests/programs/rec_offcpu.c
"$B/sp-record" -q -k --off-cpu -o "$out/offcpu.spool" -- "$out/rec_offcpu"
"$B/sp-dump" "$out/offcpu.spool" | "$B/sp-symbolize" >"$out/offcpu.records"
"$B/sp-fold" --view off-cpu --format svg \
	--title "Off-CPU time: tests/programs/rec_offcpu.c" \
	--countname nanoseconds <"$out/offcpu.records" >docs/offcpu.svg
echo "== wrote docs/offcpu.svg" >&2

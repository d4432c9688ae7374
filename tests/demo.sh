#!/bin/sh
# tests/demo.sh B: the README's first command (make demo).  Builds the
# bundled workload, records it for 3 seconds, prints the top functions and
# writes demo.svg, a flame graph to open in a browser.
set -e
B=${1:-build}
out=$B/demo
mkdir -p "$out"
cc -O2 -g -pthread -o "$out/demo" tests/programs/demo.c
echo "== recording tests/programs/demo.c for 3 s" >&2
"$B/sp-record" -F 999 -o "$out/demo.spool" -- "$out/demo" 3
echo "== top functions" >&2
"$B/sp-dump" "$out/demo.spool" | "$B/sp-symbolize" >"$out/demo.records"
"$B/sp-fold" --format top <"$out/demo.records" | head -n 15
"$B/sp-fold" <"$out/demo.records" >"$out/demo.folded"
"$B/sp-fold" --format svg --title "stackpulse demo" <"$out/demo.records" \
	>demo.svg
echo "== wrote demo.svg ($(wc -l <"$out/demo.folded") distinct stacks in $out/demo.folded)" >&2

#!/bin/sh
# docs/live-figure.sh B: docs/live.svg, a screenshot of sp-fold --live.
# Runs the README's live pipeline on tests/programs/live_spin.c in a tmux
# pane, waits for the hot function to show, captures the screen, quits
# with q and draws the captured rows as an SVG terminal (make docs-figure).
set -e
B=${1:-build}
command -v tmux >/dev/null 2>&1 ||
	{ echo "docs/live-figure.sh: tmux is missing (apt-get install tmux)" >&2; exit 1; }
out=$(cd "$B" && pwd)/docs-figure
mkdir -p "$out"
cc -O1 -g -o "$out/live_spin" tests/programs/live_spin.c
"$out/live_spin" &
spin=$!
sock=sp-live-$$
trap 'kill $spin 2>/dev/null; tmux -L $sock kill-server 2>/dev/null || :' EXIT
bin=$(cd "$B" && pwd)
tmux -L $sock -f /dev/null new-session -d -x 90 -y 20 \
	"$bin/sp-record -F 499 -p $spin 2>$out/live.err | $bin/sp-dump | $bin/sp-symbolize | $bin/sp-fold --live --window 5"
i=0
while :; do
	tmux -L $sock capture-pane -p >"$out/live.screen"
	# Wait two redraws past the first sight of the hot function.
	if grep -q live_hot_spin "$out/live.screen"; then
		sleep 2.5
		tmux -L $sock capture-pane -p >"$out/live.screen"
		break
	fi
	i=$((i + 1))
	[ $i -lt 100 ] || { echo "docs/live-figure.sh: live_hot_spin never shown" >&2; exit 1; }
	sleep 0.2
done
tmux -L $sock send-keys q
sleep 1
awk 'function esc(s) {
		gsub(/&/, "\\&amp;", s); gsub(/</, "\\&lt;", s)
		gsub(/>/, "\\&gt;", s)
		# No-break spaces keep the columns in any SVG viewer.
		gsub(/ /, "\\&#160;", s); return s
	}
	{ row[NR] = $0 }
	END {
		w = 90 * 8.4 + 20; h = NR * 17 + 20
		printf "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\">\n", w, h
		printf "<rect width=\"100%%\" height=\"100%%\" fill=\"#1e1e1e\" rx=\"6\"/>\n"
		printf "<g font-family=\"DejaVu Sans Mono,monospace\" font-size=\"14\" fill=\"#d0d0d0\">\n"
		for (i = 1; i <= NR; i++)
			printf "<text x=\"10\" y=\"%d\">%s</text>\n", 10 + i * 17 - 4, esc(row[i])
		printf "</g>\n</svg>\n"
	}' "$out/live.screen" >docs/live.svg
echo "== wrote docs/live.svg" >&2

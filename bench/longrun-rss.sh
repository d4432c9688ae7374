#!/bin/sh
# bench/longrun-rss.sh: the memory of every stage of a long system-wide
# pipeline while processes come and go (issue 24: a stage must not grow
# with the processes it has seen, only with those alive).
#
#   B=build sh bench/longrun-rss.sh [SECONDS [INTERVAL]]
#
# Runs `sp-record -a | sp-dump | sp-symbolize | sp-fold --interval` for
# SECONDS (600) while a churn loop starts a new short-lived process many
# times a second, each its own small binary copy (a new module each
# time), and prints each stage's RSS every INTERVAL seconds (60) and
# 10 s before the end, then the ratio of the last reading to the first one after warm-up (the
# second reading).  A stage that frees what a `forget` record retires
# stays near 1.
set -eu
cd "$(dirname "$0")/.."
B=${B:-build}
secs=${1:-600}
step=${2:-60}
tmp=$(mktemp -d)
churn=
trap 'kill $churn 2>/dev/null; rm -rf "$tmp"' EXIT INT TERM

# The churn: a fresh copy of a small spinning binary every 50 ms, each
# spinning ~20 ms, so the recorder sees thousands of processes and
# modules over the run.
printf 'int main(void){volatile unsigned long i=0;while(i<20000000)i++;return 0;}\n' \
	>"$tmp/spin.c"
cc -O0 -o "$tmp/spin" "$tmp/spin.c"
(
	n=0
	while :; do
		cp "$tmp/spin" "$tmp/spin.$((n % 200))"
		"$tmp/spin.$((n % 200))" &
		n=$((n + 1))
		sleep 0.05
	done
) &
churn=$!

"$B/sp-record" -a -d "$secs" -q 2>"$tmp/rec.err" | "$B/sp-dump" |
	"$B/sp-symbolize" | "$B/sp-fold" --interval 10 \
	-o "$tmp/i-%t.folded" 2>"$tmp/fold.err" &
fold=$!
sleep 2
# NAME: "RSS ANON" in kB of this pipeline's stage of that name.  ANON
# (RssAnon) is the stage's own memory; the rest of RSS is file pages it
# maps (module files the recorder unwinds with, ELF files sp-symbolize
# reads), which follow what runs on the machine.
rss() {
	p=$(pgrep -P $$ -x "$1") && awk '/^VmRSS/ { r = $2 }
		/^RssAnon/ { a = $2 } END { print r + 0, a + 0 }' \
		"/proc/$p/status" || echo 0 0
}
printf '%8s %17s %17s %17s %17s\n' seconds "sp-record" "sp-dump" \
	"sp-symbolize" "sp-fold"
printf '%8s %17s %17s %17s %17s\n' "" "rss anon" "rss anon" "rss anon" \
	"rss anon"
# Readings at fixed times from the start, so that slow readings on a
# loaded machine do not drift past the recording's end; the last one
# 10 s before sp-record stops.
t0=$(date +%s)
end=$((secs - 10))
[ $end -gt $(((secs - 1) / step * step)) ] || end=
for t in $(seq 0 "$step" $((secs - 1))) $end; do
	now=$(($(date +%s) - t0))
	[ "$now" -ge "$t" ] || sleep $((t - now))
	line=$(printf '%8d %17s %17s %17s %17s' $t "$(rss sp-record)" \
		"$(rss sp-dump)" "$(rss sp-symbolize)" "$(rss sp-fold)")
	echo "$line"
	echo "$line" >>"$tmp/rss"
done
wait $fold || echo "bench/longrun-rss.sh: the pipeline failed: $(cat "$tmp/fold.err")" >&2
kill $churn 2>/dev/null || :
tail -n 3 "$tmp/rec.err"
awk 'NR == 2 { for (i = 2; i <= 9; i++) w[i] = $i }
	END { printf "last/warm-up, RSS (anon): sp-record %.2fx (%.2fx), " \
		"sp-dump %.2fx (%.2fx), sp-symbolize %.2fx (%.2fx), " \
		"sp-fold %.2fx (%.2fx)\n", $2 / w[2], $3 / w[3], $4 / w[4],
		$5 / w[5], $6 / w[6], $7 / w[7], $8 / w[8], $9 / w[9] }' "$tmp/rss"

#!/bin/sh
# tests/stress.sh: runs tests while eight busy loops load the CPUs (a
# load of about 10 on two CPUs, as when CI shares its machine), to show
# that no test depends on an idle machine.  With no operand, the whole
# suite once; with tests named, each of them ROUNDS times (default 3).
#   B=build/san sh tests/stress.sh [tests/tNNNN-*.sh ...]
#   make check-stress [TESTS="tests/t1026-record-offcpu.sh ..."]
# LOOPS sets the number of busy loops (default 8).
cd "$(dirname "$0")/.." || exit 1
loops=${LOOPS:-8} rounds=${ROUNDS:-3}
pids=""
i=0
while [ $i -lt "$loops" ]; do
	sh -c 'while :; do :; done' &
	pids="$pids $!"
	i=$((i + 1))
done
# shellcheck disable=SC2086
trap 'kill $pids 2>/dev/null' EXIT
trap 'exit 130' INT TERM
echo "stress: $loops busy loops on $(nproc) CPUs" >&2
if [ $# -eq 0 ]; then
	sh tests/run.sh
	exit
fi
status=0 r=1
while [ $r -le "$rounds" ]; do
	echo "stress: round $r of $rounds" >&2
	sh tests/run.sh "$@" || status=1
	r=$((r + 1))
done
exit $status

#!/bin/sh
# t1043-record-python-frames.sh: a plain CPython (no -X perf) recorded by
# launch and by -p attach (the first interpreter also with --ptrace, at
# most 10% inconsistent) gets its Python stacks: pycode records name the
# script's functions and no function it lacks, and at least 90% of each
# busy thread's samples (from its first in a function of the script's,
# when the imports are done, to its last: the interpreter's shutdown has
# no Python stack) whose stack was read carry a pystack whose leaf is one
# of them.  A read is
# given up (no frames, truncated) when the leaf kept changing under it,
# which a loaded machine makes likelier (the recorder is preempted
# mid-walk): those are counted apart and may be up to a third.  Runs
# Debian's /usr/bin/python3 and each pyenv 3.8-3.13 present, and prints
# the rates of given-up and inconsistent stacks; where the BPF program
# read the stacks at their samples, at most 10% may be inconsistent
# (0-0.9% seen since a call entered or left is tied, not refused; 4.5-8.2%
# for 3.8-3.10 before) and 95% of the samples must have a script leaf
# (97.1-100% seen).
. "$(dirname "$0")/lib.sh"
need_perf
script=$PROGRAMS/py_frames.py

# pythons: "NAME PATH" for each interpreter found, once each.
pythons() {
	[ -x /usr/bin/python3 ] && echo "python3 /usr/bin/python3"
	for v in 3.8 3.9 3.10 3.11 3.12 3.13; do
		for p in "${PYENV_ROOT:-$HOME/.pyenv}"/versions/"$v".*/bin/"python$v"; do
			[ -x "$p" ] && { echo "python$v $p"; break; }
			echo "python$v: not installed, skipped" >&2
		done
	done
}

# judge NAME MODE DUMP: the checks above, on one sp-dump output.
judge() {
	# --ptrace reads while the thread is stopped, and the BPF program
	# at the sample: a chain that does not fit is a reader's fault.
	maxinc=100 minok=90
	[ "$2" = ptrace ] && maxinc=10
	if grep -q "read at the sample by BPF" "$TMP/err"; then
		maxinc=10 minok=95
	fi
	awk -F'\t' -v name="$1 $2" -v script="$script" \
	    -v maxinc="$maxinc" -v minok="$minok" '
	BEGIN {
		# Spinner: the class body, run once at start-up (a sample
		# there by launch is rare, not wrong); arm and stop: the
		# handlers that start and end the CPU budget
		split("<module> Spinner level1 level2 level3 Spinner.spin " \
		      "spin " \
		      "recurse gen_values gen_values.<locals>.<lambda> " \
		      "<lambda> café naïve_函数 busy_thread worker arm stop", f, " ")
		for (i in f) known[f[i]] = 1
	}
	$1 == "pycode" && $5 == script {
		mine[$2] = 1
		if (!($4 in known)) {
			printf "%s: pycode of a function not in the script: %s\n",
			    name, $4
			bad = 1
		}
	}
	$1 == "pycode" { named[$4] = 1; named_id[$2] = $4 }
	$1 == "pynode" { code[$2] = $4 }
	$1 == "pystack" { leaf = $2; st = $3; next }
	$1 == "sample" {
		hit = leaf != "" && leaf != "-" && mine[code[leaf]]
		# Counted from the thread'"'"'s first script function to its
		# last script leaf: before, the start-up runs the module'"'"'s
		# body and the class body, which call the imports; after,
		# the interpreter'"'"'s shutdown has no Python stack.
		if (hit && !(named_id[code[leaf]] ~ /^(<module>|Spinner)$/))
			started[$4] = 1
		if (started[$4] && leaf == "-" && st == "truncated")
			pgave[$4]++
		else if (started[$4])
			pn[$4]++
		if (hit) {
			ok[$4]++
			n[$4] += pn[$4]
			gaveup[$4] += pgave[$4]
			pn[$4] = pgave[$4] = 0
		}
		if (st == "inconsistent") incons++
		if (st != "") stacks++
		leaf = ""; st = ""
	}
	END {
		if (!named["level3"] || !named["busy_thread"]) {
			printf "%s: no pycode for level3 or busy_thread\n", name
			bad = 1
		}
		for (t in n) {
			if (n[t] < 50)
				continue
			busy++
			if (!lo || ok[t] / n[t] < lo) lo = ok[t] / n[t]
			if (ok[t] * 100 < n[t] * minok) {
				printf "%s: thread %s: %d of %d samples with a " \
				    "script leaf\n", name, t, ok[t], n[t]
				bad = 1
			}
			if (gaveup[t] * 3 > n[t] + gaveup[t]) {
				printf "%s: thread %s: %d of %d stacks given " \
				    "up\n", name, t, gaveup[t], n[t] + gaveup[t]
				bad = 1
			}
			gave += gaveup[t]
			all += n[t] + gaveup[t]
		}
		if (!busy) {
			printf "%s: no thread with 50 samples\n", name
			bad = 1
		}
		printf "# %s: %d Python stacks, %.1f%% inconsistent, " \
		    "%.1f%% given up, %.1f%% with a script leaf\n", name,
		    stacks, stacks ? 100 * incons / stacks : 0,
		    all ? 100 * gave / all : 0, 100 * lo
		if (incons * 100 > stacks * maxinc) {
			printf "%s: more than %d%% inconsistent\n", name, maxinc
			bad = 1
		}
		exit bad
	}' "$3"
}

# record NAME PATH: by launch, then by -p attach.
record() {
	"$SP_RECORD" -o "$TMP/l.spool" -- "$2" "$script" 0.4c \
		>/dev/null 2>"$TMP/err" ||
		fail "sp-record $1 exited $?: $(cat "$TMP/err")"
	"$SP_DUMP" "$TMP/l.spool" >"$TMP/l.dump" || fail "sp-dump $1 failed"
	judge "$1" launch "$TMP/l.dump" ||
		fail "$1 by launch: $(grep Python: "$TMP/err" | tr '\n' ' ')"
	if [ "$1" = "$first" ]; then
		"$SP_RECORD" --ptrace -o "$TMP/p.spool" -- "$2" "$script" 0.4c \
			>/dev/null 2>"$TMP/err" ||
			fail "sp-record --ptrace $1 exited $?: $(cat "$TMP/err")"
		"$SP_DUMP" "$TMP/p.spool" >"$TMP/p.dump" ||
			fail "sp-dump $1 failed"
		judge "$1" ptrace "$TMP/p.dump" || fail "$1 by --ptrace"
	fi

	# Its 0.6 s of CPU start once the recorder has a sample of it: a
	# loaded machine can take longer to attach than any budget.
	"$2" "$script" 0.6c usr1 >"$TMP/ready" &
	pid=$!
	i=0
	until [ -s "$TMP/ready" ] || [ $i -ge 100 ]; do
		sleep 0.1
		i=$((i + 1))
	done
	"$SP_RECORD" -p "$pid" -o "$TMP/a.spool" 2>"$TMP/err" &
	rec=$!
	wait_samples "$TMP/a.spool" "$pid" 1
	kill -USR1 "$pid"
	wait "$rec"
	rc=$?
	wait "$pid"
	rm -f "$TMP/ready"
	[ $rc -eq 0 ] || fail "sp-record -p $1 exited $rc: $(cat "$TMP/err")"
	"$SP_DUMP" "$TMP/a.spool" >"$TMP/a.dump" || fail "sp-dump $1 failed"
	judge "$1" attach "$TMP/a.dump" ||
		fail "$1 by attach: $(grep Python: "$TMP/err" | tr '\n' ' ')"
}

pythons >"$TMP/pythons"
[ -s "$TMP/pythons" ] || skip "no CPython 3.8-3.13 found"
first=$(awk '{ print $1; exit }' "$TMP/pythons")
while read -r name path; do
	record "$name" "$path"
done <"$TMP/pythons"
exit 0

#!/bin/sh
# t1073-record-python-bad-chain.sh: a CPython 3.12 (else 3.11 or 3.13)
# of 60,000 mappings (a 4 MB /proc/PID/maps) whose frame chain points at
# 0x10 (tests/programs/py_badchain.py), recorded beside a sane one
# (py_frames.py) by -f from a shell, at 250 Hz.  Every sample of the
# broken one used to read its maps again (40+ ms under ASan), and the
# rings overflowed: 1,500-2,200 events lost in 2-3 s, most of its samples
# gone.  Now its maps are read again at most a few times
# (python_maps_rereads <= 8), it is given up
# (python_gave_up_processes >= 1: its samples carry an empty truncated
# pystack, unread), at most a tenth of the events are lost, it keeps at
# least 200 samples (2 s of its CPU: 500), most of them given up, and
# the sane process's samples keep their stacks: at least 80% of those
# after its first one in the script have a leaf in the script.
. "$(dirname "$0")/lib.sh"
need_perf

py=
for v in 3.12 3.11 3.13; do
	for p in "${PYENV_ROOT:-$HOME/.pyenv}"/versions/"$v".*/bin/"python$v"; do
		[ -x "$p" ] && { py=$p; break 2; }
	done
done
[ -n "$py" ] || skip "no pyenv CPython 3.11-3.13"
[ "$(cat /proc/sys/vm/max_map_count)" -ge 65530 ] ||
	skip "vm.max_map_count below 65530"

# shellcheck disable=SC2016 # expanded by the shell sp-record runs
"$SP_RECORD" -F 250 -f -o "$TMP/s.spool" -- sh -c \
	'"$1" "$2" 2 60000 2>"$4" & "$1" "$3" 1.5c >/dev/null; wait' sh \
	"$py" "$PROGRAMS/py_badchain.py" "$PROGRAMS/py_frames.py" \
	"$TMP/bad.err" 2>"$TMP/err" ||
	fail "sp-record exited $?: $(cat "$TMP/err")"
grep -q '^mprotect:' "$TMP/bad.err" &&
	skip "py_badchain.py: $(cat "$TMP/bad.err")"
read -r _ bad _ maps <"$TMP/bad.err" ||
	fail "py_badchain.py said nothing: $(cat "$TMP/err")"
[ "$maps" -ge 60000 ] || fail "py_badchain.py made only $maps mappings"
"$SP_DUMP" "$TMP/s.spool" >"$TMP/dump" || fail "sp-dump failed"

# stat NAME: a counter of the stats record, empty when absent.
stat() {
	grep '^stats' "$TMP/dump" | tr '\t' '\n' |
		awk -F= -v k="$1" '$1 == k { print $2 }'
}
rereads=$(stat python_maps_rereads)
gaveup=$(stat python_gave_up_processes)
lost=$(stat lost) samples=$(stat samples)

# "BAD GIVEN_UP SANE SANE_OK": samples of the broken process and of
# them those given up (empty truncated pystack); samples of the others
# from their first with a leaf in py_frames.py, and of them those.
awk -F'\t' -v bad="$bad" -v script="$PROGRAMS/py_frames.py" '
$1 == "pycode" { file[$2] = $5 }
$1 == "pynode" { code[$2] = $4 }
$1 == "pystack" { leaf = $2; st = $3; next }
$1 == "sample" {
	if ($3 == bad) {
		nbad++
		given += leaf == "-" && st == "truncated"
	} else {
		hit = leaf != "" && leaf != "-" && file[code[leaf]] == script
		started[$3] += hit
		if (started[$3]) {
			sane++
			ok += hit
		}
	}
	leaf = st = ""
}
END { print nbad + 0, given + 0, sane + 0, ok + 0 }' "$TMP/dump" >"$TMP/out"
read -r nbad given sane ok <"$TMP/out"
echo "# $(basename "$py"): $samples samples, $lost lost; broken process:" \
	"$nbad samples, $given given up, ${rereads:-no} maps rereads;" \
	"sane: $ok of $sane with a script leaf" >&2

[ -n "$rereads" ] || fail "no python_maps_rereads counter"
[ "$rereads" -le 8 ] || fail "maps read again $rereads times"
[ "${gaveup:-0}" -ge 1 ] || fail "the broken process was not given up"
[ $((lost * 10)) -le "$samples" ] || fail "$lost events lost, $samples samples"
[ "$nbad" -ge 200 ] || fail "only $nbad samples of the broken process"
[ $((given * 2)) -ge "$nbad" ] ||
	fail "only $given of $nbad samples of the broken process given up"
[ "$sane" -ge 100 ] || fail "only $sane samples of the sane process"
[ $((ok * 10)) -ge $((sane * 8)) ] ||
	fail "sane process: $ok of $sane samples with a script leaf"
exit 0

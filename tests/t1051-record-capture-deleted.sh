#!/bin/sh
# Issue 29: a binary deleted while it runs under sp-record, and one
# replaced at the same path by a different build (another program), are
# named from the copies sp-record kept by build id, the replacement
# (reachable at its path, so not kept) named from its path and never
# used for the old program's samples.  Both as root and without
# CAP_SYS_ADMIN (no /proc/PID/map_files: the copy comes from the file
# the recorder held, or /proc/PID/exe).
. "$(dirname "$0")/lib.sh"
need_perf
cc_prog rec_chain rec_chain.c -O0 -g -fno-omit-frame-pointer -pthread
# The same program under a build id of its own, for bin/del.
cc_prog del_chain rec_chain.c -O0 -g -fno-omit-frame-pointer -pthread \
	-Wl,--build-id=0x5e1f0c0ffee05e1f0c0ffee05e1f0c0ffee05e1f
cc_prog rec_cpuspin rec_cpuspin.c -O0 -g -fno-omit-frame-pointer
id_of() {
	readelf -n "$1" | awk '/Build ID:/ { print $3 }'
}
rel_of() {
	echo ".build-id/$(id_of "$1" | cut -c1-2)/$(id_of "$1" | cut -c3-)"
}
[ -n "$(id_of "$TMP/rec_chain")" ] || skip "the compiler gives no build ids"
mkdir "$TMP/bin"

# run NAME [WRAPPER...]: records, with XDG_CACHE_HOME=$TMP/NAME, a shell
# that runs bin/del (del_chain) and deletes it once it runs, then runs
# bin/prog (rec_chain), replaces it with rec_cpuspin while it runs and
# runs the new one; checks the names and what was kept.
run() {
	_n=$1
	shift
	cp "$TMP/del_chain" "$TMP/bin/del" && cp "$TMP/rec_chain" "$TMP/bin/prog" ||
		fail "cp"
	env XDG_CACHE_HOME="$TMP/$_n" "$@" "$SP_RECORD" -q -f \
		-o "$TMP/$_n.spool" -- sh -c '
		started() {	# PID PATH: PID runs PATH
			while ! grep -q "$2" "/proc/$1/maps" 2>/dev/null; do
				kill -0 "$1" 2>/dev/null || return
				sleep 0.01
			done
		}
		"$1/del" 0.3c & p=$!
		started $p "$1/del"; rm "$1/del"; wait $p
		"$1/prog" 0.3c & p=$!
		started $p "$1/prog"
		cp "$2" "$1/prog.new" && mv "$1/prog.new" "$1/prog"; wait $p
		"$1/prog" 0.3' sh "$TMP/bin" "$TMP/rec_cpuspin" \
		>/dev/null 2>"$TMP/$_n.err"
	[ $? -eq 0 ] || fail "$_n: sp-record: $(cat "$TMP/$_n.err")"
	XDG_CACHE_HOME=$TMP/$_n
	pipeline "$SP_DUMP" "$TMP/$_n.spool" \| "$SP_SYMBOLIZE" \| \
		"$SP_FOLD" >"$TMP/$_n.folded" 2>"$TMP/$_n.ferr" ||
		fail "$_n: pipeline: $(cat "$TMP/$_n.ferr")"
	for p in del prog; do
		grep -q "^$p;.*;main;run;chain_a;chain_b;chain_c;spin " \
			"$TMP/$_n.folded" ||
			fail "$_n: $p not named: $(sort -k2n "$TMP/$_n.folded" | tail -4)"
	done
	grep -q '^prog;.*;main;spin ' "$TMP/$_n.folded" ||
		fail "$_n: the replacement not named: $(cat "$TMP/$_n.folded")"
	# rec_chain's frames never named from the replacement.  A stack cut
	# short (the machine's load can cost one) keeps the old names below
	# the cut: that says nothing of mixing.
	grep '^prog;.*chain_' "$TMP/$_n.folded" |
		grep -v ';main;run;chain_a[; ]' |
		grep -Ev '^prog;<stack truncated>;(run;)?chain_a(;chain_[bc])*(;spin)? ' &&
		fail "$_n: mixed stacks"
	_tree=$TMP/$_n/stackpulse
	for p in del_chain rec_chain; do
		cmp "$TMP/$p" "$_tree/$(rel_of "$TMP/$p")" ||
			fail "$_n: $p not kept: $(cat "$TMP/$_n.err")"
	done
	[ -e "$_tree/$(rel_of "$TMP/rec_cpuspin")" ] &&
		fail "$_n: the replacement, on disk, was kept too"
	grep -q "^sp-record: kept [0-9]* module files\{0,1\}, [0-9]* bytes" \
		"$TMP/$_n.err" || fail "$_n: no summary line: $(cat "$TMP/$_n.err")"
	return 0
}
run root
if [ "$(id -u)" = 0 ] && command -v setpriv >/dev/null &&
	setpriv --inh-caps=-sys_admin,-checkpoint_restore \
		--bounding-set=-sys_admin,-checkpoint_restore true 2>/dev/null
then
	run nocap setpriv --inh-caps=-sys_admin,-checkpoint_restore \
		--bounding-set=-sys_admin,-checkpoint_restore
fi
exit 0

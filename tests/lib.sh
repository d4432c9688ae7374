# tests/lib.sh: sourced by every end-to-end test (tNNNN-*.sh).
# Gives the tool paths, a fresh $TMP, and helpers to build programs,
# skip and fail.  A binary can be overridden: SP_DUMP=/path/sp-dump.
set -u
TOP=$(cd "$(dirname "$0")/.." && pwd)
B=${B:-build/san}
case $B in /*) ;; *) B=$TOP/$B ;; esac
SP_DUMP=${SP_DUMP:-$B/sp-dump}
SP_RECORD=${SP_RECORD:-$B/sp-record}
SP_SYMBOLIZE=${SP_SYMBOLIZE:-$B/sp-symbolize}
SP_FOLD=${SP_FOLD:-$B/sp-fold}
SP_PROFILE=${SP_PROFILE:-$B/sp-profile}
SP_ARCHIVE=${SP_ARCHIVE:-$B/sp-archive}
PROGRAMS=$TOP/tests/programs
TMP=$(mktemp -d "${TMPDIR:-/tmp}/sp-test.XXXXXX")
trap 'rm -rf "$TMP"' EXIT
# The symbol cache, and the module files sp-record keeps beside it, in
# the test's own directory: a test never reads or fills the user's.
export XDG_CACHE_HOME="$TMP/xdg"
# Sanitizer reports exit 86/87, so a crash is never taken for exit 1.
# Leak checks cost ~45 ms of CPU at every process exit here, a fifth to
# a third of the suite: t0003 runs each tool's main paths with them, the
# unit tests and fuzzers have them, and SP_LEAKS=1 turns them on in all.
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=${SP_LEAKS:-0}:exitcode=86}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1:exitcode=87}

# python3 is the interpreter itself: a pyenv shim first on PATH costs
# about 0.6 s of CPU a call (a bash script running pyenv), and the tests
# call python3 some 200 times.
for _d in $(echo "$PATH" | tr ':' ' '); do
	case $_d in */shims) continue ;; esac
	if [ -x "$_d/python3" ]; then
		mkdir "$TMP/.bin" && ln -s "$_d/python3" "$TMP/.bin/python3" &&
			PATH=$TMP/.bin:$PATH
		break
	fi
done

fail() {
	echo "FAIL: $*" >&2
	exit 1
}

skip() {
	echo "SKIP: $*" >&2
	exit 77
}

# cc_prog NAME SRC [CFLAGS...]: builds tests/programs/SRC into $TMP/NAME.
cc_prog() {
	_name=$1 _src=$2
	shift 2
	${CC:-cc} -o "$TMP/$_name" "$PROGRAMS/$_src" "$@" ||
		fail "cannot build $_src"
}

# have_perf: whether perf_event_open works here; when not, $perf_why says
# why.
have_perf() {
	perf_why=""
	if [ ! -e /proc/sys/kernel/perf_event_paranoid ]; then
		perf_why="no perf_event_open support in this kernel"
	elif ! command -v python3 >/dev/null 2>&1; then
		:	# no prober: assume it works and let the test say
	elif ! python3 - <<'PY' 2>/dev/null; then
import ctypes, struct, os
attr = bytearray(128)
struct.pack_into("IIQQQ", attr, 0, 1, 128, 0, 1000, 0)  # cpu-clock
flags = (1 << 0) | (1 << 5) | (1 << 6)  # disabled, exclude_kernel, _hv
struct.pack_into("Q", attr, 40, flags)
libc = ctypes.CDLL(None, use_errno=True)
buf = ctypes.create_string_buffer(bytes(attr))
fd = libc.syscall(298, buf, 0, -1, -1, 0)
raise SystemExit(0 if fd >= 0 else 1)
PY
		perf_why="perf_event_open refused (perf_event_paranoid=$(cat /proc/sys/kernel/perf_event_paranoid))"
	fi
	[ -z "$perf_why" ]
}

# need_perf: perf_event_open must work; under CI=true its absence fails,
# elsewhere the test is skipped.
need_perf() {
	have_perf && return 0
	if [ "${CI:-}" = true ]; then
		fail "$perf_why (CI=true: tests that need perf_event_open must run)"
	fi
	skip "$perf_why"
}

# field N: prints field N of tab-separated stdin lines.
field() {
	awk -F'\t' -v n="$1" '{ print $n }'
}

# one_error TOOL FILE: stderr FILE must be exactly one line "TOOL: ...".
one_error() {
	[ "$(wc -l <"$2")" -eq 1 ] || fail "expected one error line, got: $(cat "$2")"
	grep -q "^$1: " "$2" || fail "error does not start with '$1: ': $(cat "$2")"
}

# file_offset ELF HEXVADDR: the file offset of a virtual address (hex,
# without 0x) of ELF, from its LOAD segments; nothing when none holds it.
file_offset() {
	readelf -lW "$1" | while read -r type off va _pa sz _rest; do
		[ "$type" = LOAD ] || continue
		if [ $((0x$2)) -ge $((va)) ] && [ $((0x$2)) -lt $((va + sz)) ]
		then
			echo $((0x$2 - va + off))
		fi
	done
}

# vdso_copy FILE: writes this process's vdso image (AT_SYSINFO_EHDR, as
# long as its [vdso] mapping) to FILE.
vdso_copy() {
	python3 - "$1" <<'PY'
import ctypes, sys
libc = ctypes.CDLL(None)
libc.getauxval.restype = ctypes.c_ulong
base = libc.getauxval(33)  # AT_SYSINFO_EHDR
maps = open("/proc/self/maps").read().splitlines()
size = next(int(l.split()[0].split("-")[1], 16) - base for l in maps
            if l.endswith("[vdso]") and int(l.split("-")[0], 16) == base)
open(sys.argv[1], "wb").write(ctypes.string_at(base, size))
PY
}

# nm: binutils' nm first loads every linker plugin it finds, and where
# clang is installed that includes LLVM's gold plugin: 90 ms of CPU a
# run, about 19 CPU-seconds of make check.  Naming the ELF target skips
# the plugins (5 ms a run).
if [ "$(uname -m)" = x86_64 ]; then
	nm() { command nm --target=elf64-x86-64 "$@"; }
fi

# unw_syms FILE...: the functions of each ELF file, for unw_judge.awk:
# path, its code segment's vaddr - offset, address, size, name.
unw_syms() {
	for f in "$@"; do
		delta=$(readelf -lW "$f" | awk '$1 == "LOAD" && / E / {
			printf "%x\n", strtonum_(substr($3, 3)) - strtonum_(substr($2, 3)) }
			function strtonum_(s,  i, v) { v = 0
				for (i = 1; i <= length(s); i++)
					v = v * 16 + index("0123456789abcdef", substr(s, i, 1)) - 1
				return v }' | head -n 1)
		nm -S --defined-only "$f" | awk -v p="$f" -v d="$delta" \
			'NF == 4 && ($3 == "t" || $3 == "T") {
				printf "%s\t%s\t%s\t%s\t%s\n", p, d, $1, $2, $4 }'
	done
}

# samples_of SPOOL PID [AFTER_TS]: samples of PID so far (after AFTER_TS)
# in SPOOL, which a recorder may still be writing.
samples_of() {
	"$SP_DUMP" "$1" 2>/dev/null | awk -F'\t' -v p="$2" -v t="${3:-0}" '
		$1 == "sample" && $3 == p && $2 > t { n++ } END { print n + 0 }'
}

# stats_counter DUMP KEY: the value of counter KEY in the stats record of
# sp-dump's output DUMP, 0 when it has none.
stats_counter() {
	grep '^stats' "$1" | tr '\t' '\n' |
		awk -F= -v k="$2" '$1 == k { v = $2 } END { print v + 0 }'
}

# wait_for_file FILE: waits (up to 120 s, for a loaded machine) until FILE
# exists; returns 1 if it never does.
wait_for_file() {
	_i=0
	while [ ! -e "$1" ]; do
		_i=$((_i + 1))
		[ $_i -lt 1200 ] || return 1
		sleep 0.1
	done
}

# wait_samples SPOOL PID N [AFTER_TS]: waits (up to 300 s) for N samples.
wait_samples() {
	_i=0
	while [ "$(samples_of "$1" "$2" "${4:-0}")" -lt "$3" ]; do
		_i=$((_i + 1))
		[ $_i -lt 1500 ] || fail "no $3 samples of $2 in $1"
		sleep 0.2
	done
}

# pipeline CMD ARGS \| CMD ARGS ...: runs the stages as one pipeline (the
# caller's redirections apply to its ends) and fails, naming the stage,
# when any stage exits non-zero: sh has no pipefail, and a sanitizer
# abort in sp-dump must not hide behind a downstream stage's success.
pipeline() {
	_pl_rc=$(mktemp "$TMP/pipeline.XXXXXX")
	_pl_cmd="" _pl_stage="" _pl_n=1
	for _pl_a in "$@"; do
		if [ "$_pl_a" = "|" ]; then
			[ -n "$_pl_stage" ] || fail "pipeline: an empty stage in: $*"
			_pl_cmd="$_pl_cmd{ $_pl_stage; echo \"$_pl_n \$?\" >>\"\$_pl_rc\"; } | "
			_pl_n=$((_pl_n + 1)) _pl_stage=""
			continue
		fi
		# Single-quote the argument; the dot keeps trailing newlines.
		_pl_q=$(printf '%s.' "$_pl_a" | sed "s/'/'\\\\''/g")
		_pl_stage="$_pl_stage '${_pl_q%.}'"
	done
	# A trailing \| at a line's end ends the command, not the line.
	[ -n "$_pl_stage" ] || fail "pipeline: an empty last stage in: $*"
	eval "$_pl_cmd{ $_pl_stage; echo \"$_pl_n \$?\" >>\"\$_pl_rc\"; }"
	_pl_bad=$(awk '$2 != 0 { printf " stage %d exited %d;", $1, $2 }' \
		"$_pl_rc")
	rm -f "$_pl_rc"
	[ -z "$_pl_bad" ] && return 0
	echo "pipeline:$_pl_bad in: $*" >&2
	return 1
}

# rooted FOLDED ROOTS WHAT MIN PCT: folded stacks whose first frame after
# the comm matches the awk regex ROOTS and that hold no truncated marker
# must be PCT% of at least MIN samples (fewer samples is a fault of its
# own, said as such, not as a low share).
rooted() {
	awk -v r="^($2)\$" '{ n = $NF; t += n; s = $0; sub(/ [0-9]+$/, "", s)
		split(s, f, ";")
		if (f[2] ~ r && s !~ /<stack truncated>/) ok += n }
		END { printf "%d %d\n", ok, t }' "$1" >"$1.n"
	read -r _ok _total <"$1.n"
	echo "$3: $_ok of $_total samples reach the root" >&2
	[ "$_total" -ge "$4" ] || fail "$3: only $_total samples, want $4"
	[ $((_ok * 100)) -ge $((_total * $5)) ] ||
		fail "$3: $_ok of $_total stacks reach the root, fewer than $5%"
}

# full_disk DIR: mounts a 64 KiB tmpfs on DIR (made here) for the tests of
# a disk that fills, unmounted at exit; skips where mounting needs root.
full_disk() {
	mkdir "$1" || fail "mkdir $1"
	mount -t tmpfs -o size=64k sp-test "$1" 2>/dev/null ||
		skip "cannot mount a small tmpfs (needs root): no full disk to test"
	# (DIR expanded now: at exit $1 is the script's, not ours)
	trap "umount '$1'; rm -rf '$TMP'" EXIT
}

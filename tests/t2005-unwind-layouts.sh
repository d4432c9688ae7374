#!/bin/sh
# t2005-unwind-layouts.sh: sp-record -g dwarf on unw_chains linked every
# way a linker lays out an ELF file (issue 9): LLD (whose code segment
# starts on the page that ends the read-only one, one page further on in
# virtual addresses), gold, GNU ld with and without -z separate-code, with
# 2 MiB pages, non-PIE, static, static-pie, and the shared library linked
# at a non-zero address (as prelink leaves it).  On each, at least 99% of
# the samples must hold their thread's chain from main or the thread
# start, without a truncated marker.  A layout whose linker or library
# is missing fails the test under CI=true; elsewhere the other layouts
# run and the test ends skipped, naming what it could not run.
. "$(dirname "$0")/lib.sh"
need_perf

# missing WHAT: a layout cannot be built here (see above).
not_run=""
missing() {
	[ "${CI:-}" = true ] && fail "$1 (CI=true: every layout must run)"
	echo "not run: $1" >&2
	not_run="$not_run${not_run:+; }$1"
}

# The functions unw_judge.awk follows: in a static link, libc's own
# (start_thread, raise) must stay anonymous as they are in a dynamic one.
CHAIN_FUNCS='^(_start|main|sig_loop|on_signal|handler_work|sig_spin|qsort_thread|run_qsort|cmp_ints|cmp_key|deep_thread|recurse|leaf_work|shlib_thread|lib_work|lib_inner|shlib_cb)$'

# judge NAME [LIB]: records $TMP/NAME and checks its chains.
judge() {
	_bin=$TMP/$1
	shift
	unw_syms "$_bin" "$@" | awk -F'\t' -v re="$CHAIN_FUNCS" '$5 ~ re' \
		>"$TMP/syms"
	"$SP_RECORD" -g dwarf -o "$TMP/out.spool" -- "$_bin" 0.15c \
		2>"$TMP/err" || fail "sp-record ($layout) exited $?: $(cat "$TMP/err")"
	"$SP_DUMP" "$TMP/out.spool" >"$TMP/dump" || fail "sp-dump exited $?"
	echo "-- $layout"
	awk -f "$PROGRAMS/unw_judge.awk" "$TMP/syms" "$TMP/dump" ||
		fail "$layout: too few samples unwound through their chain"
}

# shared 'LIBFLAGS' EXEFLAGS...: unw_chains against libunw_lib.so.
shared() {
	_libflags=$1
	shift
	# shellcheck disable=SC2086 # a list of flags
	${CC:-cc} -O2 -g -fPIC -shared -o "$TMP/libunw_lib.so" \
		"$PROGRAMS/unw_lib.c" $_libflags ||
		fail "cannot build unw_lib.c ($layout)"
	cc_prog unw_chains unw_chains.c -O2 -g -pthread -L"$TMP" -lunw_lib \
		-Wl,-rpath,"$TMP" "$@"
	judge unw_chains "$TMP/libunw_lib.so"
}

# alone LDFLAGS...: unw_chains with unw_lib.c linked in.
alone() {
	cc_prog unw_alone unw_chains.c "$PROGRAMS/unw_lib.c" -O2 -g -pthread "$@"
	judge unw_alone
}

have_ld() {
	${CC:-cc} -fuse-ld="$1" -o "$TMP/ldprobe" -x c - <<-'C' 2>/dev/null
	int main(void) { return 0; }
	C
}

if have_ld lld; then
	layout="lld PIE" shared -fuse-ld=lld -fuse-ld=lld
	layout="lld non-PIE" shared -fuse-ld=lld -fuse-ld=lld -no-pie
else
	missing "ld.lld is missing (install lld)"
fi
if have_ld gold; then
	layout="gold" shared -fuse-ld=gold -fuse-ld=gold
else
	missing "ld.gold is missing (install binutils' gold)"
fi
layout="bfd -z noseparate-code" shared -Wl,-z,noseparate-code \
	-Wl,-z,noseparate-code
layout="bfd -z separate-code, 2 MiB pages" \
	shared "-Wl,-z,separate-code -Wl,-z,max-page-size=0x200000" \
	-Wl,-z,separate-code -Wl,-z,max-page-size=0x200000
layout="bfd non-PIE" shared "" -no-pie
# The library at a fixed, non-zero address in its own headers.
${CC:-cc} -O2 -g -fPIC -shared -o "$TMP/libunw_lib.so" "$PROGRAMS/unw_lib.c" \
	-Wl,-Ttext-segment=0x10000000 || fail "cannot build unw_lib.c at 0x10000000"
cc_prog unw_chains unw_chains.c -O2 -g -pthread -L"$TMP" -lunw_lib \
	-Wl,-rpath,"$TMP"
layout="library at 0x10000000" judge unw_chains "$TMP/libunw_lib.so"
if ${CC:-cc} -static -o "$TMP/ldprobe" -x c - 2>/dev/null <<-'C'
	int main(void) { return 0; }
	C
then
	layout="static" alone -static
	layout="static-pie" alone -static-pie
else
	missing "no static libc (install libc6-dev)"
fi
[ -z "$not_run" ] || skip "the other layouts passed; not run: $not_run"
exit 0

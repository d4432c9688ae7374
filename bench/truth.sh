#!/bin/sh
# bench/truth.sh: stackpulse next to `perf record --call-graph dwarf` on
# real programs of the kinds users profile: a C program linked by GNU ld
# and by LLD, a Rust program (rustc -O -g), python3.12 -X perf, a C++
# compile (g++, so cc1plus) and a `make -j2` of a C project with -f.
# Each is recorded by both tools at 999 Hz, folded (perf's through
# `perf script | sp-fold --from perf-script`, kernel frames dropped since
# sp-record runs without -k), and compared by bench/truth.awk:
# completeness, unresolved share, and the largest difference in self and
# total share among perf's top 15 functions.
#   sh bench/truth.sh [SECONDS]      (optimized build in $B)
# RUST_CRATE=DIR adds rustc building a crate without dependencies from
# its sources in DIR (say regex-syntax from a checkout of rust-lang/regex),
# with its default features, -C opt-level=2: issue 28's deep stacks.
# perf script then takes half an hour or more (its addr2line on
# libLLVM and librustc_driver, for inlined frames).
set -e
secs=${1:-2}
B=${B:-build}
top=$(pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
command -v perf >/dev/null || { echo "no perf tool" >&2; exit 77; }
P=tests/programs

# compare NAME CMD...: records CMD with both tools and compares.
compare() {
	name=$1
	shift
	"$B/sp-record" -f -F 999 -g dwarf -o "$tmp/x.spool" -- "$@" \
		>/dev/null 2>"$tmp/sp.err" || true
	"$B/sp-dump" "$tmp/x.spool" | "$B/sp-symbolize" | "$B/sp-fold" \
		>"$tmp/sp.folded"
	perf record -q -F 999 -e cpu-clock --call-graph dwarf \
		-o "$tmp/x.data" -- "$@" >/dev/null 2>"$tmp/perf.err" || true
	perf script -i "$tmp/x.data" 2>/dev/null |
		grep -v '(\[kernel\.kallsyms\])$' |
		"$B/sp-fold" --from perf-script --weight samples >"$tmp/perf.folded"
	awk -f bench/truth.awk -v name="$name" "$tmp/perf.folded" \
		"$tmp/sp.folded"
}

cc -O2 -g -fPIC -shared -o "$tmp/libunw_lib.so" "$P/unw_lib.c"
cc -O2 -g -pthread -o "$tmp/chains_bfd" "$P/unw_chains.c" -L"$tmp" \
	-lunw_lib -Wl,-rpath,"$tmp"
compare "C, GNU ld" "$tmp/chains_bfd" "$secs"
if cc -fuse-ld=lld -O2 -g -pthread -o "$tmp/chains_lld" "$P/unw_chains.c" \
	-L"$tmp" -lunw_lib -Wl,-rpath,"$tmp" 2>/dev/null; then
	compare "C, lld" "$tmp/chains_lld" "$secs"
fi
if command -v rustc >/dev/null; then
	rustc -O -g -o "$tmp/rs_work" "$P/rs_work.rs"
	compare "Rust, rustc -O -g" "$tmp/rs_work" "$secs"
fi
# The interpreter itself: a pyenv shim is a shell script.
py=$(python3.12 -c 'import sys; print(sys.executable)' 2>/dev/null ||
	ls "${PYENV_ROOT:-$HOME/.pyenv}"/versions/3.12*/bin/python3.12 \
		2>/dev/null | head -n 1 || true)
if [ -n "$py" ]; then
	compare "python3.12 -X perf" "$py" -X perf "$P/py_work.py" "$secs"
fi
# A C++ translation unit that keeps cc1plus busy for a second or two.
cat >"$tmp/heavy.cc" <<'CC'
#include <algorithm>
#include <map>
#include <regex>
#include <string>
#include <vector>
std::map<std::string, std::vector<int>> index_words(const std::string &s)
{
	std::map<std::string, std::vector<int>> m;
	std::regex w("[a-z]+");
	int i = 0;
	for (std::sregex_iterator it(s.begin(), s.end(), w), end; it != end; ++it)
		m[it->str()].push_back(i++);
	for (auto &kv : m)
		std::sort(kv.second.begin(), kv.second.end());
	return m;
}
CC
compare "C++ compile (g++ -O2)" g++ -O2 -g -c -o "$tmp/heavy.o" "$tmp/heavy.cc"
if [ -n "${RUST_CRATE:-}" ] && command -v rustc >/dev/null; then
	# The crate's name, then --cfg feature="F" for its default features
	# and those they enable, one per line.
	python3 - "$RUST_CRATE/Cargo.toml" >"$tmp/crate" <<'PY'
import sys, tomllib
t = tomllib.load(open(sys.argv[1], "rb"))
feats, todo = set(), ["default"]
while todo:
    for f in t.get("features", {}).get(todo.pop(), []):
        if ":" not in f and "/" not in f and f not in feats:
            feats.add(f)
            todo.append(f)
print(t["package"]["name"].replace("-", "_"))
for f in sorted(feats):
    print('feature="%s"' % f)
PY
	name=$(head -n 1 "$tmp/crate")
	set --
	for f in $(tail -n +2 "$tmp/crate"); do set -- "$@" --cfg "$f"; done
	compare "rustc, a crate (-C opt-level=2)" rustc --edition 2021 \
		--crate-type lib --crate-name "$name" "$@" -C opt-level=2 \
		-o "$tmp/lib$name.rlib" "$RUST_CRATE/src/lib.rs"
fi
sh bench/gen-project.sh "$tmp/proj" 20
compare "make -j2 (-f)" sh -c "make -s -C '$tmp/proj' clean 2>/dev/null; rm -f '$tmp/proj'/*.o '$tmp/proj/prog'; make -s -j2 -C '$tmp/proj'"

#!/bin/sh
# t2007-unwind-rust.sh: a Rust program, linked by rustc's default linker
# (rust-lld, which lays the code segment out as LLD does), built with
# plain `rustc -O -g` and with `cargo build --release`: at least 99% of
# the samples must reach _start or the thread start (__clone3) without a
# truncated marker.
. "$(dirname "$0")/lib.sh"
need_perf
if ! command -v rustc >/dev/null || ! command -v cargo >/dev/null; then
	[ "${CI:-}" = true ] && fail "rustc and cargo are missing"
	skip "rustc or cargo is missing"
fi

# judge NAME BINARY: records BINARY, checks where its stacks start.
judge() {
	"$SP_RECORD" -g dwarf -d 5 -o "$TMP/rs.spool" -- "$2" 1 \
		>/dev/null 2>"$TMP/err" ||
		fail "sp-record $1 exited $?: $(cat "$TMP/err")"
	"$SP_DUMP" "$TMP/rs.spool" | "$SP_SYMBOLIZE" | "$SP_FOLD" \
		>"$TMP/folded" || fail "pipeline failed on $1"
	awk -v what="$1" '{ n = $NF; t += n; s = $0; sub(/ [0-9]+$/, "", s)
		split(s, f, ";")
		if (f[2] ~ /^(_start|__clone3)$/ && s !~ /<stack truncated>/)
			ok += n }
		END { printf "%s: %d of %d samples reach the root\n", what, ok, t
		      exit t < 500 || ok < t * 0.99 }' "$TMP/folded" ||
		fail "$1: fewer than 99% of the stacks reach the root"
}

rustc -O -g -o "$TMP/rs_work" "$PROGRAMS/rs_work.rs" 2>"$TMP/err" ||
	fail "rustc failed: $(cat "$TMP/err")"
judge "rustc -O -g" "$TMP/rs_work"

mkdir -p "$TMP/crate/src"
cp "$PROGRAMS/rs_work.rs" "$TMP/crate/src/main.rs"
cat >"$TMP/crate/Cargo.toml" <<-'TOML'
	[package]
	name = "rs_work"
	version = "0.1.0"
	edition = "2021"
	TOML
CARGO_TARGET_DIR="$TMP/target" cargo build -q --release --offline \
	--manifest-path "$TMP/crate/Cargo.toml" 2>"$TMP/err" ||
	fail "cargo build failed: $(cat "$TMP/err")"
judge "cargo build --release" "$TMP/target/release/rs_work"
exit 0

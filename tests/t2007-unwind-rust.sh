#!/bin/sh
# t2007-unwind-rust.sh: a Rust program, linked by rustc's default linker
# (rust-lld, which lays the code segment out as LLD does), built with
# plain `rustc -O -g` and with `cargo build --release`: at least 99% of
# the samples must reach _start or the thread start (clone3, which perf
# calls __clone3) without a truncated marker.  Each thread runs for 1 s
# of its own CPU time, so the
# sample count does not depend on how loaded the machine is.
. "$(dirname "$0")/lib.sh"
need_perf
if ! command -v rustc >/dev/null || ! command -v cargo >/dev/null; then
	[ "${CI:-}" = true ] && fail "rustc and cargo are missing"
	skip "rustc or cargo is missing"
fi

# judge NAME BINARY: records BINARY, checks where its stacks start.
judge() {
	"$SP_RECORD" -g dwarf -o "$TMP/rs.spool" -- "$2" 0.6c \
		>/dev/null 2>"$TMP/err" ||
		fail "sp-record $1 exited $?: $(cat "$TMP/err")"
	pipeline "$SP_DUMP" "$TMP/rs.spool" \| "$SP_SYMBOLIZE" \| "$SP_FOLD" \
		>"$TMP/folded" || fail "pipeline failed on $1"
	# 1.2 s of CPU at 999 Hz: far fewer samples is a recorder fault.
	rooted "$TMP/folded" '_start|clone3|__clone3' "$1" 600 99
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

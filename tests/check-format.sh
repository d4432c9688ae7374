#!/bin/sh
# tests/check-format.sh: fails when a C file of the project differs from
# what clang-format makes of it with the top-level .clang-format, and
# names each such file.  `clang-format -i FILE` fixes one.  One
# clang-format process checks every file (one per file cost 18 s).
#   sh tests/check-format.sh
# Exit status: 0 all formatted, 1 a file differs, 77 no clang-format.
cd "$(dirname "$0")/.." || exit 1
cf=${CLANG_FORMAT:-clang-format}
command -v "$cf" >/dev/null || { echo "SKIP: no $cf"; exit 77; }
files=$(ls common/*.[ch] sp-*/*.[ch] sp-*/*/*.[ch] tests/unit/*.c tests/fuzz/*.c \
	tests/programs/*.c 2>/dev/null)
# shellcheck disable=SC2086
out=$("$cf" --dry-run -Werror $files 2>&1) && exit 0
bad=$(printf '%s\n' "$out" | sed -n 's/^\([^:]*\):[0-9]*:[0-9]*: error: .*/\1/p' |
	sort -u)
[ -n "$bad" ] || { printf '%s\n' "$out"; exit 1; }
for f in $bad; do
	echo "not clang-formatted: $f (clang-format -i $f)"
done
exit 1

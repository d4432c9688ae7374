#!/bin/sh
# tests/check-format.sh: fails when a C file of the project differs from
# what clang-format makes of it with the top-level .clang-format, and
# names each such file.  `clang-format -i FILE` fixes one.
#   sh tests/check-format.sh
# Exit status: 0 all formatted, 1 a file differs, 77 no clang-format.
cd "$(dirname "$0")/.." || exit 1
cf=${CLANG_FORMAT:-clang-format}
command -v "$cf" >/dev/null || { echo "SKIP: no $cf"; exit 77; }
bad=0
for f in common/*.[ch] sp-*/*.[ch] tests/unit/*.c tests/fuzz/*.c \
    tests/programs/*.c; do
	[ -f "$f" ] || continue
	if ! "$cf" --dry-run -Werror "$f" >/dev/null 2>&1; then
		echo "not clang-formatted: $f (clang-format -i $f)"
		bad=1
	fi
done
exit $bad

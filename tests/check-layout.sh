#!/bin/sh
# tests/check-layout.sh: fails when the README's Layout list and the
# source tree disagree: a file of common/, a tool's folder or one of its
# part folders (sp-record/unwind/) that the list does not name, or a name
# in the list with no file.  Names like "buf.[ch]" stand for buf.c and
# buf.h.  It also fails on two .c files of one tool with one name, and on
# a stray file at the top of the tree (git ls-files).
#   sh tests/check-layout.sh
cd "$(dirname "$0")/.." || exit 1
listed=$(mktemp) present=$(mktemp)
trap 'rm -f "$listed" "$present"' EXIT
# The indented block after "## Layout": a folder line, then its files.
awk '/^## / { in_layout = ($2 == "Layout") ; next }
     !in_layout { next }
     /^    [a-z][-a-z\/]*\/$/ { dir = $1; next }
     /^        [^ ]/ && dir != "" {
	n = $1
	if (n ~ /\.\[ch\]$/) {
		sub(/\.\[ch\]$/, "", n)
		print dir n ".c"; print dir n ".h"
	} else
		print dir n
	next }
     /^    [^ ]/ { dir = "" }' README.md | sort >"$listed"
ls common/*.[ch] sp-*/*.[ch] sp-*/*.sh sp-*/*/*.[chS] 2>/dev/null | sort >"$present"
bad=0
for f in $(comm -13 "$listed" "$present"); do
	echo "in the tree, not in README.md's Layout: $f"
	bad=1
done
for f in $(comm -23 "$listed" "$present"); do
	echo "in README.md's Layout, not in the tree: $f"
	bad=1
done
[ -s "$listed" ] || { echo "README.md has no Layout list"; bad=1; }
# A tool's archive (libsp-record.a) names its members by file name, so
# two parts of one tool may not both hold an x.c.
for f in $(ls sp-*/*.c sp-*/*/*.c 2>/dev/null |
	sed 's|^\([^/]*\)/.*/\([^/]*\)$|\1/\2|; s|^\([^/]*\)/\([^/]*\)$|\1/\2|' |
	sort | uniq -d); do
	echo "two files of one tool named alike: $f"
	bad=1
done
# The top of the tree holds the tools' folders, common/, tests/, docs/,
# bench/ and these files; anything else belongs in one of the folders.
if git rev-parse --git-dir >/dev/null 2>&1; then
	for f in $(git ls-files | grep -v / | grep -vx -e .clang-format \
		-e .gitignore -e GNUmakefile -e README.md -e VERSION); do
		echo "a stray file at the top of the tree: $f"
		bad=1
	done
fi
exit $bad

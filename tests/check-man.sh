#!/bin/sh
# tests/check-man.sh: the man pages in docs/ pass `mandoc -Tlint` at the
# warning level and render without warnings from man(1).
#   sh tests/check-man.sh
# Exit status: 0 clean, 1 a warning, 77 neither mandoc nor man installed.
cd "$(dirname "$0")/.." || exit 1
command -v mandoc >/dev/null || command -v man >/dev/null ||
	{ echo "SKIP: neither mandoc nor man is installed"; exit 77; }
bad=0
for f in docs/*.1 docs/*.5; do
	if command -v mandoc >/dev/null; then
		# (mandoc.db notes say the host's index is old, nothing else)
		out=$(mandoc -Tlint -W warning "$f" 2>&1 | grep -v 'outdated mandoc.db')
		[ -z "$out" ] || { echo "$out"; bad=1; }
	fi
	if command -v man >/dev/null; then
		out=$(MANWIDTH=80 man --warnings -l "$f" 2>&1 >/dev/null)
		[ -z "$out" ] || { echo "$f: $out"; bad=1; }
	fi
done
exit $bad

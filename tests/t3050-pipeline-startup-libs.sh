#!/bin/sh
# What each pipeline tool maps before it reads a byte (issue 30): every
# shared library costs a short run its mapping, relocations and page
# faults (0.3-0.5 ms of CPU each on a 2-vCPU VM, next to a 12 s profile's
# 45 ms pipeline).  xxhash is compiled into libsp.a, so no tool loads
# libxxhash; sp-dump needs nothing but libc and libm.
. "$(dirname "$0")/lib.sh"

# libs TOOL: the sonames the dynamic loader maps for TOOL, one a line.
libs() {
	LD_TRACE_LOADED_OBJECTS=1 "$1" 2>/dev/null |
		awk '$2 == "=>" { print $1 }'
}

for t in "$SP_DUMP" "$SP_SYMBOLIZE" "$SP_FOLD"; do
	libs "$t" >"$TMP/libs" || fail "cannot list what $t loads"
	grep -q '^libc\.so' "$TMP/libs" || fail "no libc listed for $t"
	if grep -q xxhash "$TMP/libs"; then
		fail "$(basename "$t") loads $(grep xxhash "$TMP/libs")"
	fi
done
# sp-dump: libc and libm, and the sanitizers' runtimes in their build.
libs "$SP_DUMP" | grep -v '^lib\(c\|m\|asan\|ubsan\|gcc_s\|stdc++\)\.so' \
	>"$TMP/extra"
[ -s "$TMP/extra" ] && fail "sp-dump loads $(tr '\n' ' ' <"$TMP/extra")"
exit 0

#!/bin/sh
# sp-dump prints every record kind of a spool written by an independent
# encoder, with module contexts resolved as the reference reader does.
. "$(dirname "$0")/lib.sh"

python3 "$TOP/tests/spoolgen.py" >"$TMP/x.spool" <<'EOF2'
header 123 10
module 0 7 0x1000 0x2000 0x100 1 0 /first
module 1 7 0x3000 0x4000 0x200 2 0 /lib/second.so
module 2 -1 0xffffffff81000000 0xffffffff81010000 0 0 1 [kernel]
frame 0 0 0x110
frame 1 1 0x3010
frame 2 3 0xffffffff81000010
frame 3 5 0
stack 0 - 3
stack 1 0 1
stack 2 1 0
stack 3 2 2
thread 0 7 11
sample 1000 0 3
sample 5 0 3
thread 1 8 8
sample -3 1 1
exec 2000 7 1
deactivate 7
ext 17 e8070e0701067061726b6572
ext 99 00ff
EOF2
"$SP_DUMP" "$TMP/x.spool" >"$TMP/out" || fail "sp-dump exited $?"
printf '%s\n' \
	'spool	1	123	10' \
	'module	0	7	0x1000	0x2000	0x100	1	user	/first' \
	'module	1	7	0x3000	0x4000	0x200	2	user	/lib/second.so' \
	'module	2	-1	0xffffffff81000000	0xffffffff81010000	0x0	0	kernel	[kernel]' \
	'frame	0	user	0x1010	0	0x110' \
	'frame	1	user	0x3010	-	-' \
	'frame	2	kernel	0xffffffff81000010	2	0x10' \
	'frame	3	truncated	0x0	-	-' \
	'stack	0	-	3' \
	'stack	1	0	1' \
	'stack	2	1	0' \
	'stack	3	2	2' \
	'thread	0	7	11' \
	'pframe	1	7	1	0x210' \
	'sample	1000	7	11	3' \
	'sample	1005	7	11	3' \
	'thread	1	8	8' \
	'pframe	1	8	-	-' \
	'sample	1002	8	8	1' \
	'exec	2000	7	python' \
	'deactivate	7' \
	'comm	1000	7	7	exec	parker' \
	'ext	99	00ff' >"$TMP/expected"
diff -u "$TMP/expected" "$TMP/out" || fail "unexpected records"

# --stacks: one line per sample, leaf first, with fallback names.
"$SP_DUMP" --stacks "$TMP/x.spool" >"$TMP/stacks" || fail "--stacks exited $?"
printf '%s\n' \
	'sample	1000	7	11	[kernel]+0xffffffff81000010	first+0x110	second.so+0x210	<stack truncated>' \
	'sample	1005	7	11	[kernel]+0xffffffff81000010	first+0x110	second.so+0x210	<stack truncated>' \
	'sample	1002	8	8	<0x3010>	<stack truncated>' >"$TMP/expected"
diff -u "$TMP/expected" "$TMP/stacks" || fail "unexpected --stacks output"

# The same spool through a pipe gives the same output.
"$SP_DUMP" <"$TMP/x.spool" >"$TMP/piped" || fail "stdin exited $?"
pipeline cat "$TMP/x.spool" \| "$SP_DUMP" - >"$TMP/piped2" || fail "pipe failed"
cmp -s "$TMP/out" "$TMP/piped" && cmp -s "$TMP/out" "$TMP/piped2" ||
	fail "pipe output differs"
exit 0

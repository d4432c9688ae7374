#!/bin/sh
# JIT names from jitdump files (issue 9 item 3): CPython 3.13's
# -X perf_jit writes /tmp/jit-PID.dump, not a perf map.  A crafted dump
# under --perf-map-dir names a Python frame and a JIT frame; then, where
# python3.13 and perf_event_open are available, a real recording of
# py_work.py gets its Python functions named.
. "$(dirname "$0")/lib.sh"
command -v python3 >/dev/null || skip "no python3 to write a jitdump"

T='	'
mkdir "$TMP/maps"
# Two code loads between other records, in the layout of perf's jitdump
# specification (written here, independently of sp-symbolize's reader).
python3 - "$TMP/maps/jit-77.dump" <<'PY' || fail "cannot write a jitdump"
import struct, sys
def load(addr, size, name):
    body = struct.pack("<IIQQQQ", 77, 77, addr, addr, size, 1)
    body += name + b"\0" + b"\x90" * size
    return struct.pack("<IIQ", 0, 16 + len(body), 0) + body
other = struct.pack("<IIQ", 4, 40, 0) + bytes(24)
out = struct.pack("<IIIIIIQQ", 0x4A695444, 1, 40, 62, 0, 77, 0, 0)
out += other + load(0x1000, 16, b"py::handler:/srv/app.py") + other
out += load(0x2000, 32, b"LazyCompile:*tick app.js:3")
out += struct.pack("<IIQ", 3, 16, 0)  # close
open(sys.argv[1], "wb").write(out)
PY
printf 'spool\t1\t0\t1000\nframe\t0\tuser\t0x1004\t-\t-\npframe\t0\t77\t-\t-\nframe\t1\tuser\t0x2010\t-\t-\npframe\t1\t77\t-\t-\nframe\t2\tuser\t0x3000\t-\t-\npframe\t2\t77\t-\t-\n' \
	>"$TMP/in"
timeout 20 "$SP_SYMBOLIZE" --perf-map-dir "$TMP/maps" "$TMP/in" \
	>"$TMP/out" 2>"$TMP/err" || fail "exit $?: $(cat "$TMP/err")"
[ -s "$TMP/err" ] && fail "unexpected stderr: $(cat "$TMP/err")"
awk -F "$T" '$1 == "symbol" && $3 == 77 { print $2 "\t" $5 "\t" $7 "\t" $8 }' \
	"$TMP/out" >"$TMP/got"
printf '0\t-\t/srv/app.py\thandler\n1\tj\t-\tLazyCompile:*tick app.js:3\n2\tu\t-\t<0x3000>\n' |
	diff -u - "$TMP/got" || fail "crafted jitdump"

# A real recording, when there is a python3.13 to make one.
py=
for p in "${PYENV_ROOT:-$HOME/.pyenv}"/versions/3.13*/bin/python3.13 \
	"$(command -v python3.13 2>/dev/null)"; do
	[ -x "$p" ] && "$p" -c 'import sys' 2>/dev/null && { py=$p; break; }
done
[ -n "$py" ] || { echo "no python3.13: real dump not checked" >&2; exit 0; }
need_perf
"$SP_RECORD" -g dwarf -o "$TMP/py.spool" -- "$py" -X perf_jit \
	"$PROGRAMS/py_work.py" 1c 2>"$TMP/rec.err" ||
	fail "sp-record: exit $?: $(cat "$TMP/rec.err")"
"$SP_DUMP" "$TMP/py.spool" >"$TMP/py.txt" || fail "sp-dump: exit $?"
pid=$(awk -F "$T" '$1 == "module" { print $3; exit }' "$TMP/py.txt")
timeout 60 "$SP_SYMBOLIZE" "$TMP/py.txt" >"$TMP/py.sym" 2>"$TMP/err" ||
	fail "sp-symbolize: exit $?: $(cat "$TMP/err")"
rm -f "/tmp/jit-$pid.dump" "/tmp/perf-$pid.map"
[ -e "/tmp/perf-$pid.map" ] && fail "-X perf_jit wrote a perf map"
awk -F "$T" '$1 == "symbol" && $7 ~ /py_work\.py$/ { print $8 }' "$TMP/py.sym" |
	sort -u >"$TMP/pynames"
for f in fib work_a work_b main; do
	grep -qx "$f" "$TMP/pynames" ||
		fail "$f not named from the jitdump: $(tr '\n' ' ' <"$TMP/pynames")"
done
exit 0

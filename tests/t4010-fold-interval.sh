#!/bin/sh
# sp-fold --interval SECONDS -o PATTERN: one output per interval of the
# recording, named by the interval's start (%t, Unix seconds), for
# continuous profiling; intervals without samples write nothing; every
# sample lands in exactly one interval.
. "$(dirname "$0")/lib.sh"

# A recording that started at Unix time 1700000000 s, samples at 0, 0.5,
# 0.9, 1.7 and 3.3 s after the first.
T='	'
cat >"$TMP/a.rec" <<EOF_REC
spool${T}1${T}1700000000000000${T}1000
frame${T}0${T}user${T}0x10${T}-${T}-
symbol${T}0${T}-${T}0${T}-${T}-${T}-${T}main
frame${T}1${T}user${T}0x20${T}-${T}-
symbol${T}1${T}-${T}0${T}-${T}-${T}-${T}work
stack${T}0${T}-${T}0
stack${T}1${T}0${T}1
comm${T}0${T}7${T}7${T}exec${T}app
sample${T}10000000000${T}7${T}7${T}1
sample${T}10500000000${T}7${T}7${T}0
sample${T}10900000000${T}7${T}7${T}1
sample${T}11700000000${T}7${T}7${T}1
sample${T}13300000000${T}7${T}7${T}0
EOF_REC
mkdir "$TMP/out"
"$SP_FOLD" --interval 1 -o "$TMP/out/p-%t.folded" "$TMP/a.rec" ||
	fail "exit $?"
(cd "$TMP/out" && ls) >"$TMP/files"
printf 'p-1700000000.folded\np-1700000001.folded\np-1700000003.folded\n' |
	diff -u - "$TMP/files" || fail "interval files differ"
printf 'app;main 1\napp;main;work 2\n' | diff -u - "$TMP/out/p-1700000000.folded" ||
	fail "first interval"
[ "$(cat "$TMP/out/p-1700000001.folded")" = "app;main;work 1" ] ||
	fail "second interval: $(cat "$TMP/out/p-1700000001.folded")"
[ "$(cat "$TMP/out/p-1700000003.folded")" = "app;main 1" ] ||
	fail "fourth interval: $(cat "$TMP/out/p-1700000003.folded")"

# Sub-second intervals carry milliseconds; pprof files carry their
# interval's time and duration.
"$SP_FOLD" --interval 0.5 --format pprof -o "$TMP/out/q-%t.pb.gz" \
	"$TMP/a.rec" || fail "pprof exit $?"
[ -f "$TMP/out/q-1700000000.500.pb.gz" ] ||
	fail "no q-1700000000.500.pb.gz: $(ls "$TMP/out")"
python3 - "$TMP/out/q-1700000001.500.pb.gz" <<'PY' || fail "pprof interval"
import gzip, sys
def varint(b, i):
    v = s = 0
    while True:
        c = b[i]; i += 1; v |= (c & 0x7f) << s; s += 7
        if c < 0x80:
            return v, i
def fields(b):
    i = 0
    while i < len(b):
        key, i = varint(b, i)
        if key & 7 == 0:
            v, i = varint(b, i)
            yield key >> 3, v
        else:
            n, i = varint(b, i)
            yield key >> 3, None
            i += n
d = dict((f, v) for f, v in fields(gzip.open(sys.argv[1]).read()) if f in (9, 10))
assert d[9] == 1700000001500000000, d
assert d[10] == 500000000, d
PY

# The pattern must name each interval; not with perf-script output.
"$SP_FOLD" --interval 1 -o "$TMP/out/fixed" "$TMP/a.rec" 2>"$TMP/err"
[ $? -eq 2 ] || fail "-o without %t is not a usage error"
grep -q '%t' "$TMP/err" || fail "message: $(cat "$TMP/err")"
"$SP_FOLD" --interval 1 --format perf-script -o "$TMP/out/s-%t" \
	"$TMP/a.rec" 2>/dev/null
[ $? -eq 2 ] || fail "--interval with perf-script is not a usage error"
"$SP_FOLD" --interval 0 -o "$TMP/out/z-%t" "$TMP/a.rec" 2>/dev/null
[ $? -eq 2 ] || fail "--interval 0 is not a usage error"
exit 0

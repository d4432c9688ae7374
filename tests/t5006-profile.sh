#!/bin/sh
# sp-profile (issue 26): one command from a program to its profile.  The
# output follows -o's name: an SVG flame graph that parses and names the
# workload's hot function, pprof that go tool pprof reads, speedscope
# JSON, folded stacks; no -o gives the top table.  -p with -d records a
# running process; Ctrl-C in a terminal ends the recording and the
# profile is still written; --keep keeps the spool; a command's children
# are recorded unless --no-children; mistakes are usage errors that say
# what was wrong.
. "$(dirname "$0")/lib.sh"
need_perf
cc_prog rec_chain rec_chain.c -O0 -g -fno-omit-frame-pointer -pthread
CHAIN='main;run;chain_a;chain_b;chain_c;spin'

# SVG: well-formed, with spin in a frame's title, and the command's name.
"$SP_PROFILE" -o "$TMP/x.svg" -- "$TMP/rec_chain" 0.3c 2>"$TMP/err"
rc=$?
[ $rc -eq 7 ] || fail "-o x.svg: exit $rc, not the command's 7: $(cat "$TMP/err")"
grep -q "^sp-profile: wrote svg to '$TMP/x.svg'" "$TMP/err" ||
	fail "no note of what was written: $(cat "$TMP/err")"
python3 - "$TMP/x.svg" <<'PY' || fail "the SVG is not a flame graph of spin"
import sys, xml.etree.ElementTree as et
root = et.parse(sys.argv[1]).getroot()
titles = [t.text or "" for t in root.iter("{http://www.w3.org/2000/svg}title")]
assert any(t.startswith("spin (") for t in titles), titles[:20]
texts = "".join(t.text or "" for t in root.iter("{http://www.w3.org/2000/svg}text"))
assert "rec_chain" in texts, texts[:200]
PY

# pprof, read by go tool pprof where go is installed.
"$SP_PROFILE" -o "$TMP/x.pb.gz" -- "$TMP/rec_chain" 0.3c 2>"$TMP/err"
[ $? -eq 7 ] || fail "-o x.pb.gz: $(cat "$TMP/err")"
gzip -t "$TMP/x.pb.gz" || fail "-o x.pb.gz is not gzip"
python3 "$PROGRAMS/pprof_names.py" "$TMP/x.pb.gz" >"$TMP/names" ||
	fail "pprof_names.py cannot read it"
grep -qx spin "$TMP/names" || fail "pprof without spin"
if command -v go >/dev/null; then
	go tool pprof -top "$TMP/x.pb.gz" >"$TMP/pp.top" 2>&1 ||
		fail "go tool pprof -top: $(cat "$TMP/pp.top")"
	grep -q ' spin$' "$TMP/pp.top" || fail "go tool pprof: $(cat "$TMP/pp.top")"
elif [ "${CI:-}" = true ]; then
	fail "go is missing under CI=true"
fi

# speedscope JSON and folded stacks, with the spool kept.
"$SP_PROFILE" -o "$TMP/x.json" --keep "$TMP/kept.spool" -- \
	"$TMP/rec_chain" 0.3c 2>"$TMP/err"
[ $? -eq 7 ] || fail "-o x.json: $(cat "$TMP/err")"
python3 -c 'import json, sys; d = json.load(open(sys.argv[1]))
assert "spin" in [f["name"] for f in d["shared"]["frames"]]' "$TMP/x.json" ||
	fail "speedscope JSON without spin"
"$SP_DUMP" "$TMP/kept.spool" >"$TMP/kept.dump" || fail "--keep: not a spool"
grep -q '^sample' "$TMP/kept.dump" || fail "--keep: no samples"
"$SP_PROFILE" -o "$TMP/x.folded" -- "$TMP/rec_chain" 0.3c 2>"$TMP/err"
grep -q ";$CHAIN [0-9]*\$" "$TMP/x.folded" ||
	fail "folded: $(head -n 3 "$TMP/x.folded")"

# A command's children are recorded (sp-record -f), unless --no-children,
# when sp-record says what -f would have recorded.
"$SP_PROFILE" -o "$TMP/c.folded" -- sh -c '"$1" 0.3c; exit 0' sh \
	"$TMP/rec_chain" 2>"$TMP/err" || fail "a child: $(cat "$TMP/err")"
grep -q ";$CHAIN [0-9]*\$" "$TMP/c.folded" ||
	fail "no child's samples: $(head -n 3 "$TMP/c.folded")"
"$SP_PROFILE" --no-children -o "$TMP/n.folded" -- sh -c '"$1" 0.3c; exit 0' \
	sh "$TMP/rec_chain" 2>"$TMP/err"
grep -q ';spin ' "$TMP/n.folded" && fail "--no-children recorded the child"
grep -Eq '^sp-record: -f would have recorded the [0-9]+ samples? of child processes$' \
	"$TMP/err" || fail "--no-children: no word of -f: $(cat "$TMP/err")"

# No -o: the top table on standard output.
"$SP_PROFILE" -- "$TMP/rec_chain" 0.3c >"$TMP/top" 2>"$TMP/err"
[ $? -eq 7 ] || fail "top: $(cat "$TMP/err")"
head -n 1 "$TMP/top" | grep -q '^# [0-9]* samples' || fail "top: $(head -n 3 "$TMP/top")"
grep -q ' spin$' "$TMP/top" || fail "top without spin: $(head "$TMP/top")"

# -p PID -d SECONDS: a running process.
"$TMP/rec_chain" 30 >/dev/null &
pid=$!
sleep 0.2
"$SP_PROFILE" -p "$pid" -d 1 -o "$TMP/p.folded" 2>"$TMP/err"
rc=$?
kill "$pid" 2>/dev/null
wait "$pid" 2>/dev/null
[ $rc -eq 0 ] || fail "-p -d: exit $rc: $(cat "$TMP/err")"
grep -q "$CHAIN [0-9]*\$" "$TMP/p.folded" || fail "-p: $(head -n 3 "$TMP/p.folded")"

# Ctrl-C in a terminal: the recording ends, the flame graph is written.
# The interrupt comes once the workload has spent 0.5 s of CPU time.
python3 "$TOP/tests/ctrl_c.py" --exe "$TMP/rec_chain" --cpu 0.5 -- \
	'exec "$0" -o "$1/cc.svg" -- "$1/rec_chain" 60 2>"$1/cc.err"' \
	"$SP_PROFILE" "$TMP" || fail "Ctrl-C run"
grep -q 'stopped by signal 2' "$TMP/cc.err" || fail "Ctrl-C: $(cat "$TMP/cc.err")"
python3 -c 'import sys, xml.dom.minidom as m; m.parse(sys.argv[1])' \
	"$TMP/cc.svg" 2>/dev/null || fail "Ctrl-C: no SVG written: $(cat "$TMP/cc.err")"
grep -q '>spin (' "$TMP/cc.svg" || grep -q '<title>spin (' "$TMP/cc.svg" ||
	fail "Ctrl-C: the SVG has no spin"

# Mistakes: usage errors (2) that say what was wrong.
for args in "" "-o x.svg" "--format bmp -- true" "--bogus -- true" "--"; do
	# shellcheck disable=SC2086
	"$SP_PROFILE" $args >"$TMP/out" 2>"$TMP/err"
	rc=$?
	[ $rc -eq 2 ] || fail "'sp-profile $args': exit $rc, not 2"
	head -n 1 "$TMP/err" | grep -q '^sp-profile: ' ||
		fail "'sp-profile $args': $(cat "$TMP/err")"
done
grep -q "unrecognized option '--bogus'" "$TMP/err" 2>/dev/null ||
	"$SP_PROFILE" --bogus -- true 2>&1 | grep -q "unrecognized option '--bogus'" ||
	fail "a bad option is not named"
# A format that contradicts the file's name is written, with a warning.
"$SP_PROFILE" --format folded -o "$TMP/w.svg" -- "$TMP/rec_chain" 0.1c \
	2>"$TMP/err"
grep -q "warning: writing folded to '$TMP/w.svg', whose name says svg" \
	"$TMP/err" || fail "no mismatch warning: $(cat "$TMP/err")"
"$SP_PROFILE" --help | grep -q '^usage: sp-profile' || fail "--help"
"$SP_PROFILE" --version | grep -Eq '^sp-profile [0-9]+\.[0-9]+\.[0-9]+' ||
	fail "--version"
exit 0

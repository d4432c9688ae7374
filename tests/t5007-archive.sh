#!/bin/sh
# sp-archive (issue 29): a spool bundled with its module files symbolizes
# after the program and its library are gone, with the same names as
# before; a stripped library's debug file travels beside it, and names
# its static function once the library is gone too; a damaged,
# renamed or foreign member makes -x refuse the bundle, naming the
# member; a module path that is a FIFO, a symbolic link, another build
# or too big is never stored (and the FIFO never opened).
. "$(dirname "$0")/lib.sh"
need_perf
app=$TMP/app
mkdir "$app"
${CC:-cc} -shared -fPIC -g -O1 -o "$app/libarc.so" "$PROGRAMS/arc_lib.c" ||
	fail "cannot build arc_lib.c"
${CC:-cc} -g -O1 -o "$app/arc_main" "$PROGRAMS/arc_main.c" -L"$app" -larc \
	-Wl,-rpath,"$app" || fail "cannot build arc_main.c"
"$SP_RECORD" -q -o "$TMP/x.spool" -- "$app/arc_main" 0.4 ||
	fail "sp-record: exit $?"
# --no-cache: names must come from the files, not from an earlier run.
fold() {	# SPOOL [sp-symbolize options]: sorted folded stacks
	_s=$1
	shift
	pipeline "$SP_DUMP" "$_s" \| "$SP_SYMBOLIZE" --no-cache "$@" \| \
		"$SP_FOLD" >"$TMP/folded" 2>"$TMP/fold.err" || return 1
	sort "$TMP/folded"
}
fold "$TMP/x.spool" >"$TMP/before" || fail "folding before"
grep -q ';main;arc_main_spin ' "$TMP/before" &&
	grep -q ';arc_lib_spin;arc_lib_inner ' "$TMP/before" ||
	fail "the workload is not named: $(cat "$TMP/before")"

"$SP_ARCHIVE" -o "$TMP/x.tar.gz" "$TMP/x.spool" 2>"$TMP/err" ||
	fail "sp-archive: exit $?: $(cat "$TMP/err")"
grep -q "^sp-archive: wrote '$TMP/x.tar.gz'" "$TMP/err" ||
	fail "no summary: $(cat "$TMP/err")"
id_of() {
	readelf -n "$1" | awk '$1 == "Build" { print $3 }'
}
main_id=$(id_of "$app/arc_main") lib_id=$(id_of "$app/libarc.so")
tar -tzf "$TMP/x.tar.gz" >"$TMP/names" || fail "not a tar.gz"
for id in "$main_id" "$lib_id"; do
	grep -qx ".build-id/$(echo "$id" | cut -c1-2)/$(echo "$id" | cut -c3-).debug" \
		"$TMP/names" || fail "no member for $id: $(cat "$TMP/names")"
done
grep -qx x.spool "$TMP/names" && grep -qx MANIFEST "$TMP/names" ||
	fail "no spool or MANIFEST: $(cat "$TMP/names")"

# The files go; the bundle, extracted elsewhere, names them all again.
mv "$app" "$TMP/gone"
fold "$TMP/x.spool" >"$TMP/lost"
grep -q 'arc_lib_inner' "$TMP/lost" && fail "names without the files"
"$SP_ARCHIVE" -x "$TMP/x.tar.gz" -C "$TMP/fresh" >"$TMP/cmd" 2>"$TMP/err" ||
	fail "sp-archive -x: exit $?: $(cat "$TMP/err")"
[ "$(cat "$TMP/cmd")" = "sp-dump $TMP/fresh/x.spool | sp-symbolize --debug-dir $TMP/fresh | sp-fold" ] ||
	fail "-x printed: $(cat "$TMP/cmd")"
fold "$TMP/fresh/x.spool" --debug-dir "$TMP/fresh" >"$TMP/after" ||
	fail "folding the bundle: $(cat "$TMP/fold.err")"
diff -u "$TMP/before" "$TMP/after" || fail "the bundle names differently"
mv "$TMP/gone" "$app"

# A stripped library with a debug link: its debug file is .debug, the
# library itself beside it.
objcopy --only-keep-debug "$app/libarc.so" "$app/libarc.so.debug" &&
	strip -s "$app/libarc.so" &&
	objcopy --add-gnu-debuglink="$app/libarc.so.debug" "$app/libarc.so" ||
	fail "cannot strip libarc.so"
lib_rel=.build-id/$(echo "$lib_id" | cut -c1-2)/$(echo "$lib_id" | cut -c3-)
"$SP_ARCHIVE" -o "$TMP/s.tar.gz" "$TMP/x.spool" 2>"$TMP/err" ||
	fail "stripped: exit $?: $(cat "$TMP/err")"
mkdir "$TMP/s" && tar -xzf "$TMP/s.tar.gz" -C "$TMP/s" || fail "tar -x"
cmp "$app/libarc.so" "$TMP/s/$lib_rel" || fail "the stripped library"
cmp "$app/libarc.so.debug" "$TMP/s/$lib_rel.debug" || fail "its debug file"
# With the files gone, the library resolves from its stored ELF and its
# static function is named from the debug file beside it.
mv "$app" "$TMP/gone"
fold "$TMP/s/x.spool" --debug-dir "$TMP/s" >"$TMP/after-s" ||
	fail "folding the stripped bundle: $(cat "$TMP/fold.err")"
diff -u "$TMP/before" "$TMP/after-s" ||
	fail "the stripped bundle names differently: $(cat "$TMP/fold.err")"
mv "$TMP/gone" "$app"

# Damage: a flipped byte, a member under another build id's name (with
# MANIFEST made to agree), a symbolic link member, a cut bundle.
repack() {	# NAME: $TMP/s as the bundle $TMP/NAME.tar.gz
	(cd "$TMP/s" && set -- "$TMP/$1.tar.gz" MANIFEST x.spool .build-id &&
		{ [ ! -e kallsyms ] && [ ! -L kallsyms ] || set -- "$@" kallsyms; } &&
		tar -czf "$@")
}
refused() {	# NAME MEMBER: -x refuses $TMP/NAME.tar.gz naming MEMBER
	"$SP_ARCHIVE" -x "$TMP/$1.tar.gz" -C "$TMP/x-$1" >"$TMP/out" 2>"$TMP/err"
	[ $? -eq 1 ] || fail "$1: not refused"
	one_error sp-archive "$TMP/err"
	grep -qF "member '$2'" "$TMP/err" || fail "$1: $(cat "$TMP/err")"
	[ -s "$TMP/out" ] && fail "$1: printed a command"
	[ -z "$(ls -A "$TMP/x-$1")" ] ||
		fail "$1: extracted something: $(ls -A "$TMP/x-$1")"
}
# Each repack compresses the bundle again: the C library's members
# (megabytes) go first, with their MANIFEST lines; the cases need only
# the test library's.
awk -F'\t' 'NR > 1 { print $3 }' "$TMP/s/MANIFEST" | while read -r m; do
	[ "$(stat -c %s "$TMP/s/$m")" -gt 1048576 ] || continue
	rm "$TMP/s/$m" && grep -vF "	$m	" "$TMP/s/MANIFEST" >"$TMP/man" &&
		mv "$TMP/man" "$TMP/s/MANIFEST" || fail "dropping $m"
done
cp "$TMP/s/$lib_rel.debug" "$TMP/keep"
printf 'X' | dd of="$TMP/s/$lib_rel.debug" bs=1 seek=100 conv=notrunc \
	status=none
repack flipped
refused flipped "$lib_rel.debug"
cp "$TMP/keep" "$TMP/s/$lib_rel.debug"
# a directory of no module's (another's build id may start with 00)
for pre in 00 01 02 03; do
	[ -e "$TMP/s/.build-id/$pre" ] || break
done
other=.build-id/$pre/$(echo "$lib_id" | cut -c3-).debug
mkdir "$TMP/s/.build-id/$pre" && mv "$TMP/s/$lib_rel.debug" "$TMP/s/$other" &&
	sed -i "s|$lib_rel.debug|$other|" "$TMP/s/MANIFEST" || fail "renaming"
repack renamed
refused renamed "$other"
grep -q "build id $lib_id does not match its name" "$TMP/err" ||
	fail "renamed: $(cat "$TMP/err")"
mv "$TMP/s/$other" "$TMP/s/$lib_rel.debug" && rmdir "$TMP/s/.build-id/$pre" &&
	sed -i "s|$other|$lib_rel.debug|" "$TMP/s/MANIFEST" || fail "renaming back"
ln -s /etc/passwd "$TMP/s/kallsyms"
repack linked
refused linked kallsyms
rm "$TMP/s/kallsyms"
repack good
"$SP_ARCHIVE" -x "$TMP/good.tar.gz" -C "$TMP/x-good" >/dev/null 2>"$TMP/err" ||
	fail "the repacked bundle: $(cat "$TMP/err")"
head -c 4000 "$TMP/good.tar.gz" >"$TMP/cut.tar.gz"
"$SP_ARCHIVE" -x "$TMP/cut.tar.gz" -C "$TMP/x-cut" >/dev/null 2>"$TMP/err"
[ $? -eq 1 ] || fail "a cut bundle: not refused"
one_error sp-archive "$TMP/err"
grep -q "cut.tar.gz'" "$TMP/err" || fail "cut: $(cat "$TMP/err")"

# Hostile module paths: a FIFO (never opened: a reader would block), a
# symbolic link, another build at the path, a file over --max-file.
# (--max-file 1M leaves out the C library, which each run would compress
# again: these cases are about the test library.)
mv "$app/libarc.so" "$TMP/libarc.so"
mkfifo "$app/libarc.so"
timeout 60 "$SP_ARCHIVE" --max-file 1M -o "$TMP/h.tar.gz" "$TMP/x.spool" \
	2>"$TMP/err" || fail "FIFO: exit $?: $(cat "$TMP/err")"
grep -q "^sp-archive: '$app/libarc.so': not a regular file; not stored" \
	"$TMP/err" || fail "FIFO: $(cat "$TMP/err")"
tar -tzf "$TMP/h.tar.gz" | grep -q "$lib_rel" && fail "FIFO: stored"
rm "$app/libarc.so"
ln -s "$TMP/libarc.so" "$app/libarc.so"
"$SP_ARCHIVE" --max-file 1M -o "$TMP/h.tar.gz" "$TMP/x.spool" 2>"$TMP/err" ||
	fail "link: exit $?"
grep -q "'$app/libarc.so': a symbolic link on its path; not stored" \
	"$TMP/err" || fail "link: $(cat "$TMP/err")"
tar -tzf "$TMP/h.tar.gz" | grep -q "$lib_rel" && fail "link: stored"
rm "$app/libarc.so"
${CC:-cc} -shared -fPIC -O0 -o "$app/libarc.so" "$PROGRAMS/arc_lib.c" ||
	fail "cannot build another arc_lib.c"
"$SP_ARCHIVE" --max-file 1M -o "$TMP/h.tar.gz" "$TMP/x.spool" 2>"$TMP/err" ||
	fail "other build: exit $?"
grep -q "'$app/libarc.so': build id [0-9a-f]* differs from recorded $lib_id; not stored" \
	"$TMP/err" || fail "other build: $(cat "$TMP/err")"
tar -tzf "$TMP/h.tar.gz" | grep -q "$lib_rel" && fail "other build: stored"
"$SP_ARCHIVE" --max-file 8K -o "$TMP/h.tar.gz" "$TMP/x.spool" 2>"$TMP/err" ||
	fail "--max-file: exit $?"
grep -q "'$app/arc_main': larger than --max-file (8192 bytes); not stored" \
	"$TMP/err" || fail "--max-file: $(cat "$TMP/err")"
"$SP_ARCHIVE" --max-file 8X "$TMP/x.spool" 2>"$TMP/err"
[ $? -eq 2 ] || fail "--max-file 8X: not a usage error"
exit 0

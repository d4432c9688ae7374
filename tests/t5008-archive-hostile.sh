#!/bin/sh
# sp-archive -x and a hostile bundle (issue 39, items 4 and 5).  The
# bundle is read once: one its owner rewrites while sp-archive runs
# (here, just before each tar that extracts) is extracted as first read,
# and the link to a root-only folder in the other version is never
# followed.  A member that is a symbolic link, a hard link, a FIFO, a
# device, or has an absolute name, and a MANIFEST naming a member twice,
# are refused and nothing is written in DIR.  Sizes are bounded from the
# listing before anything is extracted: a sparse 4 GiB member (160 bytes
# of bundle) is over the default --max-file, members over --max-total
# are refused, and a gzip bomb (1 GiB of zeros) stops at --max-total: in
# a little CPU time, and with no file of more than 32 MiB ever written
# (ulimit -f).
. "$(dirname "$0")/lib.sh"
src=$TMP/src secret=$TMP/secret
mkdir "$src" "$secret"
chmod 700 "$secret"

# A canary in a root-only folder, laid out as .build-id/xx/rest: an ELF
# file whose build id and SHA-256 an attacker knows.
${CC:-cc} -shared -fPIC -Wl,--build-id -o "$TMP/canary.so" \
	"$PROGRAMS/arc_lib.c" || fail "cannot build arc_lib.c"
id=$(readelf -n "$TMP/canary.so" | awk '$1 == "Build" { print $3 }')
pre=$(echo "$id" | cut -c1-2) rest=$(echo "$id" | cut -c3-)
[ -n "$rest" ] || fail "no build id in canary.so"
mkdir "$secret/$pre" && cp "$TMP/canary.so" "$secret/$pre/$rest" ||
	fail "cannot place the canary"
canary=$secret/$pre/$rest
sum() {
	sha256sum <"$1" | cut -d' ' -f1
}

# bundle NAME MEMBER...: the files of $src as $TMP/NAME.tgz, with a
# MANIFEST listing x.spool (and whatever $src/manifest.more says).
bundle() {
	_n=$1
	shift
	{ printf 'sp-archive\t1\nspool\t%s\tx.spool\t/x.spool\n' \
		"$(sum "$src/x.spool")"
		cat "$src/manifest.more" 2>/dev/null; } >"$src/MANIFEST"
	(cd "$src" && tar -czf "$TMP/$_n.tgz" MANIFEST "$@") ||
		fail "cannot make $_n.tgz"
}
echo "a spool" >"$src/x.spool"
bundle good x.spool
cp "$src/MANIFEST" "$TMP/good.MANIFEST"

# The other version: .build-id a link to the root-only folder, and
# MANIFEST naming the canary there with its build id and SHA-256.
printf 'elf\t%s\t.build-id/%s/%s\t/lib/x.so\n' "$(sum "$canary")" "$pre" \
	"$rest" >"$src/manifest.more"
ln -s "$secret" "$src/.build-id"
bundle evil x.spool .build-id
rm "$src/.build-id" "$src/manifest.more"

# refused NAME MEMBER [OPTION...]: -x refuses $TMP/NAME.tgz, in one line
# naming MEMBER, and writes nothing in DIR.
refused() {
	_n=$1 _m=$2
	shift 2
	"$SP_ARCHIVE" -x "$TMP/$_n.tgz" -C "$TMP/x-$_n" "$@" >"$TMP/out" \
		2>"$TMP/err"
	_rc=$?
	[ $_rc -eq 1 ] || fail "$_n: exit $_rc, not refused: $(cat "$TMP/err")"
	one_error sp-archive "$TMP/err"
	grep -qF "'$TMP/$_n.tgz': member '$_m'" "$TMP/err" ||
		fail "$_n: $(cat "$TMP/err")"
	[ -s "$TMP/out" ] && fail "$_n: printed a command"
	[ -z "$(ls -A "$TMP/x-$_n")" ] ||
		fail "$_n: wrote in DIR: $(ls -A "$TMP/x-$_n")"
	[ -f "$canary" ] || fail "$_n: the canary left $secret"
}

# 1. Rewritten while sp-archive runs: a tar on PATH first puts the other
# version in place whenever it is asked to extract.
real_tar=$(command -v tar)
mkdir "$TMP/shim"
cat >"$TMP/shim/tar" <<EOF
#!/bin/sh
case \$1 in -*x* | x*) cat '$TMP/evil.tgz' >'$TMP/b.tgz' ;; esac
exec '$real_tar' "\$@"
EOF
chmod +x "$TMP/shim/tar"
cp "$TMP/good.tgz" "$TMP/b.tgz"
PATH=$TMP/shim:$PATH "$SP_ARCHIVE" -x "$TMP/b.tgz" -C "$TMP/raced" \
	>"$TMP/out" 2>"$TMP/err"
rc=$?
cmp -s "$TMP/b.tgz" "$TMP/evil.tgz" || fail "raced: the bundle was not rewritten"
[ -f "$canary" ] || fail "raced: the canary was moved out of $secret (exit $rc)"
[ -e "$TMP/raced/.build-id" ] && fail "raced: a .build-id was extracted"
if [ $rc -eq 0 ]; then
	[ "$(cd "$TMP/raced" && ls -A)" = "MANIFEST
x.spool" ] || fail "raced: extracted $(ls -A "$TMP/raced")"
	cmp "$TMP/raced/MANIFEST" "$TMP/good.MANIFEST" &&
		cmp "$TMP/raced/x.spool" "$src/x.spool" ||
		fail "raced: not the bundle first read"
else
	[ $rc -eq 1 ] || fail "raced: exit $rc: $(cat "$TMP/err")"
	one_error sp-archive "$TMP/err"
fi
# Read as it is now, it is refused for its link.
refused evil .build-id
grep -q "not a plain file or folder ('l')" "$TMP/err" ||
	fail "evil: $(cat "$TMP/err")"

# 2. Members of other kinds than plain files and folders, and names a
# bundle does not hold.
ln -s /etc/passwd "$src/kallsyms"
bundle link x.spool kallsyms
refused link kallsyms
rm "$src/kallsyms"
ln "$src/x.spool" "$src/kallsyms"
bundle hard x.spool kallsyms
refused hard kallsyms
grep -q "('h')" "$TMP/err" || fail "hard: $(cat "$TMP/err")"
rm "$src/kallsyms"
mkfifo "$src/kallsyms"
bundle fifo x.spool kallsyms
refused fifo kallsyms
rm "$src/kallsyms"
if mknod "$src/kallsyms" c 1 3 2>/dev/null; then
	bundle device x.spool kallsyms
	refused device kallsyms
	rm "$src/kallsyms"
fi
# A MANIFEST naming a member twice: refused before anything is moved.
printf 'spool\t%s\tx.spool\t/x.spool\n' "$(sum "$src/x.spool")" \
	>"$src/manifest.more"
bundle twice x.spool
refused twice MANIFEST
grep -q "names 'x.spool' twice" "$TMP/err" || fail "twice: $(cat "$TMP/err")"
rm "$src/manifest.more"
(cd "$src" && tar -czPf "$TMP/absolute.tgz" MANIFEST "$src/x.spool") ||
	fail "cannot make absolute.tgz"
refused absolute "$src/x.spool"

# 3. Sizes, with no file over 32 MiB written and CPU time bounded.
# run NAME [OPTION...]: -x of $TMP/NAME.tgz; $cpu is the CPU time in ms
# of sp-archive and everything it ran.
run() {
	_n=$1
	shift
	(ulimit -f 65536 && ulimit -t 20 || exit
		"$SP_ARCHIVE" -x "$TMP/$_n.tgz" -C "$TMP/x-$_n" "$@" >"$TMP/out" \
			2>"$TMP/err"
		echo $? >"$TMP/rc"
		times >"$TMP/times")
	cpu=$(awk 'NR == 2 { split($0, f, /[ms ]+/)
		printf "%d\n", (f[1] * 60 + f[2] + f[3] * 60 + f[4]) * 1000 }' \
		"$TMP/times")
	echo "$_n: exit $(cat "$TMP/rc"), $cpu ms of CPU: $(cat "$TMP/err")" >&2
}
# bounded NAME WHAT [OPTION...]: -x refuses NAME saying WHAT, writes
# nothing in DIR, and takes under 2 s of CPU.
bounded() {
	_n=$1 _w=$2
	shift 2
	run "$_n" "$@"
	[ "$(cat "$TMP/rc")" = 1 ] || fail "$_n: not refused: $(cat "$TMP/err")"
	one_error sp-archive "$TMP/err"
	grep -qF -- "$_w" "$TMP/err" || fail "$_n: $(cat "$TMP/err")"
	[ -z "$(ls -A "$TMP/x-$_n")" ] ||
		fail "$_n: wrote in DIR: $(ls -A "$TMP/x-$_n")"
	[ "$cpu" -lt 2000 ] || fail "$_n: $cpu ms of CPU"
}
# A sparse member of 4 GiB: a bundle of a few hundred bytes.
rm "$src/x.spool"
truncate -s 4G "$src/x.spool" || fail "truncate"
printf 'sp-archive\t1\nspool\t-\tx.spool\t/x.spool\n' >"$src/MANIFEST"
(cd "$src" && tar -cSzf "$TMP/sparse.tgz" MANIFEST x.spool) ||
	fail "cannot make sparse.tgz"
bounded sparse "member 'x.spool' is 4294967296 bytes, more than --max-file (1073741824 bytes)"
# Two members within --max-file that together pass --max-total.
head -c 700000 /dev/urandom >"$src/x.spool"
head -c 700000 /dev/urandom >"$src/kallsyms"
printf 'kallsyms\t%s\tkallsyms\t/proc/kallsyms\n' "$(sum "$src/kallsyms")" \
	>"$src/manifest.more"
bundle total x.spool kallsyms
bounded total "more than --max-total (1048576 bytes)" --max-total 1M
rm "$src/manifest.more" "$src/kallsyms"
# A gzip bomb: MANIFEST, then x.spool declared as 1 GiB of zeros, the
# zeros as 1024 gzip members of 1 MiB each (about 1 MiB in all).
rm "$src/x.spool"
truncate -s 1G "$src/x.spool" || fail "truncate"
(cd "$src" && tar -cf - MANIFEST x.spool 2>/dev/null | head -c 1536 |
	gzip >"$TMP/z1.gz") || fail "cannot make the bomb's headers"
head -c 1048576 /dev/zero | gzip >"$TMP/z.gz"
for i in 1 2 3 4 5 6 7 8 9 10; do
	cat "$TMP/z.gz" "$TMP/z.gz" >"$TMP/z2.gz" && mv "$TMP/z2.gz" "$TMP/z.gz"
done
cat "$TMP/z1.gz" "$TMP/z.gz" "$TMP/z.gz" >"$TMP/bomb.tgz"
[ "$(wc -c <"$TMP/bomb.tgz")" -lt 4194304 ] || fail "the bomb is too big"
bounded bomb "'$TMP/bomb.tgz': decompresses to more than --max-total (1048576 bytes)" \
	--max-total 1M
exit 0

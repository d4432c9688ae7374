#!/bin/sh
# sp-symbolize's symbol cache, in a private XDG_CACHE_HOME: a miss then
# a hit with the same output as --no-cache (the hit opening no file for
# its symbols, as SP_SYMBOLIZE_CACHE_STATS counts), other options kept
# apart, least recently used files evicted over the bound, corrupt and
# truncated cache files (one warning, the right output, rebuilt),
# concurrent runs, and a binary replaced at the same path by one with
# another build id.
. "$(dirname "$0")/lib.sh"

SRC=$PROGRAMS/sym_elf.c
cc_prog pie sym_elf.c -O2 -g -fPIE -pie
cc_prog nopie sym_elf.c -O2 -g -fno-pie -no-pie
cc_prog libsym.so sym_elf.c -O2 -g -fPIC -shared -DSYM_LIB
readelf -n "$TMP/pie" | grep -q 'Build ID' ||
	skip "the toolchain writes no build ids"

export XDG_CACHE_HOME="$TMP/xdg" SP_SYMBOLIZE_CACHE_STATS=1
unset SP_SYMBOLIZE_CACHE_SIZE
CDIR=$XDG_CACHE_HOME/stackpulse

vaddr() { nm "$1" | awk -v s="$2" '$3 == s { print $1 }'; }
fileoff() {
	readelf -lW "$1" | while read -r type off va _pa sz _rest; do
		[ "$type" = LOAD ] || continue
		if [ $((0x$2)) -ge $((va)) ] && [ $((0x$2)) -lt $((va + sz)) ]
		then
			printf '%x\n' $((0x$2 - va + off))
		fi
	done
}

# stream FILE SYM COUNT...: a module mapping FILE and, for each symbol,
# COUNT frames at its first COUNT bytes.
stream() {
	_f=$1
	shift
	printf 'spool\t1\t0\t1000\n'
	printf 'module\t0\t42\t0x7f0000000000\t0x7f0000100000\t0x0\t%s\tuser\t%s\n' \
		"$(stat -c %i "$_f")" "$_f"
	_id=0
	while [ $# -gt 0 ]; do
		base=$((0x$(fileoff "$_f" "$(vaddr "$_f" "$1")")))
		_i=0
		while [ $_i -lt "$2" ]; do
			printf 'frame\t%d\tuser\t0x%x\t0\t0x%x\n' $_id \
				$((0x7f0000000000 + base + _i)) $((base + _i))
			_id=$((_id + 1)) _i=$((_i + 1))
		done
		shift 2
	done
}

# run NAME ARGS...: sp-symbolize ARGS into $TMP/NAME.out and .err, the
# cache counters of its stats line into $TMP/NAME.stats.
run() {
	n=$1
	shift
	"$SP_SYMBOLIZE" "$@" >"$TMP/$n.out" 2>"$TMP/$n.err" ||
		fail "$n: exit $?: $(cat "$TMP/$n.err")"
	grep '^sp-symbolize: cache: ' "$TMP/$n.err" |
		sed 's/^sp-symbolize: cache: //; s/;.*//' >"$TMP/$n.stats"
}
# stats NAME WANT: the stats line must be WANT.
stats() {
	[ "$(cat "$TMP/$1.stats")" = "$2" ] ||
		fail "$1: stats '$(cat "$TMP/$1.stats")', want '$2'"
}
# quiet NAME: nothing on stderr but the two stats lines.
quiet() {
	grep -v '^sp-symbolize: \(cache\|kept\): ' "$TMP/$1.err" >"$TMP/$1.rest"
	[ -s "$TMP/$1.rest" ] && fail "$1: stderr: $(cat "$TMP/$1.rest")"
	return 0
}
same() {	# A B: byte-identical outputs
	cmp -s "$TMP/$1.out" "$TMP/$2.out" ||
		fail "$1 and $2 differ: $(diff -u "$TMP/$1.out" "$TMP/$2.out")"
}

# --- a miss, then a hit, with the output of --no-cache
stream "$TMP/pie" sym_outer 24 sym_leaf 3 sym_work 4 >"$TMP/a.in"
nframes=$(grep -c '^frame' "$TMP/a.in")
run ref --no-cache "$TMP/a.in"
stats ref "0 hits, 0 misses, 1 files opened, 0 cache files written"
[ -e "$CDIR" ] && fail "--no-cache made $CDIR"
grep -q '	1	i	-	.*sym_elf.c:[0-9]*	sym_inl$' "$TMP/ref.out" ||
	fail "no inlined frame to cache: $(grep symbol "$TMP/ref.out")"
run miss "$TMP/a.in"
same ref miss
quiet miss
stats miss "0 hits, $nframes misses, 1 files opened, 1 cache files written"
[ "$(ls "$CDIR" | wc -l)" -eq 1 ] || fail "cache files: $(ls "$CDIR")"
id=$(readelf -n "$TMP/pie" | sed -n 's/.*Build ID: //p')
ls "$CDIR" | grep -q "^$id-[0-9a-f]\{16\}\$" ||
	fail "cache file not named by the build id $id: $(ls "$CDIR")"
cfile=$CDIR/$(ls "$CDIR")
run hit "$TMP/a.in"
same ref hit
quiet hit
stats hit "$nframes hits, 0 misses, 0 files opened, 0 cache files written"
# A copy of the file under another name is the same build id and the
# same bytes: still a hit.  The cache file records the copy's identity
# (one write, the copy hashed once), so the next run only compares it.
cp "$TMP/pie" "$TMP/pie2"
sed "/^module/ { s|$TMP/pie\$|$TMP/pie2|; s|	[0-9]*	user	|	$(stat -c %i "$TMP/pie2")	user	|; }" \
	"$TMP/a.in" >"$TMP/a2.in"
run hit2 "$TMP/a2.in"
quiet hit2
stats hit2 "$nframes hits, 0 misses, 0 files opened, 1 cache files written"
run hit3 "$TMP/a2.in"
stats hit3 "$nframes hits, 0 misses, 0 files opened, 0 cache files written"
run hit4 "$TMP/a.in"
stats hit4 "$nframes hits, 0 misses, 0 files opened, 0 cache files written"
grep '^symbol' "$TMP/ref.out" >"$TMP/ref.sym"
grep '^symbol' "$TMP/hit2.out" | diff -u "$TMP/ref.sym" - ||
	fail "another path to the same file"
# A run with more addresses adds them to the file.
stream "$TMP/pie" sym_outer 24 sym_leaf 3 sym_work 4 sym_local 2 >"$TMP/b.in"
run more "$TMP/b.in"
stats more "$nframes hits, 2 misses, 1 files opened, 1 cache files written"
run more2 "$TMP/b.in"
stats more2 "$((nframes + 2)) hits, 0 misses, 0 files opened, 0 cache files written"

# --- options that change names get their own results
for opt in --no-inline --no-lines --no-demangle --raw-names --no-params; do
	run "ref$opt" --no-cache $opt "$TMP/a.in"
	run "miss$opt" $opt "$TMP/a.in"
	run "hit$opt" $opt "$TMP/a.in"
	same "ref$opt" "miss$opt"
	same "ref$opt" "hit$opt"
	stats "hit$opt" "$nframes hits, 0 misses, 0 files opened, 0 cache files written"
done
cmp -s "$TMP/ref.out" "$TMP/ref--no-inline.out" &&
	fail "--no-inline changed nothing: the test proves nothing"

# --- a debug file installed after a run: resolved afresh, with lines
cp "$TMP/pie" "$TMP/stripped"
strip --strip-debug "$TMP/stripped" # names, but no lines

mkdir -p "$TMP/dbg"
stream "$TMP/pie" sym_leaf 2 sym_local 2 |
	sed "/^module/ s|	[0-9]*	user	.*|	$(stat -c %i "$TMP/stripped")	user	$TMP/stripped|" \
	>"$TMP/d.in"
run dbg1 --debug-dir "$TMP/dbg" "$TMP/d.in"
quiet dbg1
stats dbg1 "0 hits, 4 misses, 1 files opened, 1 cache files written"
grep -q '	sym_local$' "$TMP/dbg1.out" || fail "no sym_local from .symtab"
grep -q 'sym_elf.c' "$TMP/dbg1.out" && fail "lines without a debug file"
d=$TMP/dbg/.build-id/$(echo "$id" | cut -c1-2)
mkdir -p "$d"
objcopy --only-keep-debug "$TMP/pie" "$d/$(echo "$id" | cut -c3-).debug"
run dbg-ref --no-cache --debug-dir "$TMP/dbg" "$TMP/d.in"
run dbg2 --debug-dir "$TMP/dbg" "$TMP/d.in"
same dbg-ref dbg2
grep -q '	0x0	.*sym_elf.c:[0-9]*	sym_local$' "$TMP/dbg2.out" ||
	fail "debug file not used: $(grep symbol "$TMP/dbg2.out")"
run dbg3 --debug-dir "$TMP/dbg" "$TMP/d.in"
stats dbg3 "4 hits, 0 misses, 0 files opened, 0 cache files written"

# --- a corrupt, then a truncated cache file: one warning, rebuilt
[ "$(ls "$CDIR" | grep -c "^$id-")" -eq 8 ] ||
	fail "not one file per option set and debug file: $(ls "$CDIR")"
printf 'garbage' | dd of="$cfile" bs=1 seek=40 conv=notrunc 2>/dev/null
for how in corrupt truncated; do
	[ $how = truncated ] && truncate -s 30 "$cfile"
	run $how "$TMP/a.in"
	same ref $how
	grep -v '^sp-symbolize: \(cache\|kept\): ' "$TMP/$how.err" >"$TMP/$how.warn"
	one_error sp-symbolize "$TMP/$how.warn"
	grep -q "corrupt cache file ignored" "$TMP/$how.warn" ||
		fail "$how: warning: $(cat "$TMP/$how.warn")"
	stats $how "0 hits, $nframes misses, 1 files opened, 1 cache files written"
	run "$how-again" "$TMP/a.in"
	quiet "$how-again"
	same ref "$how-again"
	stats "$how-again" "$nframes hits, 0 misses, 0 files opened, 0 cache files written"
done

# --- concurrent runs: every output right, the cache sound after them
export XDG_CACHE_HOME="$TMP/xdg-par"
stream "$TMP/pie" sym_outer 24 >"$TMP/p1.in"
stream "$TMP/pie" sym_work 12 >"$TMP/p2.in"
stream "$TMP/pie" sym_leaf 6 sym_local 6 >"$TMP/p3.in"
for i in 1 2 3; do run "pref$i" --no-cache "$TMP/p$i.in"; done
pids=
for i in 1 2 3 4 5 6; do
	j=$(( (i - 1) % 3 + 1 ))
	"$SP_SYMBOLIZE" "$TMP/p$j.in" >"$TMP/par$i.out" 2>"$TMP/par$i.err" &
	pids="$pids $!"
done
for p in $pids; do wait "$p" || fail "a concurrent run failed"; done
for i in 1 2 3 4 5 6; do
	j=$(( (i - 1) % 3 + 1 ))
	same "pref$j" "par$i"
	quiet "par$i"
done
ls "$XDG_CACHE_HOME/stackpulse" | grep -q '\.tmp\.' &&
	fail "temporary files left: $(ls "$XDG_CACHE_HOME/stackpulse")"
for i in 1 2 3; do
	run "after$i" "$TMP/p$i.in"
	quiet "after$i"
	same "pref$i" "after$i"
done
# Whatever was lost in a race, the sequential runs filled it in.
run after-all "$TMP/p3.in"
stats after-all "12 hits, 0 misses, 0 files opened, 0 cache files written"

# --- least recently used files go when the cache outgrows its bound
export XDG_CACHE_HOME="$TMP/xdg-lru"
L=$XDG_CACHE_HOME/stackpulse
stream "$TMP/nopie" sym_outer 24 >"$TMP/n.in"
stream "$TMP/libsym.so" sym_outer 24 >"$TMP/l.in"
run lru1 "$TMP/a.in"
run lru2 "$TMP/n.in"
size_a=$(stat -c %s "$L"/$id-*)
nid=$(readelf -n "$TMP/nopie" | sed -n 's/.*Build ID: //p')
lid=$(readelf -n "$TMP/libsym.so" | sed -n 's/.*Build ID: //p')
size_n=$(stat -c %s "$L"/$nid-*)
touch -d '2001-01-01' "$L"/$id-*
touch -d '2002-01-01' "$L"/$nid-*
# Room for the two newest files only, the third one included.
run lru3l --no-cache "$TMP/l.in"
XDG_CACHE_HOME=$TMP/xdg-size "$SP_SYMBOLIZE" "$TMP/l.in" >/dev/null 2>&1 ||
	fail "a run in another cache failed"
size_l=$(stat -c %s "$TMP/xdg-size/stackpulse/$lid"-*)
run lru3 --cache-size $((size_n + size_l)) "$TMP/l.in"
same lru3l lru3
[ -e "$(ls "$L"/$id-* 2>/dev/null)" ] &&
	fail "the least recently used file stayed: $(ls -l "$L")"
ls "$L"/$nid-* >/dev/null 2>&1 || fail "the second file went: $(ls -l "$L")"
ls "$L"/$lid-* >/dev/null 2>&1 || fail "the new file went: $(ls -l "$L")"
# Using a file makes it recent: now the other old one goes.
touch -d '2001-01-01' "$L"/$nid-* "$L"/$lid-*
run lru4 "$TMP/l.in"
stats lru4 "24 hits, 0 misses, 0 files opened, 0 cache files written"
export SP_SYMBOLIZE_CACHE_SIZE=$((size_a + size_l))
run lru5 "$TMP/a.in"
unset SP_SYMBOLIZE_CACHE_SIZE
same ref lru5
ls "$L"/$nid-* >/dev/null 2>&1 && fail "not the least recent file went"
ls "$L"/$lid-* >/dev/null 2>&1 || fail "the recently used file went"
[ "$(cat "$L"/* | wc -c)" -le $((size_a + size_l)) ] || fail "over the bound"
"$SP_SYMBOLIZE" --cache-size 12Q "$TMP/a.in" >/dev/null 2>&1
[ $? -eq 2 ] || fail "--cache-size 12Q: not a usage error"

# --- a live stream: results saved while it waits, before it ends
export XDG_CACHE_HOME="$TMP/xdg-live"
mkfifo "$TMP/fifo"
"$SP_SYMBOLIZE" <"$TMP/fifo" 2>"$TMP/live.err" | cat >"$TMP/live.out" &
exec 3>"$TMP/fifo"
grep -v '^frame' "$TMP/a.in" >&3
grep '^frame' "$TMP/a.in" | head -n 1 >&3
sleep 3 # past the save interval (2 s)
grep '^frame' "$TMP/a.in" | sed -n 2p >&3
i=0
until ls "$XDG_CACHE_HOME/stackpulse/$id"-* >/dev/null 2>&1; do
	i=$((i + 1))
	[ $i -gt 50 ] && fail "a waiting live stream saved nothing"
	sleep 0.1
done
grep '^frame' "$TMP/a.in" | tail -n +3 >&3
exec 3>&-
wait || fail "live run: exit $?"
quiet live
cmp -s "$TMP/ref.out" "$TMP/live.out" || fail "live run output differs"
run live-after "$TMP/a.in"
stats live-after "$nframes hits, 0 misses, 0 files opened, 0 cache files written"

# --- a binary replaced at the same path by another build id
export XDG_CACHE_HOME="$TMP/xdg-swap"
cp "$TMP/pie" "$TMP/app"
stream "$TMP/app" sym_outer 4 sym_leaf 2 >"$TMP/s1.in"
run swap1 "$TMP/s1.in"
grep -q '	sym_leaf$' "$TMP/swap1.out" || fail "no sym_leaf before"
cc_prog app.new sym_elf.c -O2 -g -fPIE -pie -Dsym_leaf=new_leaf \
	-Dsym_outer=new_outer
mv "$TMP/app.new" "$TMP/app"
[ "$(readelf -n "$TMP/app" | sed -n 's/.*Build ID: //p')" != "$id" ] ||
	fail "the replacement has the same build id"
stream "$TMP/app" new_outer 4 new_leaf 2 >"$TMP/s2.in"
# The same file offsets as before, now in new_outer and new_leaf.
[ "$(grep '^frame' "$TMP/s1.in" | cut -f 6)" = \
  "$(grep '^frame' "$TMP/s2.in" | cut -f 6)" ] ||
	skip "the renamed build moved the functions"
run swap-ref --no-cache "$TMP/s2.in"
run swap2 "$TMP/s2.in"
same swap-ref swap2
grep -q '	new_leaf$' "$TMP/swap2.out" || fail "no new_leaf after"
grep -q '	sym_leaf$' "$TMP/swap2.out" && fail "old names after the swap"
stats swap2 "0 hits, 6 misses, 1 files opened, 1 cache files written"

# --- kernel frames: core text cached per boot, the rest never
export XDG_CACHE_HOME="$TMP/xdg-kernel"
vfs=$(awk '$3 == "vfs_read" && $2 ~ /^[Tt]$/ && NF == 3 { print $1; exit }' \
	/proc/kallsyms 2>/dev/null)
case $vfs in
'' | *[!0]*) ;;
*) vfs= ;; # addresses hidden from this user
esac
if [ -n "$vfs" ]; then
	# Shell arithmetic is signed 64-bit: add to the low half only.
	hi=${vfs%????????} lo=${vfs#"${vfs%????????}"}
	[ $((0x$lo + 17)) -lt $((0x100000000)) ] || skip "vfs_read at a carry"
	{
		printf 'spool\t1\t0\t1000\n'
		printf 'frame\t0\tkernel\t0x%s%08x\t-\t-\n' "$hi" $((0x$lo + 4))
		printf 'frame\t1\tkernel\t0x%s%08x\t-\t-\n' "$hi" $((0x$lo + 9))
		printf 'frame\t2\tkernel\t0xfffffffffffff000\t-\t-\n'
	} >"$TMP/k.in"
	run kref --no-cache "$TMP/k.in"
	grep -q '	k	0x4	-	vfs_read+0x4$' "$TMP/kref.out" ||
		fail "no vfs_read+0x4: $(cat "$TMP/kref.out")"
	run k1 "$TMP/k.in"
	run k2 "$TMP/k.in"
	same kref k1
	same kref k2
	quiet k2
	# The unresolved address is not cached: it may name a BPF program
	# or a module later in this boot.
	stats k2 "2 hits, 0 misses, 0 files opened, 0 cache files written"
	# The first run kept a copy of the kernel image's symbols for this
	# boot; a later run that needs symbols of the image reads the copy,
	# not /proc/kallsyms, and names frames the same.  (k2's address
	# past every symbol still needs /proc/kallsyms: the copy does not
	# know what modules or BPF programs are there now.)
	ks() { sed -n 's/.*kernel symbols read from //p' "$TMP/$1.err"; }
	[ "$(ks k1)" = "/proc/kallsyms 1, from the cache 0" ] ||
		fail "k1: $(ks k1)"
	copy=$(ls "$XDG_CACHE_HOME"/stackpulse/*.kallsyms1) ||
		fail "no kallsyms copy in $XDG_CACHE_HOME/stackpulse"
	{
		printf 'spool\t1\t0\t1000\n'
		printf 'frame\t0\tkernel\t0x%s%08x\t-\t-\n' "$hi" $((0x$lo + 13))
	} >"$TMP/k4.in"
	run k4ref --no-cache "$TMP/k4.in"
	run k4 "$TMP/k4.in"
	same k4ref k4
	quiet k4
	[ "$(ks k4)" = "/proc/kallsyms 0, from the cache 1" ] ||
		fail "k4: $(ks k4)"
	# A damaged copy: one warning, the right names, rebuilt.
	printf 'ffffffff81000000 T a\nnot kallsyms\n' >"$copy"
	printf 'spool\t1\t0\t1000\nframe\t0\tkernel\t0x%s%08x\t-\t-\n' \
		"$hi" $((0x$lo + 17)) >"$TMP/k5.in"
	run k5ref --no-cache "$TMP/k5.in"
	run k5 "$TMP/k5.in"
	same k5ref k5
	grep -q "corrupt copy of the kernel's symbols ignored" "$TMP/k5.err" ||
		fail "k5: no warning: $(cat "$TMP/k5.err")"
	[ "$(ks k5)" = "/proc/kallsyms 1, from the cache 0" ] ||
		fail "k5: $(ks k5)"
	grep -q ' vfs_read$' "$copy" || fail "the copy was not rebuilt"
	# A recording from another kernel does not use this one's cache.
	sed '1a host\trelease=0.0.0-elsewhere' "$TMP/k.in" >"$TMP/k2.in"
	run k3ref --no-cache "$TMP/k2.in"
	run k3 "$TMP/k2.in"
	same k3ref k3
	stats k3 "0 hits, 0 misses, 0 files opened, 0 cache files written"
	grep -q 'vfs_read' "$TMP/k3.out" && fail "another kernel's frames named"
fi
exit 0

#!/bin/sh
# sp-archive: a spool and the module files its samples need, in one file
# that symbolizes on a machine without those files (perf archive's job):
#
#   sp-archive [-o BUNDLE] SPOOL         writes BUNDLE (SPOOL.tar.gz)
#   sp-archive -x BUNDLE [-C DIR]        checks and extracts it, then says
#   sp-dump DIR/SPOOL | sp-symbolize --debug-dir DIR | sp-fold
#
# A bundle is a gzip'd tar of plain files: MANIFEST (what each member is
# and its SHA-256), the spool, kallsyms when kernel frames were sampled,
# .build-id/xx/rest.debug for build id xxrest: the module's separate debug
# file when one was found, with the module file as .build-id/xx/rest (as
# gdb and perf lay them out), else the module file itself, which is where
# sp-symbolize's --debug-dir looks for a module whose file is gone, and
# perf-PID.map and jit-PID.dump for JIT processes (--perf-map-dir).  Files
# are copied before they are checked, so what is checked is what is
# stored; the tools stay the interface.
me=sp-archive
version="@VERSION@"

usage() {
	cat <<'EOF'
usage: sp-archive [-o BUNDLE] [--max-file SIZE] [--max-total SIZE] SPOOL
       sp-archive -x BUNDLE [--max-file SIZE] [--max-total SIZE] [-C DIR]
Bundles a spool with the module files, debug files, kernel symbols and
JIT perf maps its samples need, so that it symbolizes elsewhere;
-x checks and extracts a bundle and prints the command that symbolizes
it.

  -o, --output BUNDLE   where the bundle goes (SPOOL.tar.gz)
      --max-file SIZE   store (or with -x extract) no file larger than
                        SIZE (1G; K, M, G)
      --max-total SIZE  store (or extract) at most SIZE of files in all (4G)
      --capture-dir DIR the module files sp-record kept by build id
                        (its --capture-dir: the symbol cache's folder)
  -x, --extract BUNDLE  check BUNDLE's members and extract them
  -C, --directory DIR   extract into DIR (made if missing; .), a
                        folder that only you and root can change
  -h, --help            this help
      --version         the version
A file is stored only when it is a regular file, no symbolic link, and
its build id is the one recorded; a module gone from its path or
replaced there is taken from the copy sp-record kept.  See sp-archive(1).
EOF
}

die() {		# STATUS MESSAGE
	echo "$me: $2" >&2
	exit "$1"
}

warn() {
	echo "$me: $1" >&2
}

usage_error() {
	echo "$me: $1" >&2
	echo "usage: sp-archive [-o BUNDLE] [--max-file SIZE] [--max-total SIZE] SPOOL" >&2
	echo "       sp-archive -x BUNDLE [--max-file SIZE] [--max-total SIZE] [-C DIR]" >&2
	echo "Try 'sp-archive --help'." >&2
	exit 2
}

need_value() {	# OPTION ARGC
	[ "$2" -ge 2 ] || usage_error "option '$1' requires an argument"
}

# bytes OPTION SIZE: SIZE in bytes (K, M, G are powers of 1024).
bytes() {
	case $2 in
	"" | *[!0-9KMG]* | [KMG]* | *[KMG]?*)
		usage_error "bad size for $1: '$2' (a number, with K, M or G)" ;;
	*K) echo $((${2%K} * 1024)) ;;
	*M) echo $((${2%M} * 1048576)) ;;
	*G) echo $((${2%G} * 1073741824)) ;;
	*) echo $(($2)) ;;
	esac
}

# The tools beside this script (build/ or an installed bin/), else PATH.
here=$(dirname "$0")
tool() {
	if [ -x "$here/$1" ]; then echo "$here/$1"; else echo "$1"; fi
}
SP_DUMP=${SP_DUMP:-$(tool sp-dump)}

out="" extract="" dir="" max_file=1073741824 max_total=4294967296
# sp-record's --capture-dir default (common/cachedir.c): a relative
# XDG_CACHE_HOME is ignored, as the XDG base directory spec says.
case ${XDG_CACHE_HOME:-} in
/*) capdir=$XDG_CACHE_HOME/stackpulse ;;
*) capdir=${HOME:+$HOME/.cache/stackpulse} ;;
esac
while [ $# -gt 0 ]; do
	case $1 in
	-h | --help) usage; exit 0 ;;
	--version) echo "sp-archive $version"; exit 0 ;;
	-o | --output) need_value "$1" $#; out=$2; shift 2 ;;
	--output=*) out=${1#*=}; shift ;;
	-o?*) out=${1#-o}; shift ;;
	-x | --extract) need_value "$1" $#; extract=$2; shift 2 ;;
	--extract=*) extract=${1#*=}; shift ;;
	-x?*) extract=${1#-x}; shift ;;
	-C | --directory) need_value "$1" $#; dir=$2; shift 2 ;;
	--directory=*) dir=${1#*=}; shift ;;
	-C?*) dir=${1#-C}; shift ;;
	--max-file) need_value "$1" $#; max_file=$(bytes "$1" "$2") || exit 2
		shift 2 ;;
	--max-file=*) max_file=$(bytes --max-file "${1#*=}") || exit 2; shift ;;
	--max-total) need_value "$1" $#
		max_total=$(bytes "$1" "$2") || exit 2; shift 2 ;;
	--max-total=*) max_total=$(bytes --max-total "${1#*=}") || exit 2
		shift ;;
	--capture-dir) need_value "$1" $#; capdir=$2; shift 2 ;;
	--capture-dir=*) capdir=${1#*=}; shift ;;
	--) shift; break ;;
	-?*) usage_error "unrecognized option '$1'" ;;
	*) break ;;
	esac
done
if [ -n "$extract" ]; then
	[ $# -eq 0 ] || usage_error "-x takes no spool: '$1'"
	[ -z "$out" ] || usage_error "-o is for writing a bundle, not -x"
else
	[ -z "$dir" ] || usage_error "-C is for -x"
	[ $# -eq 1 ] || usage_error "give one spool"
fi

# quote WORD: WORD as the shell reads it back, quoted only when needed.
quote() {
	case $1 in
	"" | *[!A-Za-z0-9_./:=+-]*)
		_q=$(printf '%s.' "$1" | sed "s/'/'\\\\''/g")
		printf "'%s'" "${_q%.}" ;;
	*) printf '%s' "$1" ;;
	esac
}

# buildid FILE: the GNU build id of ELF file FILE in hex, or nothing.
buildid() {
	LC_ALL=C readelf -n "$1" 2>/dev/null |
		awk '$1 == "Build" && $2 == "ID:" { print $3; exit }'
}

# sha FILE: FILE's SHA-256 in hex.
sha() {
	sha256sum <"$1" | cut -d' ' -f1
}

# ------------------------------------------------------------ writing

# The modules the samples' frames use, from sp-dump's text on stdin: one
# "BUILDID<tab>PATH" line each (paths escaped as sp-records(5) says), and
# "kernel<tab>HOST" when a kernel frame was sampled, HOST the fields of
# the spool's host record.  Stacks are followed from the
# samples, so modules whose code no sample ran are left out.  A process
# with sampled frames in code without an ELF file (a JIT's: no module,
# or an anonymous, memfd or perf-map one) gets a "jit<tab>PID" line, and
# "jitdump<tab>PID<tab>PATH" for a jitdump it mapped, and then one
# "jitkey<tab>BOOTID-START_US" line: the spool's host boot id and start,
# by which sp-record named its copies of those files (sp-record(1)).
used_modules() {
	awk -F'\t' '
	function jitcode(p) {
		return p == "" || p ~ /^\[anon/ || p ~ /^\/\/anon/ ||
		    p ~ /^\/(anon_hugepage|dev\/zero|SYSV|memfd:)/ ||
		    p ~ /\/perf-[0-9]+\.map$/
	}
	$1 == "spool" { start = $3 }
	$1 == "host" {
		host = $0; sub(/^host\t/, "", host)
		for (i = 2; i <= NF; i++)
			if ($i ~ /^bootid=[0-9a-f-]+$/)
				boot = substr($i, 8)
	}
	$1 == "module" {
		mpath[$2] = $9; mkind[$2] = $8; mpid[$2] = $3; nmod = $2 + 1
		if ($9 ~ /\/jit-[0-9]+\.dump$/)
			dump[$3] = $9
	}
	$1 == "buildid" { mbid[$2] = $3 }
	$1 == "frame" { fmod[$2] = $5; ftype[$2] = $3 }
	$1 == "pframe" && $4 != "-" { pmod[$2] = pmod[$2] " " $4 }
	$1 == "pframe" && $4 == "-" { ppid[$2] = ppid[$2] " " $3 }
	$1 == "stack" { prefix[$2] = $3; sframe[$2] = $4 }
	$1 == "sample" {
		for (s = $5; s != "-" && !(s in seen); s = prefix[s]) {
			seen[s] = 1
			used[sframe[s]] = 1
		}
	}
	END {
		for (f in used) {
			if (ftype[f] == "kernel")
				kernel = 1
			if (fmod[f] != "-" && fmod[f] != "")
				mod[fmod[f]] = 1
			n = split(pmod[f], p, " ")
			for (i = 1; i <= n; i++)
				mod[p[i]] = 1
			if (ftype[f] == "kernel" || (fmod[f] != "-" && fmod[f] != ""))
				continue
			n = split(ppid[f], p, " ")
			for (i = 1; i <= n; i++)
				jit[p[i]] = 1
		}
		for (m in mod)
			if (mkind[m] != "kernel" && jitcode(mpath[m]))
				jit[mpid[m]] = 1
		for (pid in jit) {
			njit++
			print "jit\t" pid
			if (pid in dump)
				print "jitdump\t" pid "\t" dump[pid]
		}
		if (njit)
			print "jitkey\t" (boot == "" ? "unknown" : boot) "-" start
		if (kernel)
			print "kernel\t" host
		for (m = 0; m < nmod; m++) {
			if (!(m in mod) || mkind[m] == "kernel" || mpath[m] ~ /^\[/ ||
			    jitcode(mpath[m]))
				continue
			if (!(m in mbid))
				print "-\t" mpath[m]
			else if (!((mbid[m] "\t" mpath[m]) in out)) {
				out[mbid[m] "\t" mpath[m]] = 1
				print mbid[m] "\t" mpath[m]
			}
		}
	}'
}

# take SRC DEST: copies regular file SRC to DEST (never a link, a FIFO,
# a device: those are not opened), at most --max-file bytes and within
# --max-total; returns 1 after a warning when it will not.
total=0
take() {
	if [ ! -e "$1" ] && [ ! -L "$1" ]; then
		warn "'$1': no such file; not stored"
		return 1
	fi
	if [ -L "$1" ] || [ "$(readlink -f -- "$1")" != "$1" ]; then
		warn "'$1': a symbolic link on its path; not stored"
		return 1
	fi
	if [ ! -f "$1" ]; then
		warn "'$1': not a regular file; not stored"
		return 1
	fi
	# nonblock: a FIFO put there since the test is not waited on.
	if ! dd if="$1" of="$2" bs=65536 iflag=nofollow,nonblock,count_bytes \
		count=$((max_file + 1)) status=none 2>"$work/dd.err"; then
		warn "'$1': $(sed 's/^dd: //' "$work/dd.err" | head -n 1); not stored"
		rm -f "$2"
		return 1
	fi
	_n=$(wc -c <"$2")
	if [ "$_n" -gt "$max_file" ]; then
		warn "'$1': larger than --max-file ($max_file bytes); not stored"
		rm -f "$2"
		return 1
	fi
	if [ $((total + _n)) -gt "$max_total" ]; then
		warn "'$1': $_n bytes more would pass --max-total ($max_total bytes); not stored"
		rm -f "$2"
		return 1
	fi
	total=$((total + _n))
}

# debug_candidates FILE ID: where FILE's separate debug file may be, as
# sp-symbolize looks: by build id, then by FILE's .gnu_debuglink.
debug_candidates() {
	echo "/usr/lib/debug/.build-id/$(echo "$2" | cut -c1-2)/$(echo "$2" | cut -c3-).debug"
	_link=$(LC_ALL=C readelf -p .gnu_debuglink "$work/copy" 2>/dev/null |
		awk '/^ *\[ *0\]  / { sub(/^ *\[ *0\]  /, ""); print; exit }')
	case $_link in "" | */* | *[![:print:]]*) return ;; esac
	_d=$(dirname "$1")
	echo "$_d/$_link"
	echo "$_d/.debug/$_link"
	echo "/usr/lib/debug$_d/$_link"
}

# store ID PATH: puts the module file PATH of build id ID, and its debug
# file if there is one, under .build-id/; returns 1 when nothing went in.
# A module gone from its path, or another build there, is taken from the
# copy sp-record kept by build id (a container's binary, a deleted or
# rebuilt one), when there is one of the running user's.
nfiles=0 ndebug=0 nkept=0
store() {
	_id=$1 _path=$2
	_rel=.build-id/$(echo "$_id" | cut -c1-2)/$(echo "$_id" | cut -c3-).debug
	_src=$_path
	_kept=${capreal:+$capreal/${_rel%.debug}}
	if [ -n "$_kept" ] && [ -f "$_kept" ] && [ ! -L "$_kept" ] && [ -O "$_kept" ] &&
		! { [ -f "$_path" ] && [ "$(buildid "$_path")" = "$_id" ]; }; then
		_src=$_kept
	fi
	take "$_src" "$work/copy" || return 1
	_have=$(buildid "$work/copy")
	if [ "$_have" != "$_id" ]; then
		warn "'$_src': build id ${_have:-(none)} differs from recorded $_id; not stored"
		total=$((total - $(wc -c <"$work/copy")))
		rm -f "$work/copy"
		return 1
	fi
	mkdir -p "$stage/${_rel%/*}" || die 1 "cannot write in '$stage'"
	debug_candidates "$_path" "$_id" >"$work/cands"
	while IFS= read -r _c; do
		[ "$_c" != "$_path" ] && [ -e "$_c" ] || continue
		# /usr/lib/debug's build-id links point into /usr/lib/debug
		case $_c in /usr/lib/debug/*)
			_r=$(readlink -f -- "$_c")
			case $_r in /usr/lib/debug/*) _c=$_r ;; esac ;;
		esac
		take "$_c" "$stage/$_rel" || continue
		if [ "$(buildid "$stage/$_rel")" = "$_id" ]; then
			printf 'debug\t%s\t%s\t%s\n' "$(sha "$stage/$_rel")" \
				"$_rel" "$_c" >>"$stage/MANIFEST"
			ndebug=$((ndebug + 1))
			break
		fi
		warn "'$_c': not the debug file of build id $_id; not stored"
		total=$((total - $(wc -c <"$stage/$_rel")))
		rm -f "$stage/$_rel"
	done <"$work/cands"
	[ -f "$stage/$_rel" ] && _rel=${_rel%.debug}
	mv "$work/copy" "$stage/$_rel" || die 1 "cannot write in '$stage'"
	printf 'elf\t%s\t%s\t%s\n' "$(sha "$stage/$_rel")" "$_rel" "$_src" \
		>>"$stage/MANIFEST"
	nfiles=$((nfiles + 1))
	[ "$_src" = "$_path" ] || nkept=$((nkept + 1))
}

# kallsyms HOST: stores /proc/kallsyms when this is the recording's
# kernel (release and boot id of HOST, the spool's host record) and its
# addresses are shown.
kallsyms() {
	_rel=$(printf '%s\n' "$1" | tr '\t' '\n' | sed -n 's/^release=//p')
	_boot=$(printf '%s\n' "$1" | tr '\t' '\n' | sed -n 's/^bootid=//p')
	if [ "$_rel" != "$(uname -r)" ] ||
		[ "$_boot" != "$(cat /proc/sys/kernel/random/boot_id 2>/dev/null)" ]; then
		warn "kernel frames: the spool comes from another kernel or boot; kallsyms not stored"
		return
	fi
	if ! cat /proc/kallsyms >"$stage/kallsyms" 2>/dev/null ||
		! grep -q -v '^0000000000000000 ' "$stage/kallsyms"; then
		warn "kernel frames: /proc/kallsyms shows no addresses here (kernel.kptr_restrict); not stored"
		rm -f "$stage/kallsyms"
		return
	fi
	printf 'kallsyms\t%s\tkallsyms\t/proc/kallsyms\n' \
		"$(sha "$stage/kallsyms")" >>"$stage/MANIFEST"
}

# jit_files PID: stores the perf map /tmp/perf-PID.map and the jitdump
# of process PID (the one it mapped, else /tmp/jit-PID.dump), which name
# its JIT code, when they are of root or of the running user (as
# sp-symbolize trusts them); says so when neither is there.  The copy
# sp-record kept of each (DIR/.jit/BOOTID-START_US-PID.map, .dump) is
# taken first, as sp-symbolize does: /tmp may have been cleaned since, or
# hold another process's file of the same pid.
jit_files() {
	_dump=$(awk -F'\t' -v p="$1" '$1 == "jitdump" && $2 == p { print $3; exit }' \
		"$work/mods")
	case $_dump in *\\*) _dump="" ;; esac
	_map=/tmp/perf-$1.map _dump=${_dump:-/tmp/jit-$1.dump}
	if [ -n "$jitdir" ]; then
		_kept=$jitdir/$jitkey-$1
		[ -f "$_kept.map" ] && [ -O "$_kept.map" ] && _map=$_kept.map
		[ -f "$_kept.dump" ] && [ -O "$_kept.dump" ] && _dump=$_kept.dump
	fi
	_n=0
	for _f in "$_map" "$_dump"; do
		[ -e "$_f" ] || [ -L "$_f" ] || continue
		_m=perf-$1.map _k=perfmap
		case $_f in *.dump) _m=jit-$1.dump _k=jitdump ;; esac
		if ! [ -O "$_f" ] && [ "$(stat -L -c %u -- "$_f" 2>/dev/null)" != 0 ]; then
			warn "'$_f': neither root's nor yours; not stored"
			continue
		fi
		take "$_f" "$stage/$_m" || continue
		printf '%s\t%s\t%s\t%s\n' "$_k" "$(sha "$stage/$_m")" "$_m" "$_f" \
			>>"$stage/MANIFEST"
		_n=$((_n + 1))
	done
	[ $_n -gt 0 ] ||
		warn "process $1: no perf map or jitdump; its JIT frames keep their addresses"
}

write_bundle() {
	spool=$1
	[ -n "$out" ] || out=$spool.tar.gz
	[ -e "$spool" ] || die 1 "'$spool': no such file"
	[ -f "$spool" ] || die 1 "'$spool': not a regular file"
	name=$(basename "$spool")
	case $name in
	MANIFEST | kallsyms | .* | *[!A-Za-z0-9._+-]*) name=x.spool ;;
	esac
	work=$(mktemp -d "$(dirname "$out")/.sp-archive.XXXXXX") ||
		die 1 "cannot make a directory beside '$out'"
	trap 'rm -rf "$work"' EXIT
	trap 'exit 1' INT TERM HUP
	work=$(cd "$work" && pwd) || die 1 "cannot enter '$work'"
	stage=$work/b
	mkdir "$stage" || die 1 "cannot write in '$work'"
	{ "$SP_DUMP" "$spool"; echo $? >"$work/dump.rc"; } |
		used_modules >"$work/mods"
	[ "$(cat "$work/dump.rc")" = 0 ] ||
		die 1 "'$spool': sp-dump cannot read it"
	printf 'sp-archive\t1\n' >"$stage/MANIFEST"
	cat "$spool" >"$stage/$name" || die 1 "cannot write in '$stage'"
	printf 'spool\t%s\t%s\t%s\n' "$(sha "$stage/$name")" "$name" "$spool" \
		>>"$stage/MANIFEST"
	if grep -q '^kernel	' "$work/mods"; then
		kallsyms "$(sed -n 's/^kernel	//p' "$work/mods")"
	fi
	# The kept tree by its real path: take() refuses a path through a
	# link, and ~/.cache may be one.
	capreal=""
	[ -n "$capdir" ] && [ -d "$capdir/.build-id" ] &&
		capreal=$(cd -P "$capdir" 2>/dev/null && pwd -P)
	: >"$work/done"
	while IFS='	' read -r id path; do
		case $id in kernel | jit | jitdump | jitkey) continue ;; esac
		case $id in
		-) warn "'$path': no build id recorded; not stored"; continue ;;
		*[!0-9a-f]* | ? | ??) warn "'$path': bad build id '$id'"; continue ;;
		esac
		case $path in *\\*)
			warn "'$path': an escaped path; not stored"; continue ;;
		esac
		grep -qx "$id" "$work/done" && continue
		store "$id" "$path" && echo "$id" >>"$work/done"
	done <"$work/mods"
	# sp-record's copies of the JIT files, by the real path too.
	jitkey=$(sed -n 's/^jitkey	//p' "$work/mods")
	jitdir=""
	case $jitkey in *[!0-9a-z-]* | "") ;; *)
		[ -n "$capdir" ] && [ -d "$capdir/.jit" ] &&
			jitdir=$(cd -P "$capdir/.jit" 2>/dev/null && pwd -P) ;;
	esac
	grep '^jit	' "$work/mods" | while IFS='	' read -r _ pid; do
		jit_files "$pid"
	done
	njit=$(grep -c '^perfmap	\|^jitdump	' "$stage/MANIFEST")
	(cd "$stage" && find . -type f ! -name MANIFEST | sed 's|^\./||' | sort |
		tar -czf "$work/bundle" --owner=0 --group=0 --numeric-owner \
			--mode=u=rw,go=r,a+X MANIFEST -T -) ||
		die 1 "cannot write the bundle"
	mv "$work/bundle" "$out" || die 1 "cannot write '$out'"
	warn "wrote '$out': the spool, $nfiles module files$( [ $nkept -gt 0 ] && echo " ($nkept of them kept by sp-record)"), $ndebug debug files$( [ "$njit" -gt 0 ] && echo ", $njit JIT map$( [ "$njit" -gt 1 ] && echo s)")$( [ -f "$stage/kallsyms" ] && echo ", kallsyms"), $(wc -c <"$out") bytes"
}

# ------------------------------------------------------------ reading
#
# The bundle may be another user's, who can rewrite it while it is read,
# DIR or a folder on the way to it may be someone else's, and -x may run
# as root.  So the bundle is read through one open into a private
# folder, decompressed there, and only that copy is listed, checked and
# extracted; members are sized from the listing before a byte of them is
# written; and DIR is entered one name at a time, through folders and
# links that only the running user or root can change, after which
# every path is relative to it.

# Room for tar's own blocks beside the members' bytes in the bounded
# decompressed bundle: a header and a partial block for some 16000
# members.
tar_slack=16777216

# refuse MEMBER WHAT: the bundle is refused for MEMBER, nothing extracted.
refuse() {
	die 1 "'$extract': member '$1' is damaged: $2; nothing extracted"
}

# member NAME: whether NAME may be a member of a bundle.
member() {
	case $1 in
	.build-id/ | .build-id/[0-9a-f][0-9a-f]/) return 0 ;;
	.build-id/[0-9a-f][0-9a-f]/*)
		_h=${1#.build-id/??/}; _h=${_h%.debug}
		case $_h in "" | *[!0-9a-f]*) return 1 ;; esac
		return 0 ;;
	*/* | .* | *[!A-Za-z0-9._+-]*) return 1 ;;
	*) return 0 ;;
	esac
}

# safe_dir NAME: whether NAME, in the current folder and not followed
# when a link, is a folder that only the running user and root can
# change; when not, $_why says why.  It must be theirs, and writable by
# no one else: not by everyone, nor by a group other than the user's
# own, unless it is sticky (as /tmp is), where no one renames or
# replaces what is not theirs.
safe_dir() {
	_why=""
	if [ -L "$1" ]; then
		_why="is a symbolic link"
	elif [ ! -d "$1" ]; then
		_why="is not a folder"
	elif ! _st=$(stat -c '%u %g %a' -- "$1"); then
		_why="cannot be read"
	else
		set -- $_st
		if [ "$1" != "$uid" ] && [ "$1" != 0 ]; then
			_why="is a folder of uid $1, not yours or root's"
		elif [ $((0$3 & 01000)) -ne 0 ]; then
			:
		elif [ $((0$3 & 02)) -ne 0 ]; then
			_why="is writable by everyone"
		elif [ $((0$3 & 020)) -ne 0 ] && [ "$2" != "$gid" ]; then
			_why="is writable by group $2"
		fi
	fi
	[ -z "$_why" ]
}

# mkdir_safe NAME: makes folder NAME writable by its owner only, whatever
# the umask; prints mkdir's complaint when it cannot.
mkdir_safe() {
	(umask "$(printf '%04o' $(($(umask) | 022)))" && mkdir -- "$1") 2>&1 |
		sed 's/^mkdir: //' | head -n 1
}

# enter PATH: changes into folder PATH (absolute), made when missing, one
# name at a time from /, following a symbolic link only when it is the
# running user's or root's, and only through folders safe_dir() accepts:
# once there, no one else can put another folder at any name on the
# way.  On failure $_at is the name and $_why what is wrong with it.
enter() {
	_rest=$1 _links=0
	while :; do
		case $_rest in /*)
			_at=/
			cd / || { _why="cannot be entered"; return 1; }
			safe_dir . || return 1
			while [ "${_rest#/}" != "$_rest" ]; do _rest=${_rest#/}; done
		esac
		[ -n "$_rest" ] || return 0
		_c=${_rest%%/*}
		case $_rest in */*) _rest=${_rest#*/} ;; *) _rest="" ;; esac
		[ "$_c" != . ] || continue
		_at=${PWD%/}/$_c
		if [ -L "$_c" ]; then
			_o=$(stat -c %u -- "$_c")
			if [ "$_o" != "$uid" ] && [ "$_o" != 0 ]; then
				_why="is a symbolic link of uid $_o, not yours or root's"
				return 1
			fi
			_links=$((_links + 1))
			[ $_links -le 40 ] || { _why="is one symbolic link too many"; return 1; }
			_rest=$(readlink -- "$_c")${_rest:+/$_rest}
			continue
		fi
		if [ ! -e "$_c" ]; then
			_why=$(mkdir_safe "$_c")
			[ -z "$_why" ] || { _why="cannot be made: $_why"; return 1; }
		fi
		safe_dir "$_c" || return 1
		cd -P -- "$_c" || { _why="cannot be entered"; return 1; }
	done
}

# unpack BUNDLE: BUNDLE read through one open (a FIFO put there since the
# test is not waited on), decompressed into $work/b.tar, bounded by
# --max-total and tar's blocks so that a gzip bomb stops there.
unpack() {
	_max=$((max_total + tar_slack))
	{ dd if="$1" iflag=nonblock bs=65536 status=none 2>"$work/dd.err"
		echo $? >"$work/dd.rc"; } |
		{ gzip -dc 2>"$work/gz.err"; echo $? >"$work/gz.rc"; } |
		head -c $((_max + 1)) >"$work/b.tar" ||
		die 1 "cannot write in '$dir'"
	[ "$(wc -c <"$work/b.tar")" -le "$_max" ] ||
		die 1 "'$extract': decompresses to more than --max-total ($max_total bytes) and $tar_slack bytes of tar blocks; nothing extracted"
	[ "$(cat "$work/dd.rc")" = 0 ] ||
		die 1 "'$extract': $(sed 's/^dd: //' "$work/dd.err" | head -n 1)"
	[ "$(cat "$work/gz.rc")" = 0 ] ||
		die 1 "'$extract': not a bundle: $(grep -m 1 . "$work/gz.err")"
}

# Checks what tar says is in the private copy: names, kinds (plain files
# and folders only), no name twice, and sizes: each within --max-file,
# all within --max-total (a sparse member counts its full size, which
# extracting it writes).
check_listing() {
	if ! tar -tf "$work/b.tar" >"$work/names" 2>"$work/tar.err"; then
		_last=$(tail -n 1 "$work/names")
		[ -n "$_last" ] || die 1 "'$extract': not a bundle: $(grep -m 1 . "$work/tar.err")"
		refuse "$_last" "$(grep -m 1 . "$work/tar.err")"
	fi
	LC_ALL=C tar -tvf "$work/b.tar" --numeric-owner 2>/dev/null |
		awk '{ print substr($1, 1, 1) "\t" $3 }' >"$work/kinds"
	[ "$(wc -l <"$work/kinds")" -eq "$(wc -l <"$work/names")" ] ||
		die 1 "'$extract': not a bundle: tar lists it two ways"
	paste "$work/kinds" "$work/names" | {
		_sum=0
		while IFS='	' read -r _t _s _n; do
			case $_t in -|d) ;;
			*) refuse "$_n" "not a plain file or folder ('$_t')" ;; esac
			member "$_n" || refuse "$_n" "not a name a bundle holds"
			[ "$_t" = - ] || continue
			case $_s in "" | *[!0-9]*) refuse "$_n" "no size ('$_s')" ;; esac
			if [ ${#_s} -gt 18 ] || [ "$_s" -gt "$max_file" ]; then
				die 1 "'$extract': member '$_n' is $_s bytes, more than --max-file ($max_file bytes); nothing extracted"
			fi
			_sum=$((_sum + _s))
			[ "$_sum" -le "$max_total" ] ||
				die 1 "'$extract': its members up to '$_n' are $_sum bytes, more than --max-total ($max_total bytes); nothing extracted"
		done
	} || exit 1
	_dup=$(sort "$work/names" | uniq -d | head -n 1)
	[ -z "$_dup" ] || refuse "$_dup" "stored twice"
	grep -qx MANIFEST "$work/names" || die 1 "'$extract': not a bundle: no MANIFEST"
}

# Extracts the private copy into the stage, no file past --max-file
# even were tar to write more than it listed, and checks that what came
# out is plain files and folders only, none a hard link.
extract_stage() {
	if ! (ulimit -f $(((max_file + 511) / 512)) 2>/dev/null
		exec tar -xf "$work/b.tar" -C "$stage" --no-same-owner \
			--no-same-permissions) 2>"$work/tar.err"; then
		die 1 "'$extract': damaged: $(grep -m 1 . "$work/tar.err" ||
			echo "tar stopped at --max-file ($max_file bytes)")"
	fi
	rm -f "$work/b.tar"
	_odd=$(cd "$stage" && find -P . ! -type f ! -type d -o -type f -links +1 |
		head -n 1)
	[ -z "$_odd" ] ||
		refuse "${_odd#./}" "not a plain file or folder once extracted"
}

# Checks each extracted member against MANIFEST: its SHA-256, and for
# .build-id members the build id its name says.
check_members() {
	[ "$(head -n 1 "$stage/MANIFEST")" = "sp-archive	1" ] ||
		refuse MANIFEST "not an sp-archive 1 manifest"
	tail -n +2 "$stage/MANIFEST" | while IFS='	' read -r _k _sum _m _from; do
		case $_k:$_m in
		spool:* | kallsyms:* | elf:* | debug:*) ;;
		perfmap:perf-[0-9]*.map | jitdump:jit-[0-9]*.dump)
			_p=${_m#*-}; _p=${_p%.*}
			case $_p in *[!0-9]*) refuse MANIFEST "names '$_m'" ;; esac
			;;
		*) refuse MANIFEST "unknown entry '$_k' for '$_m'" ;;
		esac
		member "$_m" || refuse MANIFEST "names '$_m'"
		[ -f "$stage/$_m" ] && [ ! -L "$stage/$_m" ] ||
			refuse "$_m" "missing"
		[ "$(sha "$stage/$_m")" = "$_sum" ] ||
			refuse "$_m" "its SHA-256 is not the one MANIFEST gives"
		case $_m in .build-id/*)
			_h=${_m#.build-id/}; _h=$(echo "${_h%.debug}" | tr -d /)
			_have=$(buildid "$stage/$_m")
			[ "$_have" = "$_h" ] ||
				refuse "$_m" "build id ${_have:-(none)} does not match its name"
			;;
		esac
		echo "$_m"
	done >"$work/listed" || exit 1
	_dup=$(sort "$work/listed" | uniq -d | head -n 1)
	[ -z "$_dup" ] || refuse MANIFEST "names '$_dup' twice"
	(cd "$stage" && find . -type f ! -name MANIFEST) | sed 's|^\./||' |
		while IFS= read -r _m; do
			grep -qxF "$_m" "$work/listed" || refuse "$_m" "not in MANIFEST"
		done || exit 1
	spool=$(awk -F'\t' '$1 == "spool" { print $3; exit }' "$stage/MANIFEST")
	[ -n "$spool" ] || refuse MANIFEST "no spool"
}

# place: moves the checked members from the stage into DIR, the current
# folder: first makes or checks each .build-id folder they go in (a
# real folder, that only the user or root can change), then renames
# each member with mv -T, which replaces a link at its name and never
# follows one.
place() {
	{ grep -q / "$work/listed" && echo .build-id
		grep / "$work/listed" | sed 's|/[^/]*$||' | sort -u; } |
		while IFS= read -r _d; do
			if [ ! -e "$_d" ] && [ ! -L "$_d" ]; then
				_why=$(mkdir_safe "$_d")
				[ -z "$_why" ] || die 1 "cannot make '$dir/$_d': $_why"
			fi
			safe_dir "$_d" ||
				die 1 "'$extract': not extracted: '$dir/$_d' $_why"
		done || exit 1
	while IFS= read -r _m; do
		mv -fT -- "$stage/$_m" "$_m" || die 1 "cannot write '$dir/$_m'"
	done <"$work/listed"
	mv -fT -- "$stage/MANIFEST" MANIFEST ||
		die 1 "cannot write '$dir/MANIFEST'"
}

read_bundle() {
	[ -n "$dir" ] || dir=.
	[ -e "$extract" ] || die 1 "'$extract': no such file"
	[ -f "$extract" ] || die 1 "'$extract': not a regular file"
	_here=$(pwd -P) || die 1 "cannot tell the current folder"
	case $extract in /*) _b=$extract ;; *) _b=$_here/$extract ;; esac
	case $dir in /*) _d=$dir ;; *) _d=$_here/$dir ;; esac
	uid=$(id -u) gid=$(id -g)
	enter "$_d" ||
		die 1 "'$extract': not extracted into '$dir': '$_at' $_why"
	work=$(mktemp -d .sp-archive.XXXXXX) || die 1 "cannot write in '$dir'"
	trap 'rm -rf "$work"' EXIT
	trap 'exit 1' INT TERM HUP
	stage=$work/b
	mkdir "$stage" || die 1 "cannot write in '$dir'"
	unpack "$_b"
	check_listing
	extract_stage
	check_members
	place
	_k=""
	grep -qx kallsyms "$work/listed" && _k=" --kallsyms $(quote "$dir/kallsyms")"
	grep -q '^perf-[0-9]*\.map$\|^jit-[0-9]*\.dump$' "$work/listed" &&
		_k="$_k --perf-map-dir $(quote "$dir")"
	echo "sp-dump $(quote "$dir/$spool") | sp-symbolize --debug-dir $(quote "$dir")$_k | sp-fold"
}

if [ -n "$extract" ]; then
	read_bundle
else
	write_bundle "$1"
fi
exit 0

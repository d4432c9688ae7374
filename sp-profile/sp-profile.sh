#!/bin/sh
# sp-profile: records a command or a running process and writes its
# profile in one step, by running the tools it composes:
#
#   sp-record [OPTIONS] -o SPOOL -- CMD | -p PID
#   sp-dump [--runs] SPOOL | sp-symbolize | sp-fold --format FORMAT -o FILE
#
# The output's format follows FILE's name (.svg, .pb.gz/.pprof, .json,
# anything else folded stacks); with no -o, the top table.  Ctrl-C ends
# the recording (as it does sp-record's) and the profile is still
# written.  The tools stay the interface: this script only composes them.
# The sibling tools are the ones installed beside it, else those on PATH.
me=sp-profile
version="@VERSION@"

usage() {
	cat <<'EOF'
usage: sp-profile [-o FILE] [--keep SPOOL] [sp-record options] [--] command [arg ...]
       sp-profile [-o FILE] [--keep SPOOL] -p PID[,PID...] [-d SECONDS] [sp-record options]
Records a command, or running processes, and writes the profile: a flame
graph, pprof, speedscope or folded stacks, chosen by FILE's name; with
no -o, the hottest functions on standard output.

  -o, --output FILE     where the profile goes; its name picks the format:
                          *.svg        SVG flame graph
                          *.pb.gz, *.pprof, *.pb  pprof (go tool pprof)
                          *.json       speedscope
                          other        folded stacks (flamegraph.pl)
      --format FORMAT   folded, top, svg, pprof or speedscope, whatever
                        FILE's name says
      --keep SPOOL      keep the recording in SPOOL (sp-dump reads it)
      --title TEXT      the flame graph's title (the command's name)
  -h, --help            this help
      --version         the version
      --no-children     record only the command (or the processes -p
                        names), not the processes they start
Every other option goes to sp-record: -p PID, -d SECONDS, -F HZ,
-g fp|dwarf, -k, --off-cpu, -a ... (see sp-record(1)); -f, which
follows children, is the default here.  Ctrl-C ends the
recording and the profile is still written.  See sp-profile(1).
EOF
}

die() {		# STATUS MESSAGE
	echo "$me: $2" >&2
	exit "$1"
}

usage_error() {
	echo "$me: $1" >&2
	echo "usage: sp-profile [-o FILE] [sp-record options] [--] command [arg ...]" >&2
	echo "       sp-profile [-o FILE] -p PID [-d SECONDS] [sp-record options]" >&2
	echo "Try 'sp-profile --help'." >&2
	exit 2
}

# format_of FILE: the format FILE's name asks for.
format_of() {
	case $1 in
	*.svg) echo svg ;;
	*.pb.gz | *.pprof | *.pb) echo pprof ;;
	*.json) echo speedscope ;;
	*) echo folded ;;
	esac
}

# The tools beside this script (build/ or an installed bin/), else PATH.
here=$(dirname "$0")
tool() {
	if [ -x "$here/$1" ]; then echo "$here/$1"; else echo "$1"; fi
}
SP_RECORD=${SP_RECORD:-$(tool sp-record)}
SP_DUMP=${SP_DUMP:-$(tool sp-dump)}
SP_SYMBOLIZE=${SP_SYMBOLIZE:-$(tool sp-symbolize)}
SP_FOLD=${SP_FOLD:-$(tool sp-fold)}

# Options: ours are taken out, the rest kept in order for sp-record.  The
# command starts at "--" or at the first word that is no option (after
# the values of sp-record's options that take one).
out="" format="" keep="" title="" attach="" rec_args="" cmd_given=""
# Children are recorded unless --no-children says not (as perf record
# inherits): a command is often a shell, make or a launcher.
children=1 follow_moot=""
quote() {	# WORD: WORD single-quoted for eval (the dot keeps newlines)
	_q=$(printf '%s.' "$1" | sed "s/'/'\\\\''/g")
	printf "'%s'" "${_q%.}"
}
add() { rec_args="$rec_args $(quote "$1")"; }
need_value() {	# OPTION ARGC
	[ "$2" -ge 2 ] || usage_error "option '$1' requires an argument"
}
while [ $# -gt 0 ]; do
	case $1 in
	-h | --help) usage; exit 0 ;;
	--version) echo "sp-profile $version"; exit 0 ;;
	-o | --output) need_value "$1" $#; out=$2; shift 2 ;;
	--output=*) out=${1#*=}; shift ;;
	-o?*) out=${1#-o}; shift ;;
	--format) need_value "$1" $#; format=$2; shift 2 ;;
	--format=*) format=${1#*=}; shift ;;
	--keep) need_value "$1" $#; keep=$2; shift 2 ;;
	--keep=*) keep=${1#*=}; shift ;;
	--title) need_value "$1" $#; title=$2; shift 2 ;;
	--title=*) title=${1#*=}; shift ;;
	-p | --pid | -t | --tid) need_value "$1" $#; attach=1
		add "$1"; add "$2"; shift 2 ;;
	-p?* | --pid=* | -t?* | --tid=*) attach=1; add "$1"; shift ;;
	-a | --all-cpus) attach=1 follow_moot=1; add "$1"; shift ;;
	-f | --children) children=asked; shift ;;
	--no-children) children=""; shift ;;
	--ptrace) follow_moot=1; add "$1"; shift ;;
	-C | --cpu | -u | --uid | -d | --duration | -F | --freq | -e | \
	--event | -c | --count | -g | --call-graph | -m | --mmap-pages | \
	--stack-size | --off-cpu-min)
		need_value "$1" $#; add "$1"; add "$2"; shift 2 ;;
	-k | --kernel | -q | --quiet | --off-cpu)
		add "$1"; shift ;;
	--) shift; cmd_given=1; break ;;
	-?*) usage_error "unrecognized option '$1'" ;;
	*) cmd_given=1; break ;;
	esac
done
[ -n "$cmd_given" ] && [ $# -eq 0 ] && usage_error "no command after '--'"
# -a records every process already; --ptrace follows no children (a -f
# asked for still goes, and sp-record says so).
if [ "$children" = asked ] || { [ -n "$children" ] && [ -z "$follow_moot" ]; }
then
	add -f
fi
[ $# -eq 0 ] && [ -z "$attach" ] &&
	usage_error "nothing to record: give a command, or -p PID"
case $format in
"") if [ -n "$out" ]; then format=$(format_of "$out"); else format=top; fi ;;
folded | top | svg | pprof | speedscope) ;;
*) usage_error "unknown format '$format' (folded, top, svg, pprof, speedscope)" ;;
esac
if [ -n "$out" ] && [ "$(format_of "$out")" != "$format" ] &&
	[ "$format" != top ]; then
	echo "$me: warning: writing $format to '$out', whose name says $(format_of "$out")" >&2
fi
if [ -z "$out" ] && [ -t 1 ] && [ "$format" = pprof ]; then
	usage_error "pprof is binary: give -o FILE.pb.gz"
fi
[ -n "$title" ] || title=${1:+$(basename "$1")}
[ -n "$title" ] || title="stackpulse"

# The spool: kept where --keep says, or in a directory removed at exit.
work=$(mktemp -d "${TMPDIR:-/tmp}/sp-profile.XXXXXX") ||
	die 1 "cannot make a temporary directory"
trap 'rm -rf "$work"' EXIT
spool=${keep:-$work/x.spool}

# Ctrl-C reaches sp-record and the command (the terminal's whole process
# group): sp-record ends the recording and keeps what it has.  This shell
# waits for it with a handler (not SIG_IGN, which the command would
# inherit) and goes on to write the profile.
trap ':' INT
eval "set -- $rec_args -o \"\$spool\" \${1+--} \"\$@\""
"$SP_RECORD" "$@"
rec_status=$?
trap - INT
[ -s "$spool" ] || exit "$rec_status"

# Symbolize and fold.  Each stage's status is kept: sh has no pipefail.
err() { [ -s "$work/$1.rc" ] && [ "$(cat "$work/$1.rc")" != 0 ]; }
set -- --format "$format"
case $format in svg) set -- "$@" --title "$title" ;; esac
[ -n "$out" ] && set -- "$@" -o "$out"
# The top table on a terminal: its head, as perf report's first screen.
[ -z "$out" ] && [ "$format" = top ] && [ -t 1 ] && set -- "$@" -o "$work/top"
# Samples as runs (a count per stack) where no time of each is needed.
runs=--runs
[ "$format" = speedscope ] && runs=""
{ "$SP_DUMP" $runs "$spool"; echo $? >"$work/dump.rc"; } |
	{ "$SP_SYMBOLIZE"; echo $? >"$work/sym.rc"; } |
	{ "$SP_FOLD" "$@"; echo $? >"$work/fold.rc"; }
if err dump || err sym || err fold; then
	die 1 "the profile was not written: a stage above failed${keep:+ (the recording is in '$keep')}"
fi
if [ -f "$work/top" ]; then
	head -n 25 "$work/top"
	n=$(($(wc -l <"$work/top") - 25))
	[ "$n" -gt 0 ] && echo "($n more lines: sp-profile -o FILE.txt --format top keeps them all)"
fi
[ -n "$out" ] && echo "$me: wrote $format to '$out'${keep:+, the recording to '$keep'}" >&2
exit "$rec_status"

# sp-completion.bash: bash completion for sp-record, sp-dump, sp-symbolize,
# sp-fold, sp-profile and sp-archive: their options, -p with the running
# processes (ids and names), --format and --from values, sp-archive's -C
# with folders, and files elsewhere.
# `make install` puts it where bash-completion finds it; or source it.

# The long options a tool lists in its --help, once per shell.
_sp_options()
{
	local tool=$1 var="_sp_opts_${1//-/_}"

	if [ -z "${!var}" ]; then
		printf -v "$var" '%s' "$("$tool" --help 2>/dev/null |
			grep -o -- '--[a-z][a-z-]*' | sort -u | tr '\n' ' ')"
	fi
	printf '%s' "${!var}"
}

# Running processes as "PID" and "PID(NAME)" is too noisy; offer the ids,
# and the ids of processes whose name starts with what was typed.
_sp_pids()
{
	local cur=$1 p name

	for p in /proc/[0-9]*; do
		p=${p#/proc/}
		read -r name <"/proc/$p/comm" 2>/dev/null || continue
		case $p in "$cur"*) echo "$p" ;; esac
		case $name in "$cur"*) [ -n "$cur" ] && echo "$p" ;; esac
	done
}

_sp_complete()
{
	local tool=$1 cur=${COMP_WORDS[COMP_CWORD]}
	local prev=${COMP_WORDS[COMP_CWORD - 1]}

	case $prev in
	-p | --pid)
		[ "$tool" = sp-record ] || [ "$tool" = sp-profile ] &&
			COMPREPLY=($(_sp_pids "$cur")) && return
		;;
	--format)
		COMPREPLY=($(compgen -W "folded top svg pprof speedscope
			perf-script threads" -- "$cur"))
		return
		;;
	--from)
		COMPREPLY=($(compgen -W "records perf-script folded" -- "$cur"))
		return
		;;
	--weight)
		COMPREPLY=($(compgen -W "samples time period" -- "$cur"))
		return
		;;
	--view)
		COMPREPLY=($(compgen -W "cpu off-cpu wall" -- "$cur"))
		return
		;;
	--sort)
		COMPREPLY=($(compgen -W "self total" -- "$cur"))
		return
		;;
	-e | --event | --event-filter)
		# the events this machine offers, as sp-record -l lists them
		COMPREPLY=($(compgen -W "$(sp-record -l 2>/dev/null |
			awk '{ print $1; if ($2 == "OR") print $3 }')" -- "$cur"))
		return
		;;
	-g | --call-graph)
		COMPREPLY=($(compgen -W "fp dwarf" -- "$cur"))
		return
		;;
	--capture)
		COMPREPLY=($(compgen -W "all lost" -- "$cur"))
		return
		;;
	--capture-dir)
		COMPREPLY=($(compgen -d -- "$cur"))
		return
		;;
	--colors)
		COMPREPLY=($(compgen -W "hot mem io wakeup chain java js perl
			red green blue aqua yellow purple orange" -- "$cur"))
		return
		;;
	-C | --directory)
		[ "$tool" = sp-archive ] &&
			COMPREPLY=($(compgen -d -- "$cur")) && return
		;;
	-o | --output | --kallsyms | --debug-dir | --keep | -x | --extract)
		COMPREPLY=($(compgen -f -- "$cur"))
		return
		;;
	esac
	if [[ $cur == -* ]]; then
		COMPREPLY=($(compgen -W "$(_sp_options "$tool")" -- "$cur"))
		return
	fi
	COMPREPLY=($(compgen -f -- "$cur"))
}

complete -o filenames -F _sp_complete sp-record sp-dump sp-symbolize sp-fold \
	sp-profile sp-archive

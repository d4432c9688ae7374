/*
 * usage.c: sp-fold's synopsis, --help text and usage errors, and the
 * words of --format (usage.h).
 */
#include <err.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/cli.h"
#include "sp-fold/usage.h"
#include "common/banned.h"

static const char *const format_names[] = {
	[FOLD_FOLDED] = "folded",
	[FOLD_TOP] = "top",
	[FOLD_SVG] = "svg",
	[FOLD_PPROF] = "pprof",
	[FOLD_SPEEDSCOPE] = "speedscope",
	[FOLD_PERF_SCRIPT] = "perf-script",
	[FOLD_THREADS] = "threads",
};

static const char synopsis[] = "usage: sp-fold [options] [FILE...]\n"
			       "       sp-fold --diff [options] BEFORE AFTER\n";

/* A usage error: the synopsis on stderr, exit 2. */
__attribute__((noreturn)) static void
usage(void)
{
	fputs(synopsis, stderr);
	fputs("Try 'sp-fold --help' for the options.\n", stderr);
	exit(2);
}

static const char help_text[] =
    "Folds stacks from a record stream (sp-dump | sp-symbolize), perf\n"
    "script text or folded stacks into folded lines, a top table, an SVG\n"
    "flame graph, pprof, speedscope or perf script text.\n"
    "\n"
    "Input and output:\n"
    "  --from records|perf-script|folded  what FILE holds (records)\n"
    "  --format folded|top|svg|pprof|speedscope|perf-script|threads\n"
    "                        the output (threads: samples per thread)\n"
    "  -o, --output FILE     write to FILE instead of standard output\n"
    "  --sort self|total     --format top's order (self)\n"
    "  --live                a top view on the terminal, redrawn each\n"
    "                        second; keys: s by self, t by total, c call\n"
    "                        stacks or functions, f next thread, q quit\n"
    "  --window SECONDS      what --live counts: the last 10 s\n"
    "  --interval SECONDS    one output per interval, to -o PATTERN whose\n"
    "                        %t is the interval's start (Unix seconds)\n"
    "  --view cpu|off-cpu|wall  CPU samples, time waiting, or both\n"
    "  --no-wait-state       no [sleep], [io], [preempted] frame on waits\n"
    "  --weight samples|time|period  what a sample counts (see sp-fold(1))\n"
    "Names:\n"
    "  --pid, --tid          append -PID or -PID/TID to the comm frame\n"
    "  --process-name        the process's name, not the thread's\n"
    "  --no-comm             no comm frame\n"
    "  --kernel, --jit, --inline, --all  _[k] _[j] _[i] annotations;\n"
    "                        perf script: --inline runs addr2line\n"
    "  --context             perf script --inline: with file:line\n"
    "  --addrs               keep addresses and offsets in names\n"
    "  --show-hidden         keep frames flagged hidden\n"
    "  --interpreter-frames  keep CPython's call glue between Python\n"
    "                        frames, and its evaluator frames\n"
    "  --event-filter EVENT  only this event's samples\n"
    "  --srcline             perf script -F+srcline: file:line in names\n"
    "Filters:\n"
    "  --pid=PIDS, --tid=TIDS  only these processes or threads\n"
    "  --comm NAME           only this thread or process name\n"
    "  --time FROM,TO        only these seconds after the first sample\n"
    "  --include REGEX, --exclude REGEX  stacks with or without a frame\n"
    "  --max-depth N         cut stacks to N frames below the comm\n"
    "SVG:\n"
    "  --title TEXT, --subtitle TEXT, --countname NAME, --nametype TEXT\n"
    "  --colors PALETTE      hot mem io wakeup chain java js perl red green\n"
    "                        blue aqua yellow purple orange\n"
    "  --width PIXELS, --height PIXELS, --minwidth PIXELS|PERCENT%\n"
    "  --fonttype FONT, --fontsize N, --hash\n"
    "  --flamechart          samples in time order, thread by thread\n"
    "  --reverse             merge stacks from the leaf\n"
    "  --inverted            an icicle graph\n"
    "Differential (--diff BEFORE AFTER):\n"
    "  --normalize           scale BEFORE to AFTER's total\n"
    "  --strip-hex           0x... for hex numbers\n"
    "  --negate              blue for growth, red for shrinking\n"
    "\n"
    "  -h, --help            this help\n"
    "  --version             the version\n"
    "See sp-fold(1).\n";

void
fold_help(void)
{
	fputs(synopsis, stdout);
	fputs(help_text, stdout);
	exit(sp_cli_close_stdout() ? 1 : 0);
}

void
fold_usage_error(const char *why)
{
	if (why)
		warnx("%s", why);
	usage();
}

const char *
fold_format_name(enum fold_format f)
{
	return format_names[f];
}

bool
fold_format_of_word(const char *word, enum fold_format *f)
{
	size_t i;

	for (i = 0; i < sizeof(format_names) / sizeof(format_names[0]); i++)
		if (!strcmp(word, format_names[i])) {
			*f = (enum fold_format)i;
			return true;
		}
	return false;
}

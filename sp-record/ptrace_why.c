/*
 * ptrace_why.c: why the kernel refused to let --ptrace attach, when
 * privilege is not the answer (ptrace_run.h).  "Run as root" is only
 * advice for a recorder that lacks CAP_SYS_PTRACE; a recorder that has it
 * was refused for something it can name: a zombie, a kernel thread, a
 * process already traced, or one holding capabilities the recorder lacks.
 */
#include <err.h>
#include <errno.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sp-record/sys/proc.h"
#include "sp-record/ptrace_run.h"
#include "common/banned.h"

#define CAP_SYS_PTRACE_BIT 19
#define PF_KTHREAD_FLAG 0x00200000u

/* The value of line "KEY:\t..." of /proc/WHO/status, read in `base`. */
static bool
status_field(const char *who, const char *key, int base, uint64_t *v)
{
	char path[64], line[256];
	size_t klen = strlen(key);
	bool found = false;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%s/status", who);
	if (!(f = fopen(path, "re")))
		return false;
	while (!found && fgets(line, sizeof(line), f))
		if (strncmp(line, key, klen) == 0 && line[klen] == ':') {
			*v = strtoull(line + klen + 1, NULL, base);
			found = true;
		}
	fclose(f);
	return found;
}

/* Field 9 of /proc/PID/stat, the kernel's task flags. */
static bool
is_kernel_thread(const char *who)
{
	char path[64], line[512], *p;
	unsigned long flags;

	snprintf(path, sizeof(path), "/proc/%s/stat", who);
	rec_proc_read_line(path, line, sizeof(line));
	if (!(p = strrchr(line, ')')) ||
	    sscanf(p + 1, " %*c %*d %*d %*d %*d %*d %lu", &flags) != 1)
		return false;
	return (flags & PF_KTHREAD_FLAG) != 0;
}

/* Says why; false when nothing better than the usual advice is known. */
static bool
explain_denied(const char *whostr, int32_t pid)
{
	char who[16];
	uint64_t eff = 0, mine = 0, theirs = 0, tracer = 0;
	char state;
	uint64_t start;

	snprintf(who, sizeof(who), "%d", (int)pid);
	if (rec_proc_stat(pid, &state, &start) == 0 && state == 'Z') {
		warnx("%s is a zombie: it has exited, nothing is left to "
		      "record",
		      whostr);
		return true;
	}
	if (is_kernel_thread(who)) {
		warnx("%s is a kernel thread: ptrace cannot attach to it",
		      whostr);
		return true;
	}
	if (status_field(who, "TracerPid", 10, &tracer) && tracer) {
		warnx("%s is already traced by process %" PRIu64, whostr,
		      tracer);
		return true;
	}
	if (!status_field("self", "CapEff", 16, &eff) ||
	    !(eff & (1ULL << CAP_SYS_PTRACE_BIT)))
		return false;
	if (status_field("self", "CapPrm", 16, &mine) &&
	    status_field(who, "CapPrm", 16, &theirs) && (theirs & ~mine))
		warnx("%s: ptrace: Operation not permitted: it holds "
		      "capabilities sp-record lacks (mask %" PRIx64 ")",
		      whostr, theirs & ~mine);
	else
		warnx("%s: ptrace: Operation not permitted although "
		      "sp-record has CAP_SYS_PTRACE (a security module, or "
		      "another user namespace)",
		      whostr);
	return true;
}

bool
rec_ptrace_why_explain(const char *whostr, int32_t pid, int rc)
{
	return pid > 0 && (rc == -EPERM || rc == -EACCES) &&
	       explain_denied(whostr, pid);
}

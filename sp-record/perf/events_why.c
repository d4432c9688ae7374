/*
 * events_why.c: why perf_event_open refused (events.h): the message names
 * the setting or privilege to change (kernel.perf_event_paranoid, another
 * user's process, a seccomp filter, the open file limit, an event this
 * machine lacks, a frequency above the kernel's maximum) instead of the
 * bare errno.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/htab.h"
#include "sp-record/perf/events.h"
#include "sp-record/sys/sysctl.h"
#include "common/banned.h"

/* Whether /proc/PID belongs to another user than us. */
static bool
foreign_process(int32_t pid)
{
	char path[64];
	struct stat st;

	snprintf(path, sizeof(path), "/proc/%d", (int)pid);
	return stat(path, &st) == 0 && st.st_uid != geteuid();
}

void
rec_events_why_explain(struct sp_buf *m, const struct rec_events *ev, int err,
		       int32_t pid, bool attach)
{
	long paranoid = rec_sysctl_perf_paranoid(), maxrate = 0;
	char sw[200];

	sp_buf_reset(m);
	rec_sysctl_long("kernel.perf_event_max_sample_rate", &maxrate);
	switch (err) {
	case EACCES:
	case EPERM:
		if (ev->offcpu_denied && geteuid() != 0)
			sp_buf_addf(
			    m,
			    "--off-cpu samples threads as the kernel "
			    "switches them out, which "
			    "kernel.perf_event_paranoid %ld forbids; run "
			    "as root, grant CAP_PERFMON, or lower it with "
			    "'sysctl kernel.perf_event_paranoid=1'",
			    paranoid);
		else if (attach && geteuid() != 0 && foreign_process(pid))
			sp_buf_addf(m,
				    "pid '%d': cannot attach to another "
				    "user's process; run as root or with "
				    "CAP_SYS_PTRACE and CAP_PERFMON",
				    (int)pid);
		else if (geteuid() == 0)
			sp_buf_addf(m,
				    "perf_event_open: %s even as root: a "
				    "seccomp filter or container policy blocks "
				    "perf events (allow perf_event_open, e.g. "
				    "docker --cap-add PERFMON --security-opt "
				    "seccomp=unconfined)",
				    strerror(err));
		else
			sp_buf_addf(
			    m,
			    "perf_event_open: %s: "
			    "kernel.perf_event_paranoid is %ld; run as "
			    "root, grant CAP_PERFMON (and CAP_SYS_PTRACE "
			    "to attach), or lower it with 'sysctl "
			    "kernel.perf_event_paranoid=%d'",
			    strerror(err), paranoid, pid < 0 ? 0 : 1);
		break;
	case ENOSYS:
		sp_buf_addf(
		    m, "perf_event_open is not available: the kernel "
		       "has no perf events or a seccomp filter blocks them");
		break;
	case ESRCH:
		sp_buf_addf(m, "pid '%d': no such process", (int)pid);
		break;
	case EMFILE:
	case ENFILE:
		sp_buf_addf(m,
			    "too many open files%s: %zu descriptors open for "
			    "%zu threads, each thread needs %zu (one per CPU "
			    "and event); raise ulimit -n (now %ld)",
			    err == ENFILE ? " in the system" : "", ev->nfds,
			    ev->tids ? sp_htab_count(ev->tids) : 0,
			    (size_t)ev->ncpus * ev->opts.nevents,
			    sysconf(_SC_OPEN_MAX));
		break;
	case ENOENT:
	case EOPNOTSUPP:
	case ENODEV:
		rec_evname_software_names(sw, sizeof(sw));
		sp_buf_addf(
		    m,
		    "event '%s' is not supported here (%s); "
		    "available: %s, tracepoints (sp-record -l lists "
		    "them all)",
		    ev->opts.events[ev->failed].name,
		    ev->opts.events[ev->failed].tracepoint
			? "the kernel refused the tracepoint"
			: "no hardware PMU, as in most virtual machines",
		    sw);
		break;
	case EINVAL:
		if (maxrate > 0 && ev->attr.freq &&
		    ev->attr.sample_freq > (uint64_t)maxrate) {
			sp_buf_addf(
			    m,
			    "sampling frequency %llu Hz is above "
			    "kernel.perf_event_max_sample_rate (%ld); use "
			    "a lower -F or -F max",
			    (unsigned long long)ev->attr.sample_freq, maxrate);
			break;
		}
		/* fall through */
	default:
		sp_buf_addf(m, "perf_event_open: %s", strerror(err));
		break;
	}
}

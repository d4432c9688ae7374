/*
 * evname.c: event names for -e and -l (evname.h).
 */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <linux/perf_event.h>

#include "sp-record/perf/evname.h"
#include "sp-record/sys/sysctl.h"
#include "common/banned.h"

struct known {
	const char *name, *alias;
	uint32_t type;
	uint64_t config;
};

static const struct known software[] = {
	{ "cpu-clock", NULL, PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CPU_CLOCK },
	{ "task-clock", NULL, PERF_TYPE_SOFTWARE, PERF_COUNT_SW_TASK_CLOCK },
	{ "page-faults", "faults", PERF_TYPE_SOFTWARE,
	  PERF_COUNT_SW_PAGE_FAULTS },
	{ "context-switches", "cs", PERF_TYPE_SOFTWARE,
	  PERF_COUNT_SW_CONTEXT_SWITCHES },
	{ "cpu-migrations", "migrations", PERF_TYPE_SOFTWARE,
	  PERF_COUNT_SW_CPU_MIGRATIONS },
	{ "minor-faults", NULL, PERF_TYPE_SOFTWARE,
	  PERF_COUNT_SW_PAGE_FAULTS_MIN },
	{ "major-faults", NULL, PERF_TYPE_SOFTWARE,
	  PERF_COUNT_SW_PAGE_FAULTS_MAJ },
	{ "alignment-faults", NULL, PERF_TYPE_SOFTWARE,
	  PERF_COUNT_SW_ALIGNMENT_FAULTS },
	{ "emulation-faults", NULL, PERF_TYPE_SOFTWARE,
	  PERF_COUNT_SW_EMULATION_FAULTS },
};

static const struct known hardware[] = {
	{ "cycles", "cpu-cycles", PERF_TYPE_HARDWARE,
	  PERF_COUNT_HW_CPU_CYCLES },
	{ "instructions", NULL, PERF_TYPE_HARDWARE,
	  PERF_COUNT_HW_INSTRUCTIONS },
	{ "cache-references", NULL, PERF_TYPE_HARDWARE,
	  PERF_COUNT_HW_CACHE_REFERENCES },
	{ "cache-misses", NULL, PERF_TYPE_HARDWARE,
	  PERF_COUNT_HW_CACHE_MISSES },
	{ "branch-instructions", "branches", PERF_TYPE_HARDWARE,
	  PERF_COUNT_HW_BRANCH_INSTRUCTIONS },
	{ "branch-misses", NULL, PERF_TYPE_HARDWARE,
	  PERF_COUNT_HW_BRANCH_MISSES },
	{ "bus-cycles", NULL, PERF_TYPE_HARDWARE, PERF_COUNT_HW_BUS_CYCLES },
	{ "stalled-cycles-frontend", "idle-cycles-frontend", PERF_TYPE_HARDWARE,
	  PERF_COUNT_HW_STALLED_CYCLES_FRONTEND },
	{ "stalled-cycles-backend", "idle-cycles-backend", PERF_TYPE_HARDWARE,
	  PERF_COUNT_HW_STALLED_CYCLES_BACKEND },
	{ "ref-cycles", NULL, PERF_TYPE_HARDWARE,
	  PERF_COUNT_HW_REF_CPU_CYCLES },
};

#define NELEM(a) (sizeof(a) / sizeof((a)[0]))

static const struct known *
find_known(const char *name, size_t len)
{
	const struct known *tabs[2] = { software, hardware };
	size_t sizes[2] = { NELEM(software), NELEM(hardware) };
	size_t t, i;

	for (t = 0; t < 2; t++)
		for (i = 0; i < sizes[t]; i++) {
			const struct known *k = &tabs[t][i];

			if ((strlen(k->name) == len &&
			     !strncmp(k->name, name, len)) ||
			    (k->alias && strlen(k->alias) == len &&
			     !strncmp(k->alias, name, len)))
				return k;
		}
	return NULL;
}

static void
set_known(struct rec_evname_spec *out, const struct known *k)
{
	memset(out, 0, sizeof(*out));
	snprintf(out->name, sizeof(out->name), "%s", k->name);
	out->type = k->type;
	out->config = k->config;
	out->is_time = k->type == PERF_TYPE_SOFTWARE &&
		       (k->config == PERF_COUNT_SW_CPU_CLOCK ||
			k->config == PERF_COUNT_SW_TASK_CLOCK);
}

void
rec_evname_default(struct rec_evname_spec *out)
{
	set_known(out, &hardware[0]);
}

void
rec_evname_cpu_clock(struct rec_evname_spec *out)
{
	set_known(out, &software[0]);
}

/*
 * The events directory of tracefs.  Like perf, mount tracefs where the
 * kernel has it but nobody mounted it (as root only; harmless otherwise).
 */
static const char *
tracefs_events(void)
{
	static const char *const dirs[] = {
		"/sys/kernel/tracing/events", "/sys/kernel/debug/tracing/events"
	};
	struct stat st;
	size_t i;

	for (i = 0; i < NELEM(dirs); i++)
		if (stat(dirs[i], &st) == 0 && S_ISDIR(st.st_mode))
			return dirs[i];
	if (mount("nodev", "/sys/kernel/tracing", "tracefs", 0, NULL) == 0 &&
	    stat(dirs[0], &st) == 0)
		return dirs[0];
	return NULL;
}

/* Reads a tracepoint's id; returns 0, -ENOENT or -EACCES (no tracefs). */
static int
tracepoint_id(const char *sys, const char *name, uint64_t *id)
{
	const char *dir = tracefs_events();
	char path[512], buf[32];
	FILE *f;
	int ok;

	if (!dir)
		return -EACCES;
	if (strchr(sys, '/') || strchr(name, '/') || !strcmp(sys, "..") ||
	    !strcmp(name, ".."))
		return -ENOENT;
	snprintf(path, sizeof(path), "%s/%s/%s/id", dir, sys, name);
	if (!(f = fopen(path, "re")))
		return errno == ENOENT ? -ENOENT : -EACCES;
	ok = fgets(buf, sizeof(buf), f) != NULL;
	fclose(f);
	if (!ok)
		return -EACCES;
	*id = strtoull(buf, NULL, 10);
	return 0;
}

/*
 * Finds a field of a tracepoint's raw data in its format file, a line
 * like "field:long prev_state;	offset:24;	size:8;	signed:1;".
 * Returns 0, or -ENOENT when the file or a 4- or 8-byte field is missing.
 */
static int
tracepoint_field(const char *sys, const char *name, const char *field,
		 uint32_t *off, uint32_t *size)
{
	const char *dir = tracefs_events();
	char path[512], line[512], want[128];
	const char *at;
	unsigned o, n;
	int rc = -ENOENT;
	FILE *f;

	if (!dir)
		return -ENOENT;
	snprintf(path, sizeof(path), "%s/%s/%s/format", dir, sys, name);
	snprintf(want, sizeof(want), " %s;", field);
	if (!(f = fopen(path, "re")))
		return -ENOENT;
	while (rc && fgets(line, sizeof(line), f))
		if (strstr(line, "field:") && strstr(line, want) &&
		    (at = strstr(line, "offset:")) &&
		    sscanf(at, "offset:%u;%*[ \t]size:%u;", &o, &n) == 2 &&
		    (n == 4 || n == 8)) {
			*off = o;
			*size = n;
			rc = 0;
		}
	fclose(f);
	return rc;
}

/*
 * Raw tracepoint data needs root or perf_event_paranoid -1 (the kernel's
 * rule); asking for it otherwise would fail the whole recording.
 */
static bool
may_read_raw(void)
{
	return geteuid() == 0 || rec_sysctl_perf_paranoid() <= -1;
}

void
rec_evname_off_cpu(struct rec_evname_spec *out)
{
	uint64_t id;

	memset(out, 0, sizeof(*out));
	snprintf(out->name, sizeof(out->name), "off-cpu");
	out->every = true;
	if (may_read_raw() &&
	    tracepoint_id("sched", "sched_switch", &id) == 0 &&
	    tracepoint_field("sched", "sched_switch", "prev_state",
			     &out->state_off, &out->state_size) == 0) {
		out->type = PERF_TYPE_TRACEPOINT;
		out->config = id;
		out->tracepoint = true;
		return;
	}
	out->state_off = out->state_size = 0;
	out->type = PERF_TYPE_SOFTWARE;
	out->config = PERF_COUNT_SW_CONTEXT_SWITCHES;
}

/* The kernel's report of prev_state: one bit per state, 0 running. */
#define STATE_S 0x1u         /* interruptible sleep */
#define STATE_D 0x2u         /* uninterruptible: I/O, mostly */
#define STATE_I 0x80u        /* idle kernel thread: a sleep too */
#define STATE_PREEMPT 0x100u /* TASK_REPORT_MAX: switched out runnable */

enum sp_wait_state
rec_evname_wait_state(const struct rec_evname_spec *spec, const uint8_t *raw,
		      size_t len)
{
	uint64_t v = 0;
	uint32_t u32;

	if (!raw || !spec->state_size || spec->state_off > len ||
	    len - spec->state_off < spec->state_size)
		return SP_WAIT_NONE;
	if (spec->state_size == 8) {
		memcpy(&v, raw + spec->state_off, 8);
	} else {
		memcpy(&u32, raw + spec->state_off, 4);
		v = u32;
	}
	if (v == 0 || v >= STATE_PREEMPT)
		return SP_WAIT_PREEMPTED;
	if (v & (STATE_S | STATE_I))
		return SP_WAIT_SLEEP;
	return v & STATE_D ? SP_WAIT_IO : SP_WAIT_BLOCKED;
}

static int
parse_tracepoint(const char *s, const char *colon, struct rec_evname_spec *out,
		 struct sp_buf *err)
{
	char sys[REC_EVNAME_MAX];
	int rc;

	if ((size_t)(colon - s) >= sizeof(sys) || !colon[1] ||
	    strlen(s) >= sizeof(out->name)) {
		sp_buf_addf(err, "unknown event '%s'", s);
		return -EINVAL;
	}
	memcpy(sys, s, (size_t)(colon - s));
	sys[colon - s] = 0;
	memset(out, 0, sizeof(*out));
	rc = tracepoint_id(sys, colon + 1, &out->config);
	if (rc == -EACCES) {
		sp_buf_addf(
		    err,
		    "tracepoint '%s': tracefs is not readable (mount it "
		    "on /sys/kernel/tracing, as root)",
		    s);
		return -EACCES;
	}
	if (rc < 0) {
		sp_buf_addf(err,
			    "unknown tracepoint '%s' (sp-record -l lists them)",
			    s);
		return -EINVAL;
	}
	snprintf(out->name, sizeof(out->name), "%s", s);
	out->type = PERF_TYPE_TRACEPOINT;
	out->tracepoint = true;
	return 0;
}

/* Applies ":u", ":k" or ":uk" (where the event is counted). */
static int
modifiers(const char *mod, struct rec_evname_spec *out)
{
	bool u = false, k = false;

	for (; *mod; mod++)
		if (*mod == 'u')
			u = true;
		else if (*mod == 'k')
			k = true;
		else
			return -EINVAL;
	out->exclude_kernel = u && !k;
	out->exclude_user = k && !u;
	return 0;
}

static int
parse_raw(const char *s, size_t len, struct rec_evname_spec *out)
{
	char *end;
	uint64_t v;

	if (len < 2 || s[0] != 'r')
		return -EINVAL;
	errno = 0;
	v = strtoull(s + 1, &end, 16);
	if (errno || end != s + len)
		return -EINVAL;
	memset(out, 0, sizeof(*out));
	out->type = PERF_TYPE_RAW;
	out->config = v;
	return 0;
}

int
rec_evname_parse(const char *s, struct rec_evname_spec *out, struct sp_buf *err)
{
	const char *colon = strchr(s, ':');
	size_t len = colon ? (size_t)(colon - s) : strlen(s);
	const struct known *k = find_known(s, len);

	if (!k && parse_raw(s, len, out) < 0) {
		if (colon)
			return parse_tracepoint(s, colon, out, err);
		sp_buf_addf(err,
			    "unknown event '%s' (sp-record -l lists the events "
			    "this machine offers)",
			    s);
		return -EINVAL;
	}
	if (k)
		set_known(out, k);
	if (colon && modifiers(colon + 1, out) < 0) {
		sp_buf_addf(err,
			    "event '%s': the modifiers are :u (user), :k "
			    "(kernel) or :uk",
			    s);
		return -EINVAL;
	}
	if (strlen(s) >= sizeof(out->name)) {
		sp_buf_addf(err, "event name '%.40s...' is too long", s);
		return -EINVAL;
	}
	snprintf(out->name, sizeof(out->name), "%s", s);
	if (k && !colon)
		snprintf(out->name, sizeof(out->name), "%s", k->name);
	return 0;
}

/* Whether the kernel can count this event for us (the PMU has it). */
static bool
can_open(const struct known *k)
{
	struct perf_event_attr a;
	int fd;

	memset(&a, 0, sizeof(a));
	a.size = sizeof(a);
	a.type = k->type;
	a.config = k->config;
	a.disabled = 1;
	a.exclude_kernel = 1;
	a.exclude_hv = 1;
	fd = (int)syscall(SYS_perf_event_open, &a, 0, -1, -1,
			  PERF_FLAG_FD_CLOEXEC);
	if (fd < 0)
		return false;
	close(fd);
	return true;
}

static int
cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Every SYS:NAME under tracefs, sorted; returns the count or -ENOMEM. */
static long
tracepoints(char ***out)
{
	const char *dir = tracefs_events();
	char **v = NULL, **nv, path[512];
	size_t n = 0, alloc = 0;
	struct dirent *s, *e;
	DIR *d, *sd;

	*out = NULL;
	if (!dir || !(d = opendir(dir)))
		return 0;
	while ((s = readdir(d))) {
		if (s->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, s->d_name);
		if (!(sd = opendir(path)))
			continue;
		while ((e = readdir(sd))) {
			if (e->d_type != DT_DIR || e->d_name[0] == '.')
				continue;
			if (n == alloc) {
				alloc = alloc ? 2 * alloc : 256;
				nv = reallocarray(v, alloc, sizeof(*v));
				if (!nv)
					break;
				v = nv;
			}
			if (asprintf(&v[n], "%s:%s", s->d_name, e->d_name) < 0)
				break;
			n++;
		}
		closedir(sd);
	}
	closedir(d);
	if (n)
		qsort(v, n, sizeof(*v), cmp_str);
	*out = v;
	return (long)n;
}

static void
list_known(FILE *out, const struct known *k, size_t n, const char *kind)
{
	char both[64];
	size_t i;

	for (i = 0; i < n; i++) {
		if (k[i].type == PERF_TYPE_HARDWARE && !can_open(&k[i]))
			continue;
		snprintf(both, sizeof(both), "%s%s%s", k[i].name,
			 k[i].alias ? " OR " : "",
			 k[i].alias ? k[i].alias : "");
		fprintf(out, "  %-44s [%s]\n", both, kind);
	}
}

void
rec_evname_software_names(char *buf, size_t len)
{
	size_t i, used = 0;
	int n;

	if (len)
		buf[0] = 0;
	for (i = 0; i < NELEM(software) && used < len; i++) {
		n = snprintf(buf + used, len - used, "%s%s", i ? ", " : "",
			     software[i].name);
		if (n < 0)
			return;
		used += (size_t)n;
	}
}

int
rec_evname_list(FILE *out)
{
	char **tps;
	long n = tracepoints(&tps), i;

	list_known(out, hardware, NELEM(hardware), "Hardware event");
	list_known(out, software, NELEM(software), "Software event");
	if (can_open(&hardware[0]))
		fprintf(out, "  %-44s [%s]\n", "rNNN", "Raw hardware event");
	for (i = 0; i < n; i++) {
		fprintf(out, "  %-44s [%s]\n", tps[i], "Tracepoint event");
		free(tps[i]);
	}
	free(tps);
	if (n == 0)
		fprintf(out, "  (no tracepoints: tracefs is not readable)\n");
	return fflush(out) || ferror(out) ? -EIO : 0;
}

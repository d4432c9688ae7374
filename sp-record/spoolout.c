/*
 * spoolout.c: the spool records the recorder writes of its own (comm,
 * exit, lost, build ids, host, the kernel module), module interning, and
 * the sticky write error every writer goes through (recorder.h).
 */
#include <err.h>
#include <errno.h>
#include <inttypes.h>
#include <string.h>
#include <sys/utsname.h>

#include "common/ext.h"
#include "sp-record/recorder_impl.h"
#include "sp-record/stopreq.h"
#include "common/banned.h"

/*
 * Remembers the first write error; returns rc.  A pipe closed after a
 * stop request is the end of `sp-record | tee x.spool` under Ctrl-C,
 * whose reader the interrupt ended too: no error, a note in the summary.
 */
int
rec_wr(struct recorder *r, int rc)
{
	if (rc == -EPIPE && !r->werr && rec_stop_signal) {
		r->werr = rc;
		r->closed_after_stop = true;
	} else if (rc < 0 && !r->werr) {
		r->werr = rc;
		warnx("'%s': %s", r->cfg.output_name,
		      rc == -ENOMEM ? strerror(ENOMEM)
				    : sp_spool_writer_errmsg(r->w));
	}
	return rc < 0 ? rc : 0;
}

int
rec_write_ext(struct recorder *r, uint8_t tag)
{
	if (r->werr)
		return r->werr;
	return rec_wr(r,
		      sp_spool_writer_ext(r->w, tag, r->ext.data, r->ext.len));
}

int
rec_write_comm(struct recorder *r, uint64_t ts, int32_t pid, int32_t tid,
	       bool is_exec, const char *name, size_t len)
{
	struct sp_ext_comm c = { ts, pid, (uint64_t)tid, is_exec, name, len };

	sp_buf_reset(&r->ext);
	if (sp_ext_comm_encode(&r->ext, &c) < 0)
		return rec_wr(r, -ENOMEM);
	return rec_write_ext(r, SP_EXT_COMM);
}

int
rec_write_lost(struct recorder *r, uint64_t ts, uint64_t count)
{
	struct sp_ext_lost l = { ts, count };

	sp_buf_reset(&r->ext);
	if (sp_ext_lost_encode(&r->ext, &l) < 0)
		return rec_wr(r, -ENOMEM);
	return rec_write_ext(r, SP_EXT_LOST);
}

int
rec_write_exit(struct recorder *r, uint64_t ts, int32_t pid, int32_t tid)
{
	struct sp_ext_exit x = { ts, pid, (uint64_t)tid };

	sp_buf_reset(&r->ext);
	if (sp_ext_exit_encode(&r->ext, &x) < 0)
		return rec_wr(r, -ENOMEM);
	return rec_write_ext(r, SP_EXT_EXIT);
}

/* Writes one event record per event: the spool names what it sampled. */
int
rec_write_events(struct recorder *r)
{
	struct sp_ext_event e;
	const char *name;
	size_t i;

	for (i = 0; i < r->ev.opts.nevents && !r->werr; i++) {
		name = rec_events_name(&r->ev, i);
		e.index = (uint32_t)i;
		e.name = name;
		e.name_len = strlen(name);
		e.period = rec_events_period(&r->ev, i);
		e.freq = e.period ? 0 : r->ev.opts.freq;
		sp_buf_reset(&r->ext);
		if (sp_ext_event_encode(&r->ext, &e) < 0)
			return rec_wr(r, -ENOMEM);
		rec_write_ext(r, SP_EXT_EVENT);
	}
	return r->werr;
}

/*
 * Whether samples carry their event and weight: a recording of several
 * events, or of one event counted at a frequency (its period varies).
 */
bool
rec_needs_weight(const struct recorder *r)
{
	return r->ev.opts.nevents > 1 ||
	       (!r->ev.opts.events[0].is_time && !rec_events_period(&r->ev, 0));
}

/* Writes the event and weight of the sample written next. */
int
rec_write_weight(struct recorder *r, uint32_t event, uint64_t weight)
{
	struct sp_ext_weight w = { event, weight };

	sp_buf_reset(&r->ext);
	if (sp_ext_weight_encode(&r->ext, &w) < 0)
		return rec_wr(r, -ENOMEM);
	return rec_write_ext(r, SP_EXT_WEIGHT);
}

/* Writes why the thread of the sample written next was off the CPU. */
int
rec_write_wait(struct recorder *r, enum sp_wait_state state)
{
	sp_buf_reset(&r->ext);
	if (sp_ext_wait_encode(&r->ext, state) < 0)
		return rec_wr(r, -ENOMEM);
	return rec_write_ext(r, SP_EXT_WAIT);
}

/*
 * Writes the build ids of the modules interned since id `first` (new
 * files or clones): one note read per file, cached.
 */
int
rec_write_buildids(struct recorder *r, uint32_t first)
{
	uint8_t id[REC_BUILDID_MAX];
	const struct sp_module *m;
	struct sp_ext_buildid b;
	uint32_t i, n = sp_modtab_count(r->mods);
	size_t len;

	for (i = first; i < n && !r->werr; i++) {
		m = sp_modtab_get(r->mods, i);
		if (!m || m->is_kernel)
			continue;
		len = rec_buildids_get(r->buildids, m, id);
		if (!len)
			continue;
		b.module_id = i;
		b.id = id;
		b.id_len = len;
		sp_buf_reset(&r->ext);
		if (sp_ext_buildid_encode(&r->ext, &b) < 0)
			return rec_wr(r, -ENOMEM);
		rec_write_ext(r, SP_EXT_BUILDID);
	}
	return r->werr;
}

/* Interns a module and writes its record and build id when new. */
int
rec_intern(struct recorder *r, const struct sp_module *m, uint32_t *id)
{
	uint32_t first = sp_modtab_count(r->mods);
	int rc = rec_wr(r, sp_modtab_intern(r->mods, m, r->w, id));

	return rc < 0 ? rc : rec_write_buildids(r, first);
}

/* Reads a one-line file without its newline; "" when unreadable. */
void
rec_read_line(const char *path, char *buf, size_t size)
{
	FILE *f = fopen(path, "re");

	buf[0] = '\0';
	if (f) {
		if (!fgets(buf, (int)size, f))
			buf[0] = '\0';
		fclose(f);
	}
	buf[strcspn(buf, "\n")] = '\0';
}

int
rec_write_host(struct recorder *r)
{
	char boot[64], host[256], page[32];
	struct utsname u;
	int rc = 0;

	if (uname(&u) < 0)
		memset(&u, 0, sizeof(u));
	rec_read_line("/proc/sys/kernel/random/boot_id", boot, sizeof(boot));
	if (gethostname(host, sizeof(host)) < 0)
		host[0] = '\0';
	host[sizeof(host) - 1] = '\0';
	snprintf(page, sizeof(page), "%ld", sysconf(_SC_PAGESIZE));
	sp_buf_reset(&r->ext);
	rc |= sp_ext_pair_encode(&r->ext, "release", u.release);
	rc |= sp_ext_pair_encode(&r->ext, "bootid", boot);
	rc |= sp_ext_pair_encode(&r->ext, "hostname", host);
	rc |= sp_ext_pair_encode(&r->ext, "arch", u.machine);
	rc |= sp_ext_pair_encode(&r->ext, "pagesize", page);
	rc |= sp_ext_pair_encode(&r->ext, "clock", "monotonic");
	if (rc)
		return rec_wr(r, -ENOMEM);
	return rec_write_ext(r, SP_EXT_HOST);
}

/*
 * Kernel frames resolve against one module spanning the kernel's text,
 * from /proc/kallsyms; when the addresses are hidden they stay
 * module-less, which readers accept.
 */
int
rec_write_kernel_module(struct recorder *r)
{
	static const char path[] = "[kernel.kallsyms]";
	uint64_t stext = 0, etext = 0, a;
	struct sp_module m;
	char line[512], name[256], type;
	uint32_t id;
	FILE *f;

	if (!r->ev.kernel_stacks)
		return 0;
	f = fopen("/proc/kallsyms", "re");
	if (!f)
		return 0;
	while ((!stext || !etext) && fgets(line, sizeof(line), f)) {
		if (sscanf(line, "%" SCNx64 " %c %255s", &a, &type, name) != 3)
			continue;
		if (!strcmp(name, "_stext"))
			stext = a;
		else if (!strcmp(name, "_etext"))
			etext = a;
	}
	fclose(f);
	if (!stext || etext <= stext)
		return 0;
	memset(&m, 0, sizeof(m));
	m.pid = -1;
	m.start = stext;
	m.end = etext;
	m.is_kernel = true;
	m.path = path;
	m.path_len = sizeof(path) - 1;
	return rec_wr(r, sp_modtab_intern(r->mods, &m, r->w, &id));
}

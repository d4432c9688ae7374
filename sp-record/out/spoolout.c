/*
 * spoolout.c: the recorder's output part (spoolout.h): the spool writer,
 * the sticky write error, and the records the recorder writes of its own.
 */
#include <err.h>
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "common/ext.h"
#include "sp-record/files/buildid.h"
#include "sp-record/sys/proc.h"
#include "sp-record/out/spooltrim.h"
#include "sp-record/out/spoolout.h"
#include "sp-record/sys/stopreq.h"
#include "common/banned.h"

struct rec_spoolout {
	struct sp_spool_writer *w;
	const char *name;  /* for messages */
	int werr;          /* sticky write error */
	struct sp_buf ext; /* extension payload scratch */
	struct rec_buildid_set *buildids;
	int fd;            /* the spool's descriptor, not owned */
	uint64_t start;    /* where the spool starts in it (`>>`) */
	bool trimmed;      /* the spool was cut back to kept_bytes */
	bool reader_gone;  /* EPIPE: the output's reader went away */
	bool gone_at_stop; /* ... with the interrupt, which ended it too */
	uint64_t kept_bytes;
	uint64_t start_us; /* the header's wall-clock start */
};

static int write_host(struct rec_spoolout *o);

struct rec_spoolout *
rec_spoolout_new(int fd, const char *name, uint64_t start_us,
		 uint64_t interval_us, struct rec_filepin *pins)
{
	struct rec_spoolout *o = calloc(1, sizeof(*o));

	if (!o)
		return NULL;
	o->name = name;
	o->fd = fd;
	o->start_us = start_us;
	o->start = rec_spooltrim_start(fd);
	o->buildids = rec_buildid_set_new(pins);
	if (o->buildids)
		o->w = sp_spool_writer_new(fd, start_us, interval_us);
	if (!o->w) {
		int e = errno;

		rec_spoolout_free(o);
		errno = e;
		return NULL;
	}
	write_host(o);
	return o;
}

void
rec_spoolout_free(struct rec_spoolout *o)
{
	if (!o)
		return;
	sp_spool_writer_free(o->w);
	rec_buildid_set_free(o->buildids);
	sp_buf_release(&o->ext);
	free(o);
}

int
rec_spoolout_wr(struct rec_spoolout *o, int rc)
{
	if (rc == -EPIPE && !o->werr) {
		o->werr = rc;
		o->reader_gone = true;
		o->gone_at_stop = rec_stopreq_signal != 0;
	} else if (rc < 0 && !o->werr) {
		o->werr = rc;
		warnx("'%s': %s", o->name,
		      rc == -ENOMEM ? strerror(ENOMEM)
				    : sp_spool_writer_errmsg(o->w));
	}
	return rc < 0 ? rc : 0;
}

int
rec_spoolout_error(const struct rec_spoolout *o)
{
	return o->werr;
}

bool
rec_spoolout_reader_gone(const struct rec_spoolout *o, bool *at_stop)
{
	if (at_stop)
		*at_stop = o->gone_at_stop;
	return o->reader_gone;
}

struct sp_spool_writer *
rec_spoolout_writer(struct rec_spoolout *o)
{
	return o->w;
}

struct sp_buf *
rec_spoolout_scratch(struct rec_spoolout *o)
{
	sp_buf_reset(&o->ext);
	return &o->ext;
}

int
rec_spoolout_ext(struct rec_spoolout *o, uint8_t tag)
{
	if (o->werr)
		return o->werr;
	return rec_spoolout_wr(
	    o, sp_spool_writer_ext(o->w, tag, o->ext.data, o->ext.len));
}

int
rec_spoolout_comm(struct rec_spoolout *o, uint64_t ts, int32_t pid, int32_t tid,
		  bool is_exec, const char *name, size_t len)
{
	struct sp_ext_comm c = { ts, pid, (uint64_t)tid, is_exec, name, len };

	if (sp_ext_comm_encode(rec_spoolout_scratch(o), &c) < 0)
		return rec_spoolout_wr(o, -ENOMEM);
	return rec_spoolout_ext(o, SP_EXT_COMM);
}

int
rec_spoolout_lost(struct rec_spoolout *o, uint64_t ts, uint64_t count)
{
	struct sp_ext_lost l = { ts, count };

	if (sp_ext_lost_encode(rec_spoolout_scratch(o), &l) < 0)
		return rec_spoolout_wr(o, -ENOMEM);
	return rec_spoolout_ext(o, SP_EXT_LOST);
}

int
rec_spoolout_exit(struct rec_spoolout *o, uint64_t ts, int32_t pid, int32_t tid)
{
	struct sp_ext_exit x = { ts, pid, (uint64_t)tid };

	if (sp_ext_exit_encode(rec_spoolout_scratch(o), &x) < 0)
		return rec_spoolout_wr(o, -ENOMEM);
	return rec_spoolout_ext(o, SP_EXT_EXIT);
}

int
rec_spoolout_weight(struct rec_spoolout *o, uint32_t event, uint64_t weight)
{
	struct sp_ext_weight w = { event, weight };

	if (sp_ext_weight_encode(rec_spoolout_scratch(o), &w) < 0)
		return rec_spoolout_wr(o, -ENOMEM);
	return rec_spoolout_ext(o, SP_EXT_WEIGHT);
}

int
rec_spoolout_wait(struct rec_spoolout *o, enum sp_wait_state state)
{
	if (sp_ext_wait_encode(rec_spoolout_scratch(o), state) < 0)
		return rec_spoolout_wr(o, -ENOMEM);
	return rec_spoolout_ext(o, SP_EXT_WAIT);
}

int
rec_spoolout_events(struct rec_spoolout *o, const struct rec_events *ev)
{
	struct sp_ext_event e;
	const char *name;
	size_t i;

	for (i = 0; i < ev->opts.nevents && !o->werr; i++) {
		name = rec_events_name(ev, i);
		e.index = (uint32_t)i;
		e.name = name;
		e.name_len = strlen(name);
		e.period = rec_events_period(ev, i);
		e.freq = e.period ? 0 : ev->opts.freq;
		if (sp_ext_event_encode(rec_spoolout_scratch(o), &e) < 0)
			return rec_spoolout_wr(o, -ENOMEM);
		rec_spoolout_ext(o, SP_EXT_EVENT);
	}
	return o->werr;
}

int
rec_spoolout_flush(struct rec_spoolout *o)
{
	if (o->werr)
		return o->werr;
	return rec_spoolout_wr(o, sp_spool_writer_flush(o->w));
}

int
rec_spoolout_buildids(struct rec_spoolout *o, const struct sp_modtab *mods,
		      uint32_t first)
{
	uint8_t id[REC_BUILDID_MAX];
	const struct sp_module *m;
	struct sp_ext_buildid b;
	uint32_t i, n = sp_modtab_count(mods);
	size_t len;

	for (i = first; i < n && !o->werr; i++) {
		m = sp_modtab_get(mods, i);
		if (!m || m->is_kernel)
			continue;
		len = rec_buildid_set_get(o->buildids, m, id);
		if (!len)
			continue;
		b.module_id = i;
		b.id = id;
		b.id_len = len;
		if (sp_ext_buildid_encode(rec_spoolout_scratch(o), &b) < 0)
			return rec_spoolout_wr(o, -ENOMEM);
		rec_spoolout_ext(o, SP_EXT_BUILDID);
	}
	return o->werr;
}

size_t
rec_spoolout_module_buildid(struct rec_spoolout *o, const struct sp_module *m,
			    uint8_t *out)
{
	return rec_buildid_set_get(o->buildids, m, out);
}

int
rec_spoolout_intern(struct rec_spoolout *o, struct sp_modtab *mods,
		    const struct sp_module *m, uint32_t *id)
{
	uint32_t first = sp_modtab_count(mods);
	int rc = rec_spoolout_wr(o, sp_modtab_intern(mods, m, o->w, id));

	return rc < 0 ? rc : rec_spoolout_buildids(o, mods, first);
}

static int
write_host(struct rec_spoolout *o)
{
	char boot[64], host[256], page[32];
	struct sp_buf *b = rec_spoolout_scratch(o);
	struct utsname u;
	int rc = 0;

	if (uname(&u) < 0)
		memset(&u, 0, sizeof(u));
	rec_proc_read_line("/proc/sys/kernel/random/boot_id", boot,
			   sizeof(boot));
	if (gethostname(host, sizeof(host)) < 0)
		host[0] = '\0';
	host[sizeof(host) - 1] = '\0';
	snprintf(page, sizeof(page), "%ld", sysconf(_SC_PAGESIZE));
	rc |= sp_ext_pair_encode(b, "release", u.release);
	rc |= sp_ext_pair_encode(b, "bootid", boot);
	rc |= sp_ext_pair_encode(b, "hostname", host);
	rc |= sp_ext_pair_encode(b, "arch", u.machine);
	rc |= sp_ext_pair_encode(b, "pagesize", page);
	rc |= sp_ext_pair_encode(b, "clock", "monotonic");
	if (rc)
		return rec_spoolout_wr(o, -ENOMEM);
	return rec_spoolout_ext(o, SP_EXT_HOST);
}

int
rec_spoolout_kernel_module(struct rec_spoolout *o, struct sp_modtab *mods)
{
	static const char path[] = "[kernel.kallsyms]";
	uint64_t stext = 0, etext = 0, a;
	struct sp_module m;
	char line[512], name[256], type;
	uint32_t id;
	FILE *f;

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
	return rec_spoolout_wr(o, sp_modtab_intern(mods, &m, o->w, &id));
}

void
rec_spoolout_trim(struct rec_spoolout *o)
{
	int rc;

	if (!o->werr || o->reader_gone)
		return;
	rc = rec_spooltrim(o->fd, o->start, &o->kept_bytes);
	if (rc < 0)
		warnx("'%s': cannot cut the spool back to its last whole "
		      "record: %s",
		      o->name, strerror(-rc));
	o->trimmed = rc > 0;
}

bool
rec_spoolout_trimmed(const struct rec_spoolout *o, uint64_t *kept)
{
	*kept = o->kept_bytes;
	return o->trimmed;
}

uint64_t
rec_spoolout_start_us(const struct rec_spoolout *o)
{
	return o->start_us;
}

uint64_t
rec_spoolout_bytes(const struct rec_spoolout *o)
{
	return o->werr ? sp_spool_writer_delivered(o->w)
		       : sp_spool_writer_bytes(o->w);
}

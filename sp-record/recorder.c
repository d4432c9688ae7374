/*
 * recorder.c: the recording core (see recorder.h): setup for launch and
 * attach, the drain loop, and the handlers that turn perf records into
 * spool records.
 */
#include <dirent.h>
#include <err.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <asm/perf_regs.h>

#include "common/buf.h"
#include "common/ext.h"
#include "common/modtab.h"
#include "common/spool.h"
#include "sp-record/buildid.h"
#include "sp-record/maps.h"
#include "sp-record/perfrec.h"
#include "sp-record/proc.h"
#include "sp-record/ptrace.h"
#include "sp-record/launch.h"
#include "sp-record/recorder.h"
#include "sp-record/sorter.h"
#include "common/banned.h"

/* Kinds of sorter events: perf records, and our own synthetic ones. */
enum { KIND_PERF, KIND_RETIRE };

/* A process found dead; retired in time order once earlier events ran. */
struct retire {
	int32_t pid;
	uint32_t pad;
	uint64_t start_time;
};

#define HOUSEKEEPING_NS 100000000ULL	/* liveness checks and flushes */
#define MISSED_REFRESH_NS 100000000ULL	/* maps reads for unwinder misses */
#define PTRACE_MAPS_NS 250000000ULL	/* --ptrace: maps re-read period */

struct recorder {
	struct rec_config cfg;
	struct rec_events ev;
	struct rec_layout layout;
	struct rec_sorter *sorter;
	struct sp_spool_writer *w;
	struct sp_modtab *mods;
	struct rec_ptab procs;
	struct rec_stacker stk;
	struct rec_stats st;
	struct sp_buf ext;		/* extension payload scratch */
	struct sp_buf maps;		/* /proc/PID/maps scratch */
	struct sp_frame *frames;	/* REC_STACK_MAX */
	struct rec_buildids *buildids;
	struct pollfd *pfd;
	bool *hup;			/* ring fd reported POLLHUP */
	int werr;			/* sticky write error */
	bool stopped;
	bool gap;			/* events lost since the last sweep */
	pid_t child;
	bool child_reaped;
	int child_status;
	uint64_t last_check_ns;
	uint64_t last_flush_ns;
	uint64_t last_maps_ns;		/* --ptrace: last periodic maps read */
	struct sp_ptrace *pt;		/* --ptrace sampler, or NULL */
	struct sp_ptrace_summary ptsum;
};

static uint64_t
now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

/* Remembers the first write error; returns rc. */
static int
wr(struct recorder *r, int rc)
{
	if (rc < 0 && !r->werr) {
		r->werr = rc;
		warnx("'%s': %s", r->cfg.output_name,
		      rc == -ENOMEM ? strerror(ENOMEM)
				    : sp_spool_writer_errmsg(r->w));
	}
	return rc < 0 ? rc : 0;
}

static int
write_ext(struct recorder *r, uint8_t tag)
{
	if (r->werr)
		return r->werr;
	return wr(r, sp_spool_writer_ext(r->w, tag, r->ext.data, r->ext.len));
}

static int
write_comm(struct recorder *r, uint64_t ts, int32_t pid, int32_t tid,
	   bool is_exec, const char *name, size_t len)
{
	struct sp_ext_comm c = { ts, pid, (uint64_t)tid, is_exec, name, len };

	sp_buf_reset(&r->ext);
	if (sp_ext_comm_encode(&r->ext, &c) < 0)
		return wr(r, -ENOMEM);
	return write_ext(r, SP_EXT_COMM);
}

static int
write_lost(struct recorder *r, uint64_t ts, uint64_t count)
{
	struct sp_ext_lost l = { ts, count };

	sp_buf_reset(&r->ext);
	if (sp_ext_lost_encode(&r->ext, &l) < 0)
		return wr(r, -ENOMEM);
	return write_ext(r, SP_EXT_LOST);
}

static int
write_exit(struct recorder *r, uint64_t ts, int32_t pid, int32_t tid)
{
	struct sp_ext_exit x = { ts, pid, (uint64_t)tid };

	sp_buf_reset(&r->ext);
	if (sp_ext_exit_encode(&r->ext, &x) < 0)
		return wr(r, -ENOMEM);
	return write_ext(r, SP_EXT_EXIT);
}

/*
 * Writes the build ids of the modules interned since id `first` (new
 * files or clones): one note read per file, cached.
 */
static int
write_buildids(struct recorder *r, uint32_t first)
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
		len = rec_buildids_get(r->buildids, m->pid, m->path,
				       m->path_len, m->inode, id);
		if (!len)
			continue;
		b.module_id = i;
		b.id = id;
		b.id_len = len;
		sp_buf_reset(&r->ext);
		if (sp_ext_buildid_encode(&r->ext, &b) < 0)
			return wr(r, -ENOMEM);
		write_ext(r, SP_EXT_BUILDID);
	}
	return r->werr;
}

/* Interns a module and writes its record and build id when new. */
static int
intern(struct recorder *r, const struct sp_module *m, uint32_t *id)
{
	uint32_t first = sp_modtab_count(r->mods);
	int rc = wr(r, sp_modtab_intern(r->mods, m, r->w, id));

	return rc < 0 ? rc : write_buildids(r, first);
}

/* Reads a one-line file without its newline; "" when unreadable. */
static void
read_line(const char *path, char *buf, size_t size)
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

static int
write_host(struct recorder *r)
{
	char boot[64], host[256], page[32];
	struct utsname u;
	int rc = 0;

	if (uname(&u) < 0)
		memset(&u, 0, sizeof(u));
	read_line("/proc/sys/kernel/random/boot_id", boot, sizeof(boot));
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
		return wr(r, -ENOMEM);
	return write_ext(r, SP_EXT_HOST);
}

/*
 * Kernel frames resolve against one module spanning the kernel's text,
 * from /proc/kallsyms; when the addresses are hidden they stay
 * module-less, which readers accept.
 */
static int
write_kernel_module(struct recorder *r)
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
	return wr(r, sp_modtab_intern(r->mods, &m, r->w, &id));
}

struct recorder *
rec_new(const struct rec_config *cfg, int fd)
{
	struct recorder *r = calloc(1, sizeof(*r));
	struct timespec wall;
	uint64_t start_us, interval_us;
	int rc;

	if (!r) {
		warn("calloc");
		return NULL;
	}
	r->cfg = *cfg;
	rc = rec_stacker_init(&r->stk, cfg->callgraph, cfg->ev.regs_mask, 0);
	if (rc < 0 && cfg->callgraph == REC_CG_DWARF) {
		warnx("DWARF unwinding is not available (%s): recording "
		      "frame-pointer stacks", strerror(-rc));
		r->cfg.callgraph = REC_CG_FP;
		r->cfg.ev.dwarf = false;
		rc = rec_stacker_init(&r->stk, REC_CG_FP, 0, 0);
	}
	if (rc == 0)
		rc = rec_events_init(&r->ev, &r->cfg.ev);
	if (rc == 0)
		rc = rec_layout_init(&r->layout, r->ev.attr.sample_type,
				     r->ev.attr.sample_regs_user);
	r->stk.max_chain = r->ev.attr.sample_max_stack;
	r->stk.kernel = r->ev.kernel_stacks;
	if (rc == 0)
		rc = rec_ptab_init(&r->procs);
	r->sorter = rec_sorter_new();
	r->mods = sp_modtab_new();
	r->buildids = rec_buildids_new();
	r->frames = calloc(REC_STACK_MAX, sizeof(*r->frames));
	r->pfd = calloc((size_t)r->ev.ncpus + 1, sizeof(*r->pfd));
	r->hup = calloc((size_t)r->ev.ncpus + 1, sizeof(*r->hup));
	if (rc < 0 || !r->sorter || !r->mods || !r->frames || !r->pfd ||
	    !r->hup || !r->buildids) {
		warnx("cannot set up the recorder: %s",
		      strerror(rc < 0 ? -rc : ENOMEM));
		rec_free(r);
		return NULL;
	}
	clock_gettime(CLOCK_REALTIME, &wall);
	start_us = (uint64_t)wall.tv_sec * 1000000 +
		   (uint64_t)wall.tv_nsec / 1000;
	interval_us = cfg->ev.freq ? (1000000 + cfg->ev.freq / 2) /
				     cfg->ev.freq : 0;
	r->w = sp_spool_writer_new(fd, start_us, interval_us);
	if (!r->w) {
		warn("cannot create the spool writer");
		rec_free(r);
		return NULL;
	}
	write_host(r);
	r->last_check_ns = r->last_flush_ns = now_ns();
	return r;
}

void
rec_free(struct recorder *r)
{
	if (!r)
		return;
	sp_ptrace_free(r->pt);
	rec_events_release(&r->ev);
	rec_stacker_release(&r->stk);
	rec_ptab_release(&r->procs);
	rec_sorter_free(r->sorter);
	sp_spool_writer_free(r->w);
	sp_modtab_free(r->mods);
	rec_buildids_free(r->buildids);
	sp_buf_release(&r->ext);
	sp_buf_release(&r->maps);
	free(r->frames);
	free(r->pfd);
	free(r->hup);
	free(r);
}

/* ------------------------------------------------------------------ */
/* Process bookkeeping */

/* Writes the runtime marker the first time a Python runtime shows up. */
static int
mark_python(struct recorder *r, struct rec_proc *p, uint64_t ts)
{
	if (p->python_runtime)
		return 0;
	p->python_runtime = true;
	if (r->werr)
		return r->werr;
	return wr(r, sp_spool_writer_exec(r->w, ts, p->pid, true));
}

static bool
python_support(struct rec_proc *p)
{
	if (p->python_support < 0)
		p->python_support = rec_proc_python_perf(p->pid);
	return p->python_support > 0;
}

/*
 * Whether interning module `id` over [m->start, m->end) replaced code of
 * another module, as read just before (lo, hi: what the ends resolved
 * to): the unwinder must then forget what it learnt of the process.
 */
static bool
replaces(const struct sp_frame *lo, const struct sp_frame *hi, uint32_t id)
{
	return (lo->module_id != SP_NONE && lo->module_id != id) ||
	       (hi->module_id != SP_NONE && hi->module_id != id);
}

/*
 * Interns every module of a maps snapshot of `p`; marks the Python
 * runtime when one is mapped and perf support is on.  A mapping that
 * replaced another one (a refresh after dlclose and dlopen, which
 * --ptrace sees only this way) resets the unwinder's view of `p`.
 */
static int
register_maps(struct recorder *r, struct rec_proc *p, uint64_t ts)
{
	const char *text = (const char *)r->maps.data;
	bool python = false, replaced = false;
	struct sp_frame lo, hi;
	struct sp_module m;
	struct rec_map map;
	size_t pos = 0;
	uint32_t id;
	int rc;

	while (rec_maps_next(text, r->maps.len, &pos, &map, NULL) == 1) {
		if (!rec_map_is_module(&map)) {
			if (map.perms[2] == 'x')	/* anonymous code */
				(void)rec_stacker_add_code(&r->stk, p->pid,
							   map.start, map.end);
			continue;
		}
		memset(&m, 0, sizeof(m));
		m.pid = p->pid;
		m.start = map.start;
		m.end = map.end;
		m.file_offset = map.offset;
		m.inode = map.inode;
		m.path = map.path;
		m.path_len = map.path_len;
		sp_modtab_resolve(r->mods, p->pid, m.start, SP_FRAME_USER, &lo);
		sp_modtab_resolve(r->mods, p->pid, m.end - 1, SP_FRAME_USER,
				  &hi);
		rc = intern(r, &m, &id);
		if (rc < 0)
			return rc;
		replaced |= replaces(&lo, &hi, id);
		python |= rec_is_python_runtime_path(map.path, map.path_len);
	}
	if (replaced)
		rec_stacker_forget(&r->stk, p->pid);
	if (python && python_support(p))
		return mark_python(r, p, ts);
	return 0;
}

/* Reads /proc/PID/maps of `p` and interns its modules. */
static int
snapshot_maps(struct recorder *r, struct rec_proc *p, uint64_t ts)
{
	if (rec_maps_read(p->pid, &r->maps) < 0)
		return 0;	/* gone: its EXIT is on its way */
	return register_maps(r, p, ts);
}

/* Starts tracking `pid`; its start time tells generations apart. */
static struct rec_proc *
track(struct recorder *r, int32_t pid, bool target)
{
	struct rec_proc *p = rec_ptab_add(&r->procs, pid);
	char state;

	if (!p) {
		wr(r, -ENOMEM);
		return NULL;
	}
	p->target = target;
	if (rec_proc_stat(pid, &state, &p->start_time) < 0)
		p->start_time = 0;
	return p;
}

/* A process ended (or its pid was reused): close its module epoch. */
static int
retire(struct recorder *r, int32_t pid, uint64_t ts)
{
	struct rec_proc *p = rec_ptab_get(&r->procs, pid);
	int rc = 0;

	if (!p)
		return 0;
	if (p->python_runtime && !r->werr)
		rc = wr(r, sp_spool_writer_exec(r->w, ts, pid, false));
	if (!rc && !r->werr)
		rc = wr(r, sp_modtab_deactivate(r->mods, pid, r->w));
	rec_stacker_end(&r->stk, pid);
	rec_ptab_remove(&r->procs, pid);
	r->procs.procs_exited++;
	return rc;
}

/* ------------------------------------------------------------------ */
/* Handlers, called in timestamp order */

/* Names a thread first seen in a sample, from /proc. */
static int
ensure_thread(struct recorder *r, struct rec_proc *p, int32_t tid,
	      uint64_t ts)
{
	struct rec_thread *th = rec_ptab_thread(&r->procs, tid);
	char comm[REC_COMM_MAX];

	if (th && th->pid == p->pid)
		return 0;
	if (rec_proc_comm(p->pid, tid, comm, sizeof(comm)) < 0)
		comm[0] = '\0';
	if (!rec_ptab_add_thread(&r->procs, p->pid, tid, comm, strlen(comm)))
		return wr(r, -ENOMEM);
	if (!comm[0])
		return 0;
	return write_comm(r, ts, p->pid, tid, false, comm, strlen(comm));
}

/* A pc no module covers: the maps may have changed unseen; once a page. */
static int
cover_pc(struct recorder *r, struct rec_proc *p, const struct rec_sample *s)
{
	struct sp_frame f;
	uint64_t pc;

	if (!rec_sample_user_pc(&r->stk, s, &pc))
		return 0;
	sp_modtab_resolve(r->mods, p->pid, pc, SP_FRAME_USER, &f);
	if (f.module_id != SP_NONE || !rec_proc_first_uncovered(p, pc))
		return 0;
	r->st.maps_refreshes++;
	return snapshot_maps(r, p, s->time);
}

/*
 * With --ptrace no MMAP2 record announces a library loaded after the
 * maps snapshot, and a caller frame in it comes out of the unwinder
 * without module and without CFI.  Re-reads /proc/PID/maps then, at most
 * once per 100 ms and once per page of the missed pc; returns 1 when it
 * did (the sample is worth unwinding again), 0 when not, or the error.
 */
static int
cover_missed(struct recorder *r, struct rec_proc *p, uint64_t ts)
{
	uint64_t pc, now;
	int rc;

	if (!r->pt || !rec_stacker_missed_module(&r->stk, &pc))
		return 0;
	now = now_ns();
	if (p->missed_refresh_ns &&
	    now - p->missed_refresh_ns < MISSED_REFRESH_NS)
		return 0;
	if (!rec_proc_first_uncovered(p, pc))
		return 0;
	p->missed_refresh_ns = now;
	r->st.maps_refreshes++;
	rc = snapshot_maps(r, p, ts);
	return rc < 0 ? rc : 1;
}

/*
 * Unwinds and writes one sample of tracked process `p`.  A sample whose
 * unwinding led to a maps refresh is unwound again (the unwinder's own
 * counters count both passes; the truncation count only the second).
 */
static int
write_sample(struct recorder *r, struct rec_proc *p,
	     const struct rec_sample *s)
{
	struct rec_stack_stats before = r->stk.stats;
	uint32_t stack_id;
	size_t n;
	int rc;

	rc = ensure_thread(r, p, (int32_t)s->tid, s->time);
	if (rc == 0)
		rc = cover_pc(r, p, s);
	if (rc < 0)
		return rc;
	n = rec_stack_build(&r->stk, r->mods, p->pid, s, r->frames);
	rc = cover_missed(r, p, s->time);
	if (rc < 0)
		return rc;
	if (rc > 0) {
		r->stk.stats = before;
		n = rec_stack_build(&r->stk, r->mods, p->pid, s, r->frames);
	}
	rc = wr(r, sp_spool_writer_sample(r->w, s->time, p->pid, s->tid,
					  r->frames, n, &stack_id));
	if (rc < 0)
		return rc;
	if (stack_id == SP_NONE) {
		r->st.empty_stacks++;
	} else {
		r->st.samples++;
		p->samples++;
	}
	return 0;
}

static int
on_sample(struct recorder *r, const struct rec_event *e)
{
	struct rec_sample s;
	struct rec_proc *p;

	if (rec_sample_parse(&r->layout, e->data, e->len, &s) < 0) {
		r->st.bad_records++;
		return 0;
	}
	r->st.sample_events++;
	if (s.pid == 0 || s.tid == 0 || s.tid > INT32_MAX) {
		r->st.idle++;
		return 0;
	}
	p = s.pid <= INT32_MAX ? rec_ptab_get(&r->procs, (int32_t)s.pid)
			       : NULL;
	if (!p) {
		r->st.untracked++;
		return 0;
	}
	return write_sample(r, p, &s);
}

static bool
mmap_is_module(const struct rec_mmap2 *m)
{
	if (!(m->prot & PROT_EXEC) || m->len == 0)
		return false;
	if (m->path_len > 0 && m->path[0] == '/')
		return true;
	return m->path_len == 6 && !memcmp(m->path, "[vdso]", 6);
}

/* Executable memory without a file: JIT code, Python's trampolines. */
static bool
mmap_is_anon_code(const struct rec_mmap2 *m)
{
	return (m->prot & PROT_EXEC) && m->len > 0 &&
	       !(m->path_len > 0 && m->path[0] == '/');
}

static int
on_mmap2(struct recorder *r, const struct rec_event *e, uint64_t ts)
{
	struct sp_frame lo, hi;
	struct rec_mmap2 mm;
	struct sp_module m;
	struct rec_proc *p;
	uint32_t id;
	int rc;

	if (rec_mmap2_parse(&r->layout, e->data, e->len, &mm) < 0) {
		r->st.bad_records++;
		return 0;
	}
	if (mm.pid > INT32_MAX)
		return 0;
	p = rec_ptab_get(&r->procs, (int32_t)mm.pid);
	if (!p)
		return 0;
	/* Out of memory, a missing range only ends some stacks early. */
	if (!mmap_is_module(&mm)) {
		if (mmap_is_anon_code(&mm))
			(void)rec_stacker_add_code(&r->stk, p->pid, mm.addr,
						   mm.addr + mm.len);
		return 0;
	}
	memset(&m, 0, sizeof(m));
	m.pid = p->pid;
	m.start = mm.addr;
	m.end = mm.addr + mm.len;
	m.file_offset = mm.pgoff;
	m.inode = mm.has_build_id ? 0 : mm.ino;
	m.path = mm.path;
	m.path_len = mm.path_len;
	/* A mapping over an older one replaces code the unwinder knows. */
	sp_modtab_resolve(r->mods, p->pid, m.start, SP_FRAME_USER, &lo);
	sp_modtab_resolve(r->mods, p->pid, m.end - 1, SP_FRAME_USER, &hi);
	rc = intern(r, &m, &id);
	if (rc < 0)
		return rc;
	r->st.mmaps++;
	if (replaces(&lo, &hi, id))
		rec_stacker_forget(&r->stk, p->pid);
	if (rec_is_python_runtime_path(mm.path, mm.path_len) &&
	    python_support(p))
		return mark_python(r, p, ts);
	return 0;
}

/* A new program: the process's old modules no longer apply. */
static int
exec_epoch(struct recorder *r, struct rec_proc *p, uint64_t ts)
{
	int rc;

	r->st.execs++;
	rc = wr(r, sp_spool_writer_exec(r->w, ts, p->pid, false));
	if (rc == 0)
		rc = wr(r, sp_modtab_deactivate(r->mods, p->pid, r->w));
	p->python_runtime = false;
	p->python_support = -1;
	rec_proc_clear_uncovered(p);
	rec_stacker_end(&r->stk, p->pid);
	return rc;
}

static int
on_comm(struct recorder *r, const struct rec_event *e, uint64_t ts)
{
	struct rec_comm c;
	struct rec_proc *p;
	int rc;

	if (rec_comm_parse(&r->layout, e->data, e->len, &c) < 0) {
		r->st.bad_records++;
		return 0;
	}
	if (c.pid > INT32_MAX || c.tid > INT32_MAX)
		return 0;
	p = rec_ptab_get(&r->procs, (int32_t)c.pid);
	if (!p)
		return 0;
	if (c.is_exec) {
		rc = exec_epoch(r, p, ts);
		if (rc < 0)
			return rc;
	}
	if (!rec_ptab_add_thread(&r->procs, p->pid, (int32_t)c.tid, c.name,
				 c.name_len))
		return wr(r, -ENOMEM);
	return write_comm(r, ts, p->pid, (int32_t)c.tid, c.is_exec, c.name,
			  c.name_len);
}

/* Names a new thread after the thread that created it, as the kernel. */
static int
new_thread(struct recorder *r, int32_t pid, int32_t tid, int32_t ptid,
	   uint64_t ts)
{
	struct rec_thread *parent = rec_ptab_thread(&r->procs, ptid);
	char comm[REC_COMM_MAX] = "";

	if (parent)
		memcpy(comm, parent->comm, sizeof(comm));
	else if (rec_proc_comm(pid, tid, comm, sizeof(comm)) < 0)
		comm[0] = '\0';
	if (!rec_ptab_add_thread(&r->procs, pid, tid, comm, strlen(comm)))
		return wr(r, -ENOMEM);
	if (!comm[0])
		return 0;
	return write_comm(r, ts, pid, tid, false, comm, strlen(comm));
}

static int
on_fork(struct recorder *r, const struct rec_event *e, uint64_t ts)
{
	struct rec_proc *parent, *child;
	struct rec_task t;
	int32_t pid, ppid;
	uint32_t first;
	int rc;

	if (rec_task_parse(e->data, e->len, &t) < 0) {
		r->st.bad_records++;
		return 0;
	}
	if (t.pid > INT32_MAX || t.ppid > INT32_MAX || t.tid > INT32_MAX ||
	    t.ptid > INT32_MAX)
		return 0;
	pid = (int32_t)t.pid;
	ppid = (int32_t)t.ppid;
	if (pid == ppid) {
		if (t.tid == t.ptid || !rec_ptab_get(&r->procs, pid))
			return 0;
		return new_thread(r, pid, (int32_t)t.tid, (int32_t)t.ptid, ts);
	}
	parent = rec_ptab_get(&r->procs, ppid);
	if (!parent)
		return 0;
	r->st.forks++;
	if (!r->cfg.follow)
		return 0;
	/* Still tracked under this pid: an older process that went away. */
	if (rec_ptab_get(&r->procs, pid)) {
		rc = retire(r, pid, ts);
		if (rc < 0)
			return rc;
	}
	child = track(r, pid, false);
	if (!child)
		return r->werr;
	parent = rec_ptab_get(&r->procs, ppid);
	child->python_support = parent->python_support;
	if (parent->python_runtime) {
		rc = mark_python(r, child, ts);
		if (rc < 0)
			return rc;
	}
	first = sp_modtab_count(r->mods);
	rc = wr(r, sp_modtab_clone(r->mods, ppid, pid, r->w));
	if (rc == 0)
		rc = write_buildids(r, first);
	if (rc < 0)
		return rc;
	return new_thread(r, pid, (int32_t)t.tid, (int32_t)t.ptid, ts);
}

static int
on_exit_record(struct recorder *r, const struct rec_event *e, uint64_t ts)
{
	struct rec_task t;

	if (rec_task_parse(e->data, e->len, &t) < 0) {
		r->st.bad_records++;
		return 0;
	}
	if (t.pid > INT32_MAX || t.tid > INT32_MAX ||
	    !rec_ptab_get(&r->procs, (int32_t)t.pid))
		return 0;
	rec_ptab_remove_thread(&r->procs, (int32_t)t.tid);
	return write_exit(r, ts, (int32_t)t.pid, (int32_t)t.tid);
}

static int
on_lost(struct recorder *r, const struct rec_event *e, uint64_t ts)
{
	uint64_t n;

	if (rec_lost_parse(e->data, e->len, &n) < 0) {
		r->st.bad_records++;
		return 0;
	}
	r->st.lost += n;
	r->gap = n > 0;
	return write_lost(r, ts, n);
}

static int
on_retire(struct recorder *r, const struct rec_event *e)
{
	struct rec_proc *p;
	struct retire rt;

	if (e->len != sizeof(rt))
		return 0;
	memcpy(&rt, e->data, sizeof(rt));
	p = rec_ptab_get(&r->procs, rt.pid);
	/* Only the generation that was found dead. */
	if (!p || !p->retiring || p->start_time != rt.start_time)
		return 0;
	return retire(r, rt.pid, e->ts);
}

static int
handle(struct recorder *r, const struct rec_event *e)
{
	const struct perf_event_header *h = (const void *)e->data;

	if (e->kind == KIND_RETIRE)
		return on_retire(r, e);
	switch (h->type) {
	case PERF_RECORD_SAMPLE:
		return on_sample(r, e);
	case PERF_RECORD_MMAP2:
		return on_mmap2(r, e, e->ts);
	case PERF_RECORD_COMM:
		return on_comm(r, e, e->ts);
	case PERF_RECORD_FORK:
		return on_fork(r, e, e->ts);
	case PERF_RECORD_EXIT:
		return on_exit_record(r, e, e->ts);
	case PERF_RECORD_LOST:
	case PERF_RECORD_LOST_SAMPLES:
		return on_lost(r, e, e->ts);
	case PERF_RECORD_THROTTLE:
		r->st.throttles++;
		return 0;
	default:
		return 0;
	}
}

/* ------------------------------------------------------------------ */
/* Draining */

/*
 * Queues one ring record.  A sample's stack copy is cut to the bytes the
 * kernel filled (dyn_size) as it is copied out of the ring, straight into
 * the sorter's event: one copy of what is used, not of the whole
 * --stack-size the ring holds.
 */
static int
queue_record(struct recorder *r, const struct perf_event_header *h)
{
	struct rec_sample s;
	struct rec_event *e;
	uint64_t ts;
	size_t n;

	if (rec_record_time(&r->layout, h, h->size, &ts) < 0)
		r->st.bad_records++;
	n = h->type == PERF_RECORD_SAMPLE
		? rec_sample_compact_size(&r->layout, h, h->size, &s) : 0;
	if (!(e = rec_sorter_reserve(r->sorter, n ? n : h->size)))
		return -ENOMEM;
	if (n)
		rec_sample_compact_write(h, &s, n, e->data);
	else
		memcpy(e->data, h, h->size);
	return rec_sorter_queue(r->sorter, e, ts, KIND_PERF, n ? n : h->size);
}

/* Reads every ring once, queueing its records: one sorter round. */
static int
drain_rings(struct recorder *r)
{
	const struct perf_event_header *h;
	struct rec_ring *ring;
	int c, rc;

	for (c = 0; c < r->ev.ncpus; c++) {
		ring = &r->ev.rings[c];
		if (ring->fd < 0)
			continue;
		rec_ring_begin(ring);
		while ((rc = rec_ring_next(ring, &h)) == 1) {
			if (queue_record(r, h) < 0) {
				rec_ring_end(ring);
				return wr(r, -ENOMEM);
			}
		}
		if (rc < 0)
			r->st.bad_records++;
		rec_ring_end(ring);
	}
	rec_sorter_end_round(r->sorter);
	return 0;
}

/* Handles the ready events (all of them with `force`). */
static int
process_ready(struct recorder *r, bool force)
{
	struct rec_event *e;

	while (!r->werr && (e = rec_sorter_pop(r->sorter, force))) {
		handle(r, e);
		rec_sorter_release(r->sorter, e);
	}
	return r->werr;
}

struct check_ctx {
	struct recorder *r;
	uint64_t now;
};

/* A zombie leader may still have live threads (it called pthread_exit). */
static bool
group_alive(int32_t pid)
{
	int32_t *tids;
	long n = rec_proc_tasks(pid, &tids);

	free(tids);
	return n > 1;
}

static void
check_one(struct rec_proc *p, void *arg)
{
	struct check_ctx *cc = arg;
	struct retire rt = { p->pid, 0, p->start_time };
	uint64_t start;
	bool dead;
	char state;
	int rc;

	if (p->retiring)
		return;
	rc = rec_proc_stat(p->pid, &state, &start);
	if (rc == -ENOENT || rc == -ESRCH)
		dead = true;
	else if (rc < 0)
		dead = false;
	else if (p->start_time && start != p->start_time)
		dead = true;
	else
		dead = (state == 'Z' || state == 'X') && !group_alive(p->pid);
	if (!dead)
		return;
	/* Retire after every event already written before its death. */
	if (rec_sorter_push(cc->r->sorter, cc->now, KIND_RETIRE, &rt,
			    sizeof(rt)) == 0)
		p->retiring = true;
}

static void
check_processes(struct recorder *r, uint64_t now)
{
	struct check_ctx cc = { r, now };

	rec_ptab_each(&r->procs, check_one, &cc);
}

static int name_threads(struct recorder *r, int32_t pid, uint64_t ts);

/*
 * Lost events may include the FORK of a child -f should follow: adopt
 * every untracked process whose parent is tracked, with its maps and
 * thread names, until none is left (grandchildren come in later passes).
 */
static void
adopt_children(struct recorder *r, uint64_t now)
{
	struct rec_proc *p;
	struct dirent *e;
	int32_t pid, ppid;
	int pass, found;
	char *end;
	long v;
	DIR *d;

	for (pass = 0, found = 1; pass < 8 && found && !r->werr; pass++) {
		d = opendir("/proc");
		if (!d)
			return;
		found = 0;
		while ((e = readdir(d)) && !r->werr) {
			v = strtol(e->d_name, &end, 10);
			if (*end || v <= 0 || v > INT32_MAX)
				continue;
			pid = (int32_t)v;
			if (rec_ptab_get(&r->procs, pid) ||
			    rec_proc_ppid(pid, &ppid) < 0 ||
			    !rec_ptab_get(&r->procs, ppid))
				continue;
			p = track(r, pid, false);
			if (!p)
				break;
			r->st.adopted++;
			found = 1;
			if (snapshot_maps(r, p, now) == 0)
				name_threads(r, pid, now);
		}
		closedir(d);
	}
}

int
rec_step(struct recorder *r, int timeout_ms)
{
	int c, n = 0, rc;
	uint64_t now;

	if (r->werr)
		return r->werr;
	for (c = 0; c < r->ev.ncpus; c++) {
		if (r->ev.rings[c].fd < 0 || r->hup[c])
			continue;
		r->pfd[n].fd = r->ev.rings[c].fd;
		r->pfd[n].events = POLLIN;
		r->pfd[n].revents = 0;
		n++;
	}
	rc = poll(r->pfd, (nfds_t)n, timeout_ms);
	/* A ring whose events all ended reports POLLHUP forever: stop
	 * polling it (it is still drained) so the loop does not spin. */
	for (c = 0; rc > 0 && c < n; c++)
		if (r->pfd[c].revents & (POLLHUP | POLLERR)) {
			int k;

			for (k = 0; k < r->ev.ncpus; k++)
				if (r->ev.rings[k].fd == r->pfd[c].fd)
					r->hup[k] = true;
		}
	drain_rings(r);
	process_ready(r, false);
	rec_reap(r, false, NULL);
	now = now_ns();
	if (now - r->last_check_ns >= HOUSEKEEPING_NS) {
		r->last_check_ns = now;
		check_processes(r, now);
		if (r->gap && r->cfg.follow)
			adopt_children(r, now);
		r->gap = false;
	}
	if (!r->werr && now - r->last_flush_ns >= HOUSEKEEPING_NS) {
		r->last_flush_ns = now;
		wr(r, sp_spool_writer_flush(r->w));
	}
	return r->werr;
}

bool
rec_targets_gone(struct recorder *r)
{
	return r->procs.nprocs == 0 && (r->child <= 0 || r->child_reaped);
}

int
rec_failed(const struct recorder *r)
{
	return r->werr;
}

pid_t
rec_child(const struct recorder *r)
{
	return r->child_reaped ? 0 : r->child;
}

bool
rec_reap(struct recorder *r, bool block, int *status)
{
	int st;
	pid_t rc;

	if (r->child <= 0)
		return false;
	if (!r->child_reaped) {
		do
			rc = waitpid(r->child, &st, block ? 0 : WNOHANG);
		while (rc < 0 && errno == EINTR && block);
		if (rc == r->child) {
			r->child_reaped = true;
			r->child_status = st;
		}
	}
	if (r->child_reaped && status)
		*status = r->child_status;
	return r->child_reaped;
}

static void
add_counter(const char *key, uint64_t value, void *arg)
{
	struct sp_buf *b = arg;

	sp_ext_counter_encode(b, key, value);
}

static int
write_stats(struct recorder *r)
{
	const struct rec_stats *s = &r->st;
	struct sp_buf *b = &r->ext;
	int rc = 0;

	sp_buf_reset(b);
	rc |= sp_ext_counter_encode(b, "sample_events", s->sample_events);
	rc |= sp_ext_counter_encode(b, "samples", s->samples);
	rc |= sp_ext_counter_encode(b, "lost", s->lost);
	rc |= sp_ext_counter_encode(b, "untracked_samples", s->untracked);
	rc |= sp_ext_counter_encode(b, "idle_samples", s->idle);
	rc |= sp_ext_counter_encode(b, "empty_stacks", s->empty_stacks);
	rc |= sp_ext_counter_encode(b, "bad_records", s->bad_records);
	rc |= sp_ext_counter_encode(b, "throttles", s->throttles);
	rc |= sp_ext_counter_encode(b, "truncated_markers",
				    r->stk.stats.truncated);
	rc |= sp_ext_counter_encode(b, "ip_only_stacks", r->stk.stats.ip_only);
	rc |= sp_ext_counter_encode(b, "ignored_user_callchain_frames",
				    r->stk.stats.ignored_user_frames);
	rc |= sp_ext_counter_encode(b, "maps_refreshes", s->maps_refreshes);
	rc |= sp_ext_counter_encode(b, "mmaps", s->mmaps);
	rc |= sp_ext_counter_encode(b, "execs", s->execs);
	rc |= sp_ext_counter_encode(b, "forks", s->forks);
	rc |= sp_ext_counter_encode(b, "adopted_children", s->adopted);
	rc |= sp_ext_counter_encode(b, "processes", r->procs.procs_seen);
	rc |= sp_ext_counter_encode(b, "threads", r->procs.threads_seen);
	rc |= sp_ext_counter_encode(b, "wrapped_records", s->wrapped);
	if (rc)
		return wr(r, -ENOMEM);
	rec_stacker_counters(&r->stk, add_counter, b);
	return write_ext(r, SP_EXT_STATS);
}

int
rec_stop(struct recorder *r)
{
	uint64_t counted;
	int c;

	if (r->stopped)
		return r->werr;
	r->stopped = true;
	rec_events_disable(&r->ev);
	if (!r->werr) {
		drain_rings(r);
		process_ready(r, true);
	}
	for (c = 0; c < r->ev.ncpus; c++)
		r->st.wrapped += r->ev.rings[c].wrapped;
	/* The per-event counters also see losses no LOST record told. */
	if (rec_events_lost(&r->ev, &counted) && counted > r->st.lost &&
	    !r->werr) {
		write_lost(r, now_ns(), counted - r->st.lost);
		r->st.lost = counted;
	}
	if (!r->werr)
		write_stats(r);
	if (!r->werr)
		wr(r, sp_spool_writer_flush(r->w));
	return r->werr;
}

/* ------------------------------------------------------------------ */
/* Setup */

static const char *
paranoid(void)
{
	static char v[32];

	read_line("/proc/sys/kernel/perf_event_paranoid", v, sizeof(v));
	return v[0] ? v : "unknown";
}

/* Says once what the kernel made us change. */
static void
announce(struct recorder *r)
{
	if (r->ev.fell_back)
		warnx("hardware cycles are not supported here: sampling "
		      "cpu-clock");
	if (r->ev.kernel_denied)
		warnx("kernel stacks are not permitted (kernel."
		      "perf_event_paranoid is %s; run as root or grant "
		      "CAP_PERFMON): recording user stacks only", paranoid());
	r->stk.max_chain = r->ev.attr.sample_max_stack;
	r->stk.kernel = r->ev.kernel_stacks;
}

/*
 * Says why the command could not be executed; returns the shell's status
 * for it (127 not found, 126 not executable).  A name without a slash
 * was searched in PATH, where ENOENT means no such command.
 */
static int
exec_failed(const char *cmd, int e)
{
	if (e == ENOENT && !strchr(cmd, '/'))
		warnx("'%s': command not found", cmd);
	else
		warnx("'%s': %s", cmd, strerror(e));
	return e == ENOENT ? 127 : 126;
}

int
rec_launch(struct recorder *r, char **argv)
{
	struct rec_child c;
	struct rec_proc *p;
	int e, rc;

	if ((rc = rec_child_fork(&c, argv, r->cfg.spool_on_stdout)) < 0) {
		warnx("cannot start '%s': %s", argv[0], strerror(-rc));
		return 1;
	}
	r->child = c.pid;
	p = track(r, c.pid, true);
	rc = p ? rec_events_open_launch(&r->ev, c.pid) : -ENOMEM;
	if (rc < 0) {
		warnx("%s", r->ev.errmsg[0] ? r->ev.errmsg : strerror(-rc));
		rec_child_abort(&c);
		rec_reap(r, true, NULL);
		return 1;
	}
	write_kernel_module(r);
	/* Events are in place: let the child execute the command. */
	if (rec_child_start(&c) < 0)
		warn("cannot start '%s'", argv[0]);
	if ((e = rec_child_exec_errno(&c)) != 0) {
		rec_reap(r, true, NULL);
		return exec_failed(argv[0], e);
	}
	/* Notices only once the command runs: not before its error. */
	announce(r);
	return r->werr ? 1 : 0;
}

/* Names every thread of a freshly attached process. */
static int
name_threads(struct recorder *r, int32_t pid, uint64_t ts)
{
	char comm[REC_COMM_MAX];
	int32_t *tids;
	long n, i;
	int rc = 0;

	n = rec_proc_tasks(pid, &tids);
	for (i = 0; i < n && rc == 0; i++) {
		if (rec_proc_comm(pid, tids[i], comm, sizeof(comm)) < 0)
			continue;
		if (!rec_ptab_add_thread(&r->procs, pid, tids[i], comm,
					 strlen(comm))) {
			rc = wr(r, -ENOMEM);
			break;
		}
		rc = write_comm(r, ts, pid, tids[i], false, comm,
				strlen(comm));
	}
	free(tids);
	return rc;
}

int
rec_attach(struct recorder *r, int32_t *pids, size_t n)
{
	struct rec_proc *p;
	int32_t tgid;
	uint64_t ts;
	size_t i;
	long rc;

	for (i = 0; i < n; i++) {
		if (rec_proc_tgid(pids[i], &tgid) == 0 && tgid != pids[i]) {
			warnx("pid '%d' is a thread of process %d: recording "
			      "the process", (int)pids[i], (int)tgid);
			pids[i] = tgid;
		}
		if (rec_ptab_get(&r->procs, pids[i]))
			continue;	/* named twice */
		rc = rec_events_open_attach(&r->ev, pids[i]);
		if (rc < 0) {
			warnx("%s", r->ev.errmsg);
			return 1;
		}
		if (!track(r, pids[i], true))
			return 1;
	}
	announce(r);
	write_kernel_module(r);
	/*
	 * Enable first, then read the maps: a mapping made in between shows
	 * up twice (interning merges it) rather than not at all.
	 */
	rc = rec_events_enable(&r->ev);
	if (rc < 0) {
		warnx("cannot enable the events: %s", strerror((int)-rc));
		return 1;
	}
	ts = now_ns();
	for (i = 0; i < n && !r->werr; i++) {
		p = rec_ptab_get(&r->procs, pids[i]);
		if (!p || snapshot_maps(r, p, ts) < 0 ||
		    name_threads(r, pids[i], ts) < 0)
			break;
	}
	if (!r->werr)
		wr(r, sp_spool_writer_flush(r->w));
	return r->werr ? 1 : 0;
}

/* ------------------------------------------------------------------ */
/* --ptrace */

static int
ptrace_sample(struct recorder *r, const struct sp_ptrace_event *ev)
{
	struct rec_proc *p = rec_ptab_get(&r->procs, ev->pid);
	uint64_t mask = ev->regs_mask, below;
	struct rec_sample s;

	r->st.sample_events++;
	if (!p) {
		r->st.untracked++;
		return 0;
	}
	/*
	 * Nothing tells ptrace mode that a library was unmapped and another
	 * mapped in its place (dlclose, dlopen): its pcs would resolve to
	 * the old module.  Re-reading the maps now and then bounds that.
	 */
	if (ev->timestamp_ns - r->last_maps_ns >= PTRACE_MAPS_NS) {
		r->last_maps_ns = ev->timestamp_ns;
		r->st.maps_refreshes++;
		if (snapshot_maps(r, p, ev->timestamp_ns) < 0)
			return r->werr;
	}
	memset(&s, 0, sizeof(s));
	s.pid = (uint32_t)ev->pid;
	s.tid = (uint32_t)ev->tid;
	s.time = ev->timestamp_ns;
	s.abi = ev->regs ? PERF_SAMPLE_REGS_ABI_64 : PERF_SAMPLE_REGS_ABI_NONE;
	s.regs = ev->regs;
	s.stack = ev->stack_len ? ev->stack : NULL;
	s.stack_len = ev->stack_len;
	s.misc = PERF_RECORD_MISC_USER;
	below = mask & ((1ULL << PERF_REG_X86_IP) - 1);
	if (ev->regs && (mask & (1ULL << PERF_REG_X86_IP)))
		s.ip = ev->regs[__builtin_popcountll(below)];
	r->stk.regs_mask = mask;
	return write_sample(r, p, &s);
}

static int
ptrace_exec(struct recorder *r, const struct sp_ptrace_event *ev)
{
	struct rec_proc *p = rec_ptab_get(&r->procs, ev->pid);
	char comm[REC_COMM_MAX];
	int rc;

	if (!p)
		return 0;
	rc = exec_epoch(r, p, ev->timestamp_ns);
	if (rc == 0)
		rc = snapshot_maps(r, p, ev->timestamp_ns);
	if (rc == 0 && rec_proc_comm(p->pid, ev->tid, comm, sizeof(comm)) == 0)
		rc = write_comm(r, ev->timestamp_ns, p->pid, ev->tid, true,
				comm, strlen(comm));
	return rc;
}

static int
on_ptrace(const struct sp_ptrace_event *ev, void *arg)
{
	struct recorder *r = arg;

	switch (ev->kind) {
	case SP_PTRACE_SAMPLE:
		ptrace_sample(r, ev);
		break;
	case SP_PTRACE_EXEC:
		ptrace_exec(r, ev);
		break;
	case SP_PTRACE_THREAD_EXIT:
		write_exit(r, ev->timestamp_ns, ev->pid, ev->tid);
		break;
	case SP_PTRACE_EXIT:
		write_exit(r, ev->timestamp_ns, ev->pid, ev->pid);
		retire(r, ev->pid, ev->timestamp_ns);
		if (r->child == ev->pid) {
			r->child_reaped = true;
			r->child_status = ev->status;
		}
		break;
	}
	if (!r->werr && now_ns() - r->last_flush_ns >= HOUSEKEEPING_NS) {
		r->last_flush_ns = now_ns();
		wr(r, sp_spool_writer_flush(r->w));
	}
	return r->werr ? 1 : 0;
}

/*
 * Says why ptrace could not start; returns sp-record's exit status.  Yama
 * is named only where it is what refuses (its scope above 0).
 */
static int
ptrace_failed(char **argv, int32_t pid, int rc)
{
	char scope[32], who[64];

	if (argv)
		snprintf(who, sizeof(who), "'%.60s'", argv[0]);
	else
		snprintf(who, sizeof(who), "pid '%d'", (int)pid);
	if (!argv && (rc == -ESRCH || rc == -ENOENT)) {
		warnx("%s: no such process", who);
		return 1;
	}
	if (rc == -EPERM || (!argv && rc == -EACCES)) {
		read_line("/proc/sys/kernel/yama/ptrace_scope", scope,
			  sizeof(scope));
		if (scope[0] && strcmp(scope, "0") != 0)
			warnx("%s: ptrace: %s (kernel.yama.ptrace_scope is "
			      "%s); run as root or with CAP_SYS_PTRACE", who,
			      strerror(-rc), scope);
		else
			warnx("%s: ptrace: %s; run as root or with "
			      "CAP_SYS_PTRACE", who, strerror(-rc));
		return 1;
	}
	if (!argv) {
		warnx("%s: ptrace: %s", who, strerror(-rc));
		return 1;
	}
	return exec_failed(argv[0], -rc);
}

int
rec_ptrace_start(struct recorder *r, char **argv, int32_t pid)
{
	struct rec_proc *p;
	uint64_t ts;
	int rc;

	r->pt = sp_ptrace_new((unsigned)r->cfg.ev.freq, r->cfg.ev.stack_size);
	if (!r->pt) {
		warn("cannot set up ptrace sampling");
		return 1;
	}
	rc = argv ? sp_ptrace_spawn(r->pt, argv, r->cfg.spool_on_stdout)
		  : sp_ptrace_attach(r->pt, pid);
	if (rc < 0)
		return ptrace_failed(argv, pid, rc);
	pid = sp_ptrace_pid(r->pt);
	if (argv)
		r->child = pid;
	p = track(r, pid, true);
	if (!p)
		return 1;
	ts = now_ns();
	r->last_maps_ns = ts;
	if (snapshot_maps(r, p, ts) == 0)
		name_threads(r, pid, ts);
	if (!r->werr)
		wr(r, sp_spool_writer_flush(r->w));
	r->last_flush_ns = now_ns();
	return r->werr ? 1 : 0;
}

int
rec_ptrace_run(struct recorder *r, double seconds,
	       volatile sig_atomic_t *stop)
{
	int rc = sp_ptrace_run(r->pt, seconds, stop, on_ptrace, r);

	if (rc < 0 && !r->werr)
		warnx("ptrace: %s", strerror(-rc));
	sp_ptrace_summary(r->pt, &r->ptsum);
	/* Detached now, so a launched command can be ended normally. */
	sp_ptrace_detach(r->pt);
	return r->werr;
}

/* ------------------------------------------------------------------ */

int
rec_track(struct recorder *r, int32_t pid)
{
	return track(r, pid, true) ? 0 : -ENOMEM;
}

int
rec_inject(struct recorder *r, const void *rec, size_t len)
{
	uint64_t ts;

	rec_record_time(&r->layout, rec, len, &ts);
	return rec_sorter_push(r->sorter, ts, KIND_PERF, rec, len);
}

int
rec_handle_queued(struct recorder *r)
{
	return process_ready(r, true);
}

uint64_t
rec_sample_type(const struct recorder *r)
{
	return r->layout.sample_type;
}

/*
 * The unwinder's counters, sorted into summary lines: "unwind.samples"
 * and "unwind.frames" are figures of their own; errors and fallbacks
 * become lists of "kind count", wrapped under 80 columns.
 */
struct unwind_lines {
	uint64_t samples, frames;
	struct sp_buf errors, fallbacks;
};

/*
 * Appends "kind value" to a list line that starts with `head`, going on
 * in a new "sp-record:" line before it would pass 79 columns.
 */
static void
list_add(struct sp_buf *b, const char *head, const char *kind,
	 uint64_t value)
{
	char item[96];
	size_t col = 0;
	int n;

	n = snprintf(item, sizeof(item), "%s %" PRIu64, kind, value);
	if (n < 0)
		return;
	while (col < b->len && b->data[b->len - 1 - col] != '\n')
		col++;
	if (!b->len)
		sp_buf_adds(b, head);
	else if (col + 2 + (size_t)n > 79)
		sp_buf_adds(b, ",\nsp-record:     ");
	else
		sp_buf_adds(b, ", ");
	sp_buf_adds(b, item);
}

static void
sort_counter(const char *key, uint64_t value, void *arg)
{
	struct unwind_lines *u = arg;

	if (!strcmp(key, "unwind.samples"))
		u->samples = value;
	else if (!strcmp(key, "unwind.frames"))
		u->frames = value;
	else if (!strncmp(key, "unwind_error.", 13))
		list_add(&u->errors, "sp-record: unwinding errors: ",
			 key + 13, value);
	else if (!strncmp(key, "unwind_fallback.", 16))
		list_add(&u->fallbacks, "sp-record: frame-pointer steps "
			 "(no CFI): ", key + 16, value);
}

static void
print_unwinding(const struct recorder *r, FILE *out)
{
	struct unwind_lines u = { 0, 0, SP_BUF_INIT, SP_BUF_INIT };

	rec_stacker_counters(&r->stk, sort_counter, &u);
	if (u.samples)
		fprintf(out, "sp-record: unwound %" PRIu64 " stack%s, %.1f "
			"frames each\n", u.samples, u.samples == 1 ? "" : "s",
			(double)u.frames / (double)u.samples);
	if (u.errors.len)
		fprintf(out, "%.*s\n", (int)u.errors.len,
			(char *)u.errors.data);
	if (u.fallbacks.len)
		fprintf(out, "%.*s\n", (int)u.fallbacks.len,
			(char *)u.fallbacks.data);
	sp_buf_release(&u.errors);
	sp_buf_release(&u.fallbacks);
}

/* "s" unless n is 1, for English plurals. */
static const char *
s_(uint64_t n)
{
	return n == 1 ? "" : "s";
}

void
rec_summary(const struct recorder *r, FILE *out, double seconds)
{
	const struct rec_stats *s = &r->st;
	uint64_t bytes = sp_spool_writer_bytes(r->w);
	uint64_t procs = r->procs.procs_seen, threads = r->procs.threads_seen;
	uint64_t dropped = s->untracked + s->idle + s->empty_stacks;
	uint32_t nmods = sp_modtab_count(r->mods);

	fprintf(out, "sp-record: %" PRIu64 " sample%s in %.2f s from %" PRIu64
		" process%s, %" PRIu64 " thread%s\n", s->samples,
		s_(s->samples), seconds, procs, procs == 1 ? "" : "es",
		threads, s_(threads));
	fprintf(out, "sp-record: %s at %" PRIu64 " Hz, %s stacks%s\n",
		r->pt ? "ptrace" : rec_events_name(&r->ev),
		r->pt ? r->cfg.ev.freq : (uint64_t)r->ev.attr.sample_freq,
		r->cfg.callgraph == REC_CG_DWARF ? "dwarf" : "frame-pointer",
		r->ev.kernel_stacks ? " with kernel frames" : "");
	fprintf(out, "sp-record: lost %" PRIu64 " event%s", s->lost,
		s_(s->lost));
	if (s->bad_records)
		fprintf(out, ", %" PRIu64 " undecodable record%s",
			s->bad_records, s_(s->bad_records));
	fputc('\n', out);
	if (s->lost && !r->pt)
		fprintf(out, "sp-record: the kernel dropped them when a %zu KiB "
			"ring filled before sp-record read it: use larger rings "
			"(-m), a lower rate (-F) or a smaller --stack-size\n",
			r->ev.opts.pages * (size_t)sysconf(_SC_PAGESIZE) / 1024);
	if (dropped)
		fprintf(out, "sp-record: dropped %" PRIu64 " sample%s: %"
			PRIu64 " idle, %" PRIu64 " of other processes, %"
			PRIu64 " empty\n", dropped, s_(dropped), s->idle,
			s->untracked, s->empty_stacks);
	fprintf(out, "sp-record: %" PRIu64 " exec%s, %" PRIu64 " fork%s, %"
		PRIu64 " exited, %u module%s, %" PRIu64 " maps refresh%s, %"
		PRIu64 " truncated stack%s\n",
		s->execs, s_(s->execs), s->forks, s_(s->forks),
		r->procs.procs_exited, nmods, s_(nmods), s->maps_refreshes,
		s->maps_refreshes == 1 ? "" : "es", r->stk.stats.truncated,
		s_(r->stk.stats.truncated));
	print_unwinding(r, out);
	if (r->pt)
		fprintf(out, "sp-record: ptrace pauses: median %.0f us, p99 "
			"%.0f us, max %.0f us; %" PRIu64 " stack read%s "
			"failed\n",
			(double)r->ptsum.pause_median_ns / 1e3,
			(double)r->ptsum.pause_p99_ns / 1e3,
			(double)r->ptsum.pause_max_ns / 1e3,
			r->ptsum.stack_read_errors,
			s_(r->ptsum.stack_read_errors));
	fprintf(out, "sp-record: wrote %" PRIu64 " bytes (%.1f per sample) "
		"to '%s'\n", bytes,
		s->samples ? (double)bytes / (double)s->samples : 0.0,
		r->cfg.output_name);
}

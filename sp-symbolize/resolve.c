/*
 * resolve.c: choosing a symbol source per frame (see resolve.h).
 */
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "common/grow.h"
#include "common/buf.h"
#include "common/htab.h"
#include "common/names.h"
#include "sp-symbolize/elf/demangle.h"
#include "sp-symbolize/cache/fileid.h"
#include "sp-symbolize/kernel/hostinfo.h"
#include "sp-symbolize/image/imgtab.h"
#include "sp-symbolize/jit/jitpath.h"
#include "sp-symbolize/jit/jitsyms.h"
#include "sp-symbolize/kernel/kallsyms.h"
#include "sp-symbolize/modkind.h"
#include "sp-symbolize/jit/perfmap.h"
#include "sp-symbolize/resolve.h"
#include "sp-symbolize/out/warn.h"
#include "common/pyruntime.h"
#include "common/banned.h"

#include "sp-symbolize/resolver_impl.h"

static time_t
now_seconds(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec;
}

struct sym_resolver *
sym_resolver_new(const struct sym_resolver_opts *o, struct sp_buf *err)
{
	struct sym_resolver *r = calloc(1, sizeof(*r));
	unsigned long line = 0;

	if (!r)
		return NULL;
	r->o = *o;
	if (!r->o.max_open)
		r->o.max_open = SYM_RESOLVER_MAX_OPEN;
	if (!r->o.max_dwarf)
		r->o.max_dwarf = SYM_RESOLVER_MAX_DWARF;
	r->last_save = now_seconds();
	r->imgs = sym_imgtab_new(&r->o.sym, r->o.max_open, r->o.max_dwarf,
				 o->warn, o->warn_ctx);
	if (!o->id_roots) {
		r->o.id_roots = o->sym.debug_dirs;
		r->o.nid_roots = o->sym.ndebug_dirs;
	}
	r->ids = r->imgs ? sym_idtree_new(r->imgs, r->o.id_roots,
					  r->o.nid_roots, o->warn, o->warn_ctx)
			 : NULL;
	r->fid_by_path = sp_htab_new();
	r->mods = sp_idtab_new(sizeof(struct rmod));
	r->jit = sym_jitsyms_new(o->perf_map_dir, o->warn, o->warn_ctx);
	if (!r->imgs || !r->ids || !r->fid_by_path || !r->jit || !r->mods) {
		sym_resolver_free(r);
		errno = ENOMEM;
		return NULL;
	}
	if (o->kallsyms && !o->no_kallsyms) {
		r->ks = sym_kallsyms_load(o->kallsyms, &line);
		if (!r->ks) {
			int saved = errno;

			if (err && saved == EBADMSG)
				sp_buf_addf(
				    err, "line %lu: not a kallsyms line", line);
			else if (err)
				sp_buf_adds(err, strerror(saved));
			sym_resolver_free(r);
			errno = saved;
			return NULL;
		}
		r->ks_state = KS_READY;
		if (sym_kallsyms_count(r->ks) == 0)
			sym_warnf(o->warn, o->warn_ctx,
				  "'%s': no kernel symbols (empty, or "
				  "addresses hidden); kernel frames keep their "
				  "address names",
				  o->kallsyms);
	}
	return r;
}

void
sym_resolver_free(struct sym_resolver *r)
{
	uint32_t i;

	if (!r)
		return;
	for (i = 0; r->mods && i < sp_idtab_count(r->mods); i++)
		sym_resolver_retire_module(r, i);
	sp_idtab_free(r->mods);
	sym_idtree_free(r->ids);
	sym_imgtab_free(r->imgs);
	sym_jitsyms_free(r->jit);
	sym_image_free(r->vdso);
	sp_htab_free(r->fid_by_path);
	free(r->fids);
	sym_kallsyms_free(r->ks);
	sym_kallsyms_free(r->kimg);
	free(r->release);
	free(r->bootid);
	free(r);
}

int
sym_resolver_module(struct sym_resolver *r, const struct sp_module *m)
{
	struct rmod *rm = sp_idtab_get(r->mods, m->id);
	const char *base;
	size_t blen;

	/* Defined, or retired by a forget. */
	if (rm ? rm->defined : m->id < sp_idtab_count(r->mods))
		return -EEXIST;
	/* ids come in order; any skipped stay undeclared */
	while (!rm) {
		if (!sp_idtab_add(r->mods))
			return -ENOMEM;
		rm = sp_idtab_get(r->mods, m->id);
	}
	if (sp_idtab_live(r->mods) > r->mods_peak)
		r->mods_peak = sp_idtab_live(r->mods);
	rm->m = *m;
	rm->m.path = strndup(m->path, m->path_len);
	if (!rm->m.path)
		return -ENOMEM;
	rm->defined = true;
	base = sp_module_basename(rm->m.path, &blen);
	rm->pyruntime = !m->is_kernel && sp_pyruntime_path(base, blen);
	rm->overridable =
	    !m->is_kernel && sym_perf_map_may_override(rm->m.path);
	/* A JIT maps its jitdump for perf to find: so does this. */
	if (!m->is_kernel &&
	    sym_jitpath_is_dump(rm->m.path, strlen(rm->m.path), m->pid))
		return sym_jitsyms_mapped(r->jit, m->pid, rm->m.path);
	return 0;
}

int
sym_resolver_buildid(struct sym_resolver *r, uint32_t module_id,
		     const char *hex)
{
	struct rmod *rm = sp_idtab_get(r->mods, module_id);
	char *copy;

	if (!rm || !rm->defined)
		return -ENOENT;
	copy = strdup(hex);
	if (!copy)
		return -ENOMEM;
	free(rm->buildid);
	rm->buildid = copy;
	/* Check the file again, against the build id, at the next frame. */
	rm->state = MOD_UNCHECKED;
	rm->ri = NULL;
	rm->bare = NULL;
	rm->vdso = NULL;
	rm->cstate = MOD_UNCHECKED;
	rm->cset = NULL;
	return 0;
}

/* Where sp-record's copies of this spool's perf maps would be. */
static int
jit_kept(struct sym_resolver *r)
{
	return sym_jitsyms_kept(r->jit, r->o.id_roots, r->o.nid_roots,
				r->bootid, r->start_us);
}

int
sym_resolver_host(struct sym_resolver *r, const char *key, const char *value)
{
	char **slot = !strcmp(key, "release")  ? &r->release
		      : !strcmp(key, "bootid") ? &r->bootid
					       : NULL;
	char *copy;

	if (!slot)
		return 0;
	copy = strdup(value);
	if (!copy)
		return -ENOMEM;
	free(*slot);
	*slot = copy;
	return slot == &r->bootid ? jit_kept(r) : 0;
}

int
sym_resolver_spool(struct sym_resolver *r, uint64_t start_us)
{
	r->start_us = start_us;
	return jit_kept(r);
}

/*
 * The kernel's unstripped vdso, which kernel packages install, when it
 * is the one in memory (same build id).  The image in memory exports
 * only the vdso's entry points; its helpers, where most of its time is
 * spent (the clock read), are local symbols of this file.
 */
static struct sym_image *
vdso_file(struct sym_resolver *r, const struct sym_image *mem)
{
	static const char *const fmts[] = {
		"/lib/modules/%s/vdso/vdso64.so",
		"/usr/lib/debug/lib/modules/%s/vdso/vdso64.so",
	};
	const char *id = sym_image_buildid(mem);
	struct sym_image *img;
	char *rel = sym_host_release(), path[PATH_MAX];
	size_t i;

	for (i = 0; id && rel && i < sizeof(fmts) / sizeof(fmts[0]); i++) {
		snprintf(path, sizeof(path), fmts[i], rel);
		img = sym_image_open(path, &r->o.sym, NULL);
		if (img && sym_image_buildid(img) &&
		    strcmp(sym_image_buildid(img), id) == 0) {
			free(rel);
			return img;
		}
		sym_image_free(img);
	}
	free(rel);
	return NULL;
}

/* The vdso of this host, read on first use. */
static struct sym_image *
host_vdso(struct sym_resolver *r)
{
	struct sym_image *file;
	size_t len = 0;
	void *mem;

	if (r->vdso_tried)
		return r->vdso;
	r->vdso_tried = true;
	mem = sym_host_vdso(&len);
	if (mem)
		r->vdso = sym_image_open_mem(mem, len, &r->o.sym, NULL);
	file = r->vdso ? vdso_file(r, r->vdso) : NULL;
	if (file) {
		sym_image_free(r->vdso);
		r->vdso = file;
	}
	return r->vdso;
}

/*
 * The vdso a [vdso] module resolves against: this host's, when it is the
 * one recorded.  A recorded build id says so on any host and boot;
 * without one, the recording must come from this boot of this kernel.
 */
static struct sym_image *
vdso_image(struct sym_resolver *r, const struct rmod *rm)
{
	struct sym_image *v = host_vdso(r);
	const char *have = v ? sym_image_buildid(v) : NULL;

	if (rm->buildid)
		return have && strcmp(have, rm->buildid) == 0 ? v : NULL;
	return sym_host_same_kernel(r->release, r->bootid) ? v : NULL;
}

/* Checks that the file on disk is the one recorded; warns once if not. */
static bool
same_file(struct sym_resolver *r, struct sym_imgent *ri, const struct rmod *rm)
{
	const char *have = sym_image_buildid(ri->img);

	if (rm->m.inode && ri->have_ino && rm->m.inode != ri->ino) {
		if (!ri->warned)
			sym_warnf(r->o.warn, r->o.warn_ctx,
				  "'%s': file changed since recording (inode "
				  "%" PRIu64 ", recorded %" PRIu64
				  "); frames keep their address names",
				  ri->path, ri->ino, rm->m.inode);
		ri->warned = true;
		return false;
	}
	if (rm->buildid && have && strcmp(rm->buildid, have) != 0) {
		if (!ri->warned)
			sym_warnf(r->o.warn, r->o.warn_ctx,
				  "'%s': build id %s differs from recorded %s; "
				  "frames keep their address names",
				  ri->path, have, rm->buildid);
		ri->warned = true;
		return false;
	}
	return true;
}

/*
 * The path to open for a module: its own, unless that file is not the
 * recorded one (another inode) while the recorded process still shows
 * it through /proc/PID/root (a container, or a library replaced under
 * a running process).
 */
static const char *
pick_path(const struct rmod *rm, char *buf, size_t len)
{
	struct stat st;

	if (!rm->m.inode || rm->m.pid <= 0 ||
	    (stat(rm->m.path, &st) == 0 && st.st_ino == rm->m.inode))
		return rm->m.path;
	snprintf(buf, len, "/proc/%d/root%s", (int)rm->m.pid, rm->m.path);
	if (stat(buf, &st) == 0 && st.st_ino == rm->m.inode)
		return buf;
	return rm->m.path;
}

/* Whether `path` is gone or holds another file than the one recorded. */
static bool
path_lost(const struct rmod *rm, const char *path)
{
	struct stat st;

	return stat(path, &st) < 0 || (rm->m.inode && st.st_ino != rm->m.inode);
}

/*
 * The cache identity of the file at `path`, read at its first use by
 * any module (a whole-system recording maps libc in every process).
 * Returns what sym_fileid_read() did.
 */
static int
fileid_for_path(struct sym_resolver *r, const char *path, struct sym_fileid *id)
{
	size_t len = strlen(path);
	struct rfid *f;
	uint64_t idx;

	if (!sp_htab_get(r->fid_by_path, path, len, &idx)) {
		if (SP_GROW(r->fids, r->afids, r->nfids + 1) ||
		    sp_htab_put(r->fid_by_path, path, len, r->nfids))
			return -ENOMEM;
		idx = r->nfids++;
		f = &r->fids[idx];
		f->rc = sym_fileid_read(path, &r->o.sym,
					r->o.cache_tool ? r->o.cache_tool : "",
					&f->id);
	}
	f = &r->fids[idx];
	if (f->rc == 0)
		*id = f->id;
	return f->rc;
}

/*
 * Whether the file at `path` is not the recorded module's: gone, another
 * inode, unreadable, without a build id or with another than the
 * recorded one (`rm` has one).
 */
static bool
host_lost(struct sym_resolver *r, const struct rmod *rm, const char *path)
{
	struct sym_fileid id;

	return path_lost(rm, path) || fileid_for_path(r, path, &id) != 0 ||
	       strcmp(id.buildid, rm->buildid) != 0;
}

/*
 * The image a module resolves against, or NULL for a fallback; valid
 * until the next image is opened.
 */
static struct sym_image *
module_image(struct sym_resolver *r, struct rmod *rm)
{
	const char *path = rm->m.path, *pick;
	char buf[PATH_MAX];
	struct sym_imgent *ri;

	if (rm->state != MOD_UNCHECKED)
		return rm->ri ? sym_imgtab_image(r->imgs, rm->ri) : rm->vdso;
	rm->state = MOD_BAD;
	if (strcmp(path, "[vdso]") == 0) {
		/* Another kernel's vdso: the one its build id names. */
		rm->vdso = vdso_image(r, rm);
		if (!rm->vdso && rm->buildid)
			rm->ri = sym_idtree_find(r->ids, rm->buildid);
	} else if (!rm->overridable && path[0] != '\0' && path[0] != '[') {
		pick = pick_path(rm, buf, sizeof(buf));
		if (rm->buildid && host_lost(r, rm, pick))
			rm->ri = sym_idtree_find(r->ids, rm->buildid);
		ri = rm->ri ? NULL : sym_imgtab_get(r->imgs, pick);
		if (ri && ri->img && same_file(r, ri, rm))
			rm->ri = ri;
		else if (ri && ri->failed && ri->stripped &&
			 !(rm->m.inode && ri->have_ino &&
			   rm->m.inode != ri->ino))
			rm->bare = ri;
		if (rm->ri && rm->ri->stripped)
			rm->bare = rm->ri;
	}
	if (rm->ri || rm->vdso)
		rm->state = MOD_OK;
	return rm->ri ? rm->ri->img : rm->vdso;
}

static bool
perf_maps_for(const struct sym_resolver *r, int32_t pid)
{
	size_t i;

	if (r->o.no_perf_maps || pid < 0)
		return false;
	if (r->o.nperf_map_pids == 0)
		return true;
	for (i = 0; i < r->o.nperf_map_pids; i++)
		if (r->o.perf_map_pids[i] == pid)
			return true;
	return false;
}

void
sym_resolver_forget(struct sym_resolver *r, int32_t pid)
{
	sym_jitsyms_forget(r->jit, pid);
}

void
sym_resolver_gone(struct sym_resolver *r, int32_t pid)
{
	sym_jitsyms_drop(r->jit, pid);
}

void
sym_resolver_retire_module(struct sym_resolver *r, uint32_t id)
{
	struct rmod *rm = sp_idtab_get(r->mods, id);

	if (!rm)
		return;
	free((char *)rm->m.path);
	free(rm->buildid);
	sp_idtab_retire(r->mods, id);
}

static int
perf_map_frame(struct sym_resolver *r, const char *name, uint64_t offset,
	       struct sym_res *out)
{
	char *func, *file, *dm = NULL;
	struct sym_entry *s;
	int rc = 0;

	if (sym_perfmap_python(name, &func, &file)) {
		s = sym_res_add(out, func);
		if (!s || (*file && sym_sym_set_file(s, file, 0)))
			rc = -ENOMEM;
		free(func);
		free(file);
	} else {
		dm = r->o.sym.demangle && !r->o.sym.raw_names
			 ? sym_demangle(name, r->o.sym.params)
			 : NULL;
		s = sym_res_add(out, dm ? dm : name);
		free(dm);
		if (s)
			s->flags |= SP_SYM_JIT;
		else
			rc = -ENOMEM;
	}
	if (s) {
		s->offset = offset;
		s->has_offset = true;
	}
	return rc;
}

/*
 * The cached results of a module's file: only for a file on disk that
 * is the recorded one (inode, build id) and has a build id, so that
 * what module_image() would open is that very file.
 */
static struct sym_cset *
module_cset(struct sym_resolver *r, struct rmod *rm)
{
	const char *path = rm->m.path, *pick;
	struct sym_csource src;
	struct sym_fileid id;
	char buf[PATH_MAX];

	if (rm->cstate != MOD_UNCHECKED)
		return rm->cset;
	rm->cstate = MOD_BAD;
	if (!r->o.cache || rm->overridable || path[0] == '\0' || path[0] == '[')
		return NULL;
	pick = pick_path(rm, buf, sizeof(buf));
	if (path_lost(rm, pick) || fileid_for_path(r, pick, &id) ||
	    (rm->buildid && strcmp(rm->buildid, id.buildid) != 0))
		return NULL;
	src.path = pick;
	src.st = id.st;
	rm->cset = sym_cache_set(r->o.cache, id.buildid, id.ctx, &src);
	if (rm->cset) {
		rm->cstate = MOD_OK;
		memcpy(rm->cache_id, id.buildid, sizeof(rm->cache_id));
		rm->cache_st = id.st;
	}
	return rm->cset;
}

/*
 * Whether `img` reads the very file the cache set of `rm` is for: its
 * build id, and its descriptor's identity (a file replaced at the path
 * since the set was chosen is another one, whatever its build id).
 */
static bool
img_is_cached_file(const struct sym_image *img, const struct rmod *rm)
{
	const char *have = sym_image_buildid(img);
	struct sym_filestat now;
	struct stat st;

	if (!have || strcmp(have, rm->cache_id) != 0 ||
	    sym_image_fstat(img, &st))
		return false;
	sym_fileid_stat(&st, &now);
	return sym_filestat_same(&now, &rm->cache_st);
}

/*
 * The frames of a module address from the cache, or else from the
 * module's image, opened only then; an image's answer is cached when
 * the image is the file the cache set belongs to.  Returns the number
 * of frames appended (0: nothing covers it) or -ENOMEM.
 */
static int
image_frames(struct sym_resolver *r, struct rmod *rm, uint64_t rel_ip,
	     struct sym_res *out)
{
	struct sym_cset *cs = module_cset(r, rm);
	const struct sym_res *hit = cs ? sym_cset_find(cs, rel_ip) : NULL;
	struct sym_image *img;
	size_t first = out->n;
	int n;

	if (hit) {
		r->stats.cache_hits++;
		return sym_res_append(out, hit) ? -ENOMEM : (int)hit->n;
	}
	img = module_image(r, rm);
	n = img ? sym_image_resolve(img, rel_ip, out) : 0;
	/* An image with a warning is not cached: each run says it again. */
	if (n < 0 || !cs || !img || !img_is_cached_file(img, rm) ||
	    sym_image_warning(img))
		return n;
	r->stats.cache_misses++;
	return sym_cset_add(cs, rel_ip, out, first) ? -ENOMEM : n;
}

void
sym_resolver_idle(struct sym_resolver *r)
{
	time_t now;

	if (!r->o.cache)
		return;
	now = now_seconds();
	if (now - r->last_save < SYM_RESOLVER_SAVE_SECONDS)
		return;
	r->last_save = now;
	sym_cache_save(r->o.cache);
}

void
sym_resolver_stats(const struct sym_resolver *r, struct sym_resolver_stats *st)
{
	struct sym_imgtab_stats is;

	*st = r->stats;
	sym_imgtab_stats(r->imgs, &is);
	st->images = is.opened;
	st->images_closed = is.closed;
	st->images_peak = is.peak;
	st->modules_live = sp_idtab_live(r->mods);
	st->modules_peak = r->mods_peak;
	st->jit_processes = sym_jitsyms_count(r->jit);
	st->dwarf_dropped = is.dwarf_dropped;
}

/*
 * Counts a frame of `rm` left unnamed against its file when that is
 * stripped.  A cache hit that named nothing opened no file: it is
 * opened now, once, to tell.
 */
static void
note_unnamed(struct sym_resolver *r, struct rmod *rm)
{
	if (rm->state == MOD_UNCHECKED)
		module_image(r, rm);
	if (rm->bare)
		rm->bare->unnamed++;
}

void
sym_resolver_unnamed(const struct sym_resolver *r, sym_unnamed_fn *fn,
		     void *ctx)
{
	struct sym_imgent *e;
	size_t i;

	for (i = 0; (e = sym_imgtab_at(r->imgs, i)) != NULL; i++)
		if (e->unnamed)
			fn(ctx, e->path, e->unnamed);
}

/* A frame resolved from its module's file, or its fallback name. */
static int
native_frame(struct sym_resolver *r, const struct sp_frame *f, struct rmod *rm,
	     struct sym_res *out)
{
	size_t first = out->n;
	unsigned py;
	int n;

	if (f->mode == SP_FRAME_KERNEL || (rm && rm->m.is_kernel))
		return sym_kernel_frame(r, f, out);
	if (!rm)
		return sym_res_add_fallback(out, f, NULL, SP_SYM_UNRESOLVED);
	py = rm->pyruntime ? SP_SYM_PYRUNTIME : 0;

	n = image_frames(r, rm, f->rel_ip, out);
	if (n < 0)
		return n;
	if (n > 0) {
		for (; first < out->n; first++)
			out->v[first].flags |= py;
		return 0;
	}
	note_unnamed(r, rm);
	/* As the reference does, only address names of a runtime hide. */
	if (py)
		py |= SP_SYM_HIDDEN;
	/* An anonymous mapping has no path to name it after. */
	return sym_res_add_fallback(out, f,
				    rm->m.path[0] ? rm->m.path : "[anon]",
				    SP_SYM_UNRESOLVED | py);
}

/*
 * The JIT entry of `addr`, or of the byte after it when no entry holds
 * it: a call site (return address - 1) before the first byte of the
 * function it returns to, as image.c's lookup() explains.
 */
static bool
jit_find(struct sym_resolver *r, int32_t pid, uint64_t addr, const char **name,
	 uint64_t *start)
{
	return sym_jitsyms_find(r->jit, pid, addr, name, start) ||
	       (addr < UINT64_MAX &&
		sym_jitsyms_find(r->jit, pid, addr + 1, name, start));
}

int
sym_resolver_frame(struct sym_resolver *r, const struct sp_frame *f,
		   int32_t pid, struct sym_res *out)
{
	struct rmod *rm = f->module_id == SP_NONE
			      ? NULL
			      : sp_idtab_get(r->mods, f->module_id);
	const char *name;
	uint64_t start;

	if (f->mode == SP_FRAME_TRUNCATED) {
		struct sym_entry *s = sym_res_add(out, SP_TRUNCATED_NAME);

		if (!s)
			return -ENOMEM;
		s->flags |= SP_SYM_TRUNCATED;
		return 0;
	}
	if (rm && !rm->defined)
		rm = NULL;
	if (pid < 0 && rm && !rm->m.is_kernel)
		pid = rm->m.pid;
	if (rm && !rm->overridable)
		return native_frame(r, f, rm, out);
	if (f->mode == SP_FRAME_USER && perf_maps_for(r, pid) &&
	    jit_find(r, pid, f->abs_ip, &name, &start))
		return perf_map_frame(
		    r, name, f->abs_ip >= start ? f->abs_ip - start : 0, out);
	return native_frame(r, f, rm, out);
}

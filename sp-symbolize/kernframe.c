/*
 * kernframe.c: kernel frames for the resolver (resolver_impl.h): from the
 * per-boot frame cache, the cache's copy of the kernel image's symbols,
 * or /proc/kallsyms (or a --kallsyms file).
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/buf.h"
#include "sp-symbolize/kernel/hostinfo.h"
#include "sp-symbolize/resolver_impl.h"
#include "sp-symbolize/out/warn.h"
#include "common/banned.h"

/*
 * This boot's kernel as the cache files it, when kernel frames resolve
 * from this host's /proc/kallsyms (a recording of this boot, no
 * --kallsyms file); NULL otherwise.
 */
static const struct sym_fileid *
kernel_id(struct sym_resolver *r)
{
	if (!r->kid_tried) {
		r->kid_tried = true;
		r->kid_ok =
		    r->o.cache && !r->o.no_kallsyms && !r->o.kallsyms &&
		    sym_host_same_kernel(r->release, r->bootid) &&
		    sym_fileid_kernel(r->o.cache_tool ? r->o.cache_tool : "",
				      &r->kid) == 0;
	}
	return r->kid_ok ? &r->kid : NULL;
}

/* The cache file of the kernel image's symbols for this boot. */
static void
image_copy_name(const struct sym_fileid *id, char *name, size_t len)
{
	snprintf(name, len, "%s.kallsyms1", id->buildid);
}

/*
 * The kernel image's symbols from the cache's copy for this boot (read
 * in a few ms, where /proc/kallsyms takes tens), or NULL.
 */
static struct sym_kallsyms *
kernel_image_table(struct sym_resolver *r)
{
	const struct sym_fileid *id = kernel_id(r);
	struct sp_buf b = SP_BUF_INIT;
	char name[sizeof(id->buildid) + 16];

	if (r->kimg_tried || !id)
		return r->kimg;
	r->kimg_tried = true;
	image_copy_name(id, name, sizeof(name));
	if (sym_cache_get_file(r->o.cache, name, &b) == 0) {
		r->kimg = sym_kallsyms_parse(&b, NULL);
		if (r->kimg && sym_kallsyms_count(r->kimg) == 0) {
			sym_kallsyms_free(r->kimg);
			r->kimg = NULL;
		}
		if (!r->kimg)
			sym_warnf(
			    r->o.warn, r->o.warn_ctx,
			    "cache file '%s': corrupt copy of the kernel's "
			    "symbols ignored; it is rebuilt",
			    name);
	}
	sp_buf_release(&b);
	if (r->kimg)
		r->stats.kallsyms_copies++;
	return r->kimg;
}

/* Saves the kernel image's symbols of `ks` for later runs of this boot. */
static void
save_kernel_image(struct sym_resolver *r, const struct sym_kallsyms *ks)
{
	const struct sym_fileid *id = kernel_id(r);
	struct sp_buf b = SP_BUF_INIT;
	char name[sizeof(id->buildid) + 16];

	if (!id || r->kimg || sym_kallsyms_count(ks) == 0)
		return;
	image_copy_name(id, name, sizeof(name));
	if (sym_kallsyms_write_image(ks, &b) == 0)
		sym_cache_put_file(r->o.cache, name, &b);
	sp_buf_release(&b);
}

/* The kernel symbol table, loaded on first use; NULL when unusable. */
static struct sym_kallsyms *
kernel_table(struct sym_resolver *r)
{
	if (r->ks_state == KS_READY)
		return r->ks;
	r->ks_state = KS_READY;
	if (r->o.no_kallsyms)
		return NULL;
	if (!sym_host_same_kernel(r->release, r->bootid)) {
		sym_warnf(r->o.warn, r->o.warn_ctx,
			  "the recording comes from another kernel (%s); "
			  "kernel frames keep their address names unless "
			  "--kallsyms gives its symbols",
			  r->release ? r->release : "another boot");
		return NULL;
	}
	r->ks = sym_kallsyms_load("/proc/kallsyms", NULL);
	r->stats.kallsyms_reads++;
	if (r->ks)
		save_kernel_image(r, r->ks);
	if (!r->ks || sym_kallsyms_count(r->ks) == 0)
		sym_warnf(r->o.warn, r->o.warn_ctx,
			  "'/proc/kallsyms': %s; kernel frames keep their "
			  "address names",
			  r->ks ? "addresses hidden (kptr_restrict)"
				: strerror(errno));
	return r->ks;
}

/*
 * A kernel frame from kallsyms, or its fallback name; *core tells
 * whether it named a symbol of the kernel's core text (no module).
 */
static int
kallsyms_frame(struct sym_resolver *r, const struct sp_frame *f,
	       struct sym_res *out, bool *core)
{
	struct sym_kallsyms *ks = kernel_image_table(r);
	const char *name, *module = NULL;
	uint64_t start;
	struct sp_frame kf = *f;
	struct sym_entry *s;
	char *full;
	bool found = false;

	kf.mode = SP_FRAME_KERNEL;
	*core = false;
	/* The image's copy answers for its own symbols only. */
	if (ks)
		found = sym_kallsyms_lookup(ks, f->abs_ip, &name, &module,
					    &start) &&
			!module;
	if (!found && (ks = kernel_table(r)) != NULL)
		found =
		    sym_kallsyms_lookup(ks, f->abs_ip, &name, &module, &start);
	if (!found || f->abs_ip - start > SYM_KERNEL_MAX_OFFSET)
		return sym_res_add_fallback(out, &kf, NULL,
					    SP_SYM_KERNEL | SP_SYM_UNRESOLVED);
	if (asprintf(&full, "%s+0x%" PRIx64 "%s%s", name, f->abs_ip - start,
		     module ? " " : "", module ? module : "") < 0)
		return -ENOMEM;
	s = sym_res_add(out, full);
	free(full);
	if (!s)
		return -ENOMEM;
	s->flags |= SP_SYM_KERNEL;
	s->offset = f->abs_ip - start;
	s->has_offset = true;
	*core = module == NULL;
	return 0;
}

/*
 * The cached frames of this boot's kernel, when kernel frames resolve
 * from this host's /proc/kallsyms (a recording of this boot, no
 * --kallsyms file).  Only core kernel text goes in: module, BPF and
 * unresolved addresses can change meaning within a boot.
 */
static struct sym_cset *
kernel_cset(struct sym_resolver *r)
{
	const struct sym_fileid *id;

	if (r->kcs_tried)
		return r->kcs;
	r->kcs_tried = true;
	if (!(id = kernel_id(r)))
		return NULL;
	r->kcs = sym_cache_set(r->o.cache, id->buildid, id->ctx, NULL);
	return r->kcs;
}

int
sym_kernel_frame(struct sym_resolver *r, const struct sp_frame *f,
		 struct sym_res *out)
{
	struct sym_cset *kcs = kernel_cset(r);
	const struct sym_res *hit = kcs ? sym_cset_find(kcs, f->abs_ip) : NULL;
	size_t first = out->n;
	bool core;
	int rc;

	if (hit) {
		r->stats.cache_hits++;
		return sym_res_append(out, hit) ? -ENOMEM : 0;
	}
	rc = kallsyms_frame(r, f, out, &core);
	if (rc || !kcs || !core)
		return rc;
	r->stats.cache_misses++;
	return sym_cset_add(kcs, f->abs_ip, out, first) ? -ENOMEM : 0;
}

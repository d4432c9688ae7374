/*
 * resolver_impl.h: the resolver's state, shared by resolve.c (modules,
 * images, perf maps, the cache) and kernframe.c (kernel frames); not
 * for other files.
 */
#ifndef SYM_RESOLVER_IMPL_H
#define SYM_RESOLVER_IMPL_H

#include <stdbool.h>
#include <stdint.h>
#include <time.h>

#include "common/htab.h"
#include "sp-symbolize/fileid.h"
#include "sp-symbolize/jitsyms.h"
#include "sp-symbolize/kallsyms.h"
#include "sp-symbolize/resolve.h"

/*
 * kallsyms has no sizes: an address this far past the symbol below it is
 * in no function of the table (a JIT area, a gap before the modules).
 */
#define SYM_KERNEL_MAX_OFFSET 0x100000

enum { MOD_UNCHECKED, MOD_OK, MOD_BAD };

/* A module as the stream declared it. */
struct rmod {
	bool defined;
	struct sp_module m; /* m.path is owned */
	char *buildid;      /* from a buildid record, or NULL */
	int state;
	struct rimg *ri;        /* its file in the image table, or NULL */
	struct sym_image *vdso; /* [vdso]: borrowed from the resolver */
	bool pyruntime;
	bool overridable; /* a perf map may override it */
	int cstate;
	struct sym_cset *cset; /* borrowed from the cache, or NULL */
	char cache_id[sizeof(((struct sym_fileid *)0)->buildid)];
};

/*
 * One file on disk, shared by the modules that map it.  Its image is
 * closed when it is the least recently used of more than the open
 * bound, and opened again at its next use.
 */
struct rimg {
	char *path;
	struct sym_image *img; /* NULL when closed or failed */
	bool failed;           /* it did not open: do not try again */
	uint64_t used;         /* the resolver's tick at its last use */
	bool have_ino;
	uint64_t ino;
	bool warned;
};

/* A file's cache identity, read once per path like its image. */
struct rfid {
	int rc; /* of sym_fileid_read() */
	struct sym_fileid id;
};

enum { KS_UNLOADED, KS_READY };

struct sym_resolver {
	struct sym_resolver_opts o;
	struct rmod *mods;
	size_t nmods, amods;
	struct rimg **imgs;
	size_t nimgs, aimgs;
	size_t nopen;  /* images open now */
	uint64_t tick; /* counts image uses, for least recently used */
	struct sp_htab *img_by_path; /* path -> index into imgs */
	struct sym_jitsyms *jit;
	struct sym_kallsyms *ks;
	int ks_state;
	char *release;
	char *bootid;
	struct sym_image *vdso;
	bool vdso_tried;
	struct sym_resolver_stats stats;
	time_t last_save;            /* CLOCK_MONOTONIC seconds */
	struct sp_htab *fid_by_path; /* path -> index into fids */
	struct rfid *fids;
	size_t nfids, afids;
	bool kid_tried, kid_ok;
	struct sym_fileid kid; /* this boot's kernel, for the cache */
	bool kcs_tried;
	struct sym_cset *kcs; /* cached core kernel frames, or NULL */
	bool kimg_tried;
	struct sym_kallsyms *kimg; /* the cache's copy of the image's symbols */
};

/* Whether the recording comes from this boot of this kernel. */
bool sym_same_kernel(struct sym_resolver *r);
/* Appends the fallback name of `f` (records.h) with `flags`. */
int sym_fallback_frame(const struct sp_frame *f, const char *path,
		       unsigned flags, struct sym_res *out);
/* A kernel frame from the cache, or else from kallsyms (cached then). */
int sym_kernel_frame(struct sym_resolver *r, const struct sp_frame *f,
		     struct sym_res *out);

#endif

/*
 * resolver_impl.h: the resolver's state, shared by resolve.c (modules,
 * perf maps, the cache) and kernframe.c (kernel frames); not for other
 * files.  Module files are in imgtab.h's table, kernel frames call only
 * down (kallsyms.h, hostinfo.h, symres.h), never back into resolve.c.
 */
#ifndef SP_SYMBOLIZE_RESOLVER_IMPL_H
#define SP_SYMBOLIZE_RESOLVER_IMPL_H

#include <stdbool.h>
#include <stdint.h>
#include <time.h>

#include "common/htab.h"
#include "common/idtab.h"
#include "sp-symbolize/cache/fileid.h"
#include "sp-symbolize/image/idtree.h"
#include "sp-symbolize/image/imgtab.h"
#include "sp-symbolize/jit/jitsyms.h"
#include "sp-symbolize/kernel/kallsyms.h"
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
	struct sym_imgent *ri;   /* its file in the image table, or NULL */
	struct sym_imgent *bare; /* its file, stripped (imgtab.h), or NULL */
	struct sym_image *vdso;  /* [vdso]: borrowed from the resolver */
	bool pyruntime;
	bool overridable; /* a perf map may override it */
	int cstate;
	struct sym_cset *cset; /* borrowed from the cache, or NULL */
	char cache_id[sizeof(((struct sym_fileid *)0)->buildid)];
	struct sym_filestat cache_st; /* the file `cset` is for */
};

/* A file's cache identity, read once per path like its image. */
struct rfid {
	int rc; /* of sym_fileid_read() */
	struct sym_fileid id;
};

enum { KS_UNLOADED, KS_READY };

struct sym_resolver {
	struct sym_resolver_opts o;
	struct sp_idtab *mods; /* module id -> struct rmod */
	size_t mods_peak;      /* the most live at once */
	struct sym_imgtab *imgs;
	struct sym_idtree *ids; /* files of lost modules, by build id */
	struct sym_jitsyms *jit;
	struct sym_kallsyms *ks;
	int ks_state;
	char *release;
	char *bootid;
	uint64_t start_us; /* the spool's, for sp-record's JIT copies */
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

/* A kernel frame from the cache, or else from kallsyms (cached then). */
int sym_kernel_frame(struct sym_resolver *r, const struct sp_frame *f,
		     struct sym_res *out);

#endif

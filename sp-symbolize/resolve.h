/*
 * resolve.h: the symbolizer proper.  It keeps the modules, host facts
 * and per-process perf maps a record stream has declared, and turns one
 * frame into its logical frames, choosing the symbol source in the
 * reference's order:
 *
 *   1. the truncated marker is "<stack truncated>";
 *   2. a frame in a file-backed module that a perf map may not override
 *      resolves from that module's ELF file;
 *   3. a user frame of a process with a perf map entry covering it is a
 *      JIT (or "py::" Python) frame;
 *   4. kernel frames resolve from kallsyms, module frames from ELF, and
 *      everything unresolved gets its fallback name (common/names.h).
 *
 * Problems with a module's file are warned about once per file through
 * the warn callback, never fatal.
 */
#ifndef SP_SYMBOLIZE_RESOLVE_H
#define SP_SYMBOLIZE_RESOLVE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "common/buf.h"
#include "common/spool.h"
#include "sp-symbolize/image/image.h"
#include "sp-symbolize/modkind.h"
#include "sp-symbolize/cache/symcache.h"
#include "sp-symbolize/out/symres.h"
#include "sp-symbolize/out/warn.h"

struct sym_resolver;

/*
 * How many module files a resolver keeps open (their symbol tables,
 * DWARF indexes and inflated sections, from a few to some tens of MB
 * each): past it, the least recently used one is closed, so a
 * long-running resolver stays bounded as its targets load new code.
 */
#define SYM_RESOLVER_MAX_OPEN 32
/*
 * How many bytes the open files' DWARF holds at once (dwarf.h's
 * sym_dwarf_bytes(): sections, inflated sections, the units' tables):
 * past it the least recently used files drop their DWARF and keep their
 * symbols (imgtab.h).  The 15 files of a 3 s CPython profile
 * (bench/symbolize-workload.py) hold 41 to 44 MiB, libpython3.11 with
 * 40 frames about 14 MiB.  A file's DWARF opened again costs what its first
 * opening did, so the bound leaves room above a profile's working set.
 */
#define SYM_RESOLVER_MAX_DWARF (64u << 20)

struct sym_resolver_opts {
	struct sym_symopts sym;
	const char *kallsyms;     /* saved kallsyms file, or NULL for host */
	bool no_kallsyms;         /* leave kernel frames unresolved */
	const char *perf_map_dir; /* NULL for /tmp */
	bool no_perf_maps;
	const int32_t *perf_map_pids; /* perf maps only for these, if any */
	size_t nperf_map_pids;
	/*
	 * Results of module files with a build id are looked up here first
	 * and added here (borrowed; NULL for none): a frame found in it
	 * opens nothing but the file's headers (fileid.h).
	 */
	struct sym_cache *cache;
	/* What makes the results, for the cache (fileid.h); "" will do. */
	const char *cache_tool;
	/*
	 * The build-id trees a lost module is looked up in (idtree.h), in
	 * order, before /usr/lib/debug (borrowed); NULL for sym.debug_dirs.
	 */
	char *const *id_roots;
	size_t nid_roots;
	/* Receives each warning (without the program name); may be NULL. */
	sym_warn_fn *warn;
	void *warn_ctx;
	/* The most module files kept open; 0 for SYM_RESOLVER_MAX_OPEN. */
	size_t max_open;
	/* Their DWARF's bound in bytes; 0 for SYM_RESOLVER_MAX_DWARF. */
	size_t max_dwarf;
};

/*
 * Returns a resolver, or NULL with errno set; with an explicit kallsyms
 * file that cannot be read, `err` (when not NULL) gets why: the error,
 * or "line N: not a kallsyms line".
 */
struct sym_resolver *sym_resolver_new(const struct sym_resolver_opts *o,
				      struct sp_buf *err);
void sym_resolver_free(struct sym_resolver *r);

/*
 * Declares a module (its path is copied).  Returns 0, -EEXIST for an id
 * declared before, or -ENOMEM.
 */
int sym_resolver_module(struct sym_resolver *r, const struct sp_module *m);
/*
 * Records a module's build id (hex); later frames of the module resolve
 * only if its file has that build id.  Returns 0, -ENOENT, -ENOMEM.
 */
int sym_resolver_buildid(struct sym_resolver *r, uint32_t module_id,
			 const char *hex);
/* Records a host fact ("release", "bootid"...); others are ignored. */
int sym_resolver_host(struct sym_resolver *r, const char *key,
		      const char *value);
/*
 * Records the spool's start time (its spool record): with the host's
 * boot id it names sp-record's copies of the spool's perf maps and
 * jitdumps (jitsyms.h).  Returns 0 or -ENOMEM.
 */
int sym_resolver_spool(struct sym_resolver *r, uint64_t start_us);
/* Forgets the per-process state (perf map) of `pid`: exec or exit. */
void sym_resolver_forget(struct sym_resolver *r, int32_t pid);
/*
 * Frees what the resolver keeps for process `pid`, gone for good (a
 * forget record): its perf maps and jitdump.  Its modules are retired
 * one by one with sym_resolver_retire_module().
 */
void sym_resolver_gone(struct sym_resolver *r, int32_t pid);
/*
 * Retires module `id` (a forget record retired it): its path and build
 * id are freed, and the id can be neither declared again nor resolved
 * against; frames of it get fallback names.  An id not declared or
 * already retired is ignored.
 */
void sym_resolver_retire_module(struct sym_resolver *r, uint32_t id);

/*
 * Appends the logical frames of `f` to `out`.  `pid` is the process the
 * frame was sampled in, or -1 when unknown (then the module's process is
 * used).  Returns 0 or -ENOMEM.
 */
int sym_resolver_frame(struct sym_resolver *r, const struct sp_frame *f,
		       int32_t pid, struct sym_res *out);

/*
 * Says the input is drained: a live stream waits for more.  Saves the
 * cache's new results then, at most every SYM_RESOLVER_SAVE_SECONDS,
 * so a live pipeline ended by Ctrl-C or a closed pipe keeps them.
 */
#define SYM_RESOLVER_SAVE_SECONDS 2
void sym_resolver_idle(struct sym_resolver *r);

/* What the cache saved, for tests and benchmarks. */
struct sym_resolver_stats {
	size_t cache_hits;      /* frames answered by the cache */
	size_t cache_misses;    /* frames of cacheable files resolved */
	size_t images;          /* module files opened for their symbols */
	size_t images_closed;   /* closed over the bound (opened again later) */
	size_t images_peak;     /* the most open at once */
	size_t dwarf_dropped;   /* DWARF dropped over its bound */
	size_t modules_live;    /* modules declared and not retired */
	size_t modules_peak;    /* the most live at once */
	size_t jit_processes;   /* processes whose perf maps are kept */
	size_t kallsyms_reads;  /* 1 when /proc/kallsyms was read */
	size_t kallsyms_copies; /* 1 when the cache's copy was */
};
void sym_resolver_stats(const struct sym_resolver *r,
			struct sym_resolver_stats *st);

/*
 * Calls `fn` for each module file, in the order first opened, some of
 * whose frames kept their address names because it is stripped and no
 * debug file was found (image.h's sym_image_stripped(), or no symbols
 * at all), with the number of such frames.
 */
typedef void sym_unnamed_fn(void *ctx, const char *path, size_t frames);
void sym_resolver_unnamed(const struct sym_resolver *r, sym_unnamed_fn *fn,
			  void *ctx);

#endif

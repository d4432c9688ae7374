/*
 * capture.h: the recorder's capture part: copies of the module files
 * that had samples, kept by build id in the build-id tree sp-symbolize
 * reads (idstore.h), so that a spool still names its frames once a
 * process's container, a deleted or replaced binary or the machine
 * itself is gone.
 *
 * When: the first sample in a module opens its file (as the host sees
 * it at the module's path when that is the recorded file, else as the
 * process sees it: capfile.h) and holds it, one descriptor per build id.
 * Once every process holding it has been retired, or when the recording
 * ends, the file is copied if the host can no longer reach it (its path
 * gone, another inode or another build id: what makes sp-symbolize look
 * in the tree), or in any case with REC_CAPTURE_ALL; one the host still
 * reaches stays held, idle, for a second, for the next process of the
 * same build id (at most 512 files are held; an idle one is let go for
 * a new one), and is looked at again when that one is retired.  The
 * descriptor
 * taken while the process lived is what lets a file deleted, replaced
 * or left in a namespace since be copied after its process ended.  The
 * vdso is copied from the recorder's own image at its first sample
 * (the same for every process of the running kernel), once per build
 * id.  A build id the tree already holds is not copied again, and is
 * marked used.  A recording that copied files ends by bounding the tree
 * (idstore.h: least recently used first, never what it used itself).
 *
 * The perf map and jitdump of a process with samples in code outside
 * any file (a JIT's) are copied when it is retired, or when the
 * recording ends, into DIR/.jit under a name made of the boot id, the
 * spool's start time and the pid (jitkeep.h), within the same caps.
 *
 * Nothing here fails a recording: files not kept are counted, and a
 * tree that cannot be used is said once on stderr (`sp-record: ...`).
 */
#ifndef SP_RECORD_CAPTURE_CAPTURE_H
#define SP_RECORD_CAPTURE_CAPTURE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "common/modtab.h"
#include "common/spool.h"
#include "sp-record/out/spoolout.h"

struct rec_capture;
struct rec_filepin;

/* Which sampled module files are kept by build id. */
enum rec_capture_mode {
	REC_CAPTURE_LOST, /* those the host cannot reach (the default) */
	REC_CAPTURE_ALL,  /* --capture all */
	REC_CAPTURE_OFF,  /* --no-capture */
};

/*
 * What the command line asks of the capture: the recorder copies these
 * out of its own settings, so this part needs nothing of the top's.
 */
struct rec_capture_opts {
	enum rec_capture_mode mode;
	const char *dir;   /* the tree's directory, or NULL: the default */
	uint64_t max_file; /* caps in bytes, or 0: the defaults */
	uint64_t max_total;
	uint64_t max_tree;
};

/* What the summary says. */
struct rec_capture_stats {
	uint64_t files, bytes;         /* copied into the tree */
	uint64_t jit_files, jit_bytes; /* perf maps and jitdumps copied */
	uint64_t too_big;              /* over the cap per file */
	uint64_t over_total;           /* past the cap per recording */
	uint64_t unreadable; /* no file of the recorded build id found */
	uint64_t failed;     /* writing the copy failed */
	uint64_t busy;       /* too many files held at once to hold it */
	uint64_t pruned, pruned_bytes; /* removed to keep the tree's bound */
	const char *dir;               /* the tree's directory, or NULL */
};

/*
 * The capture `o` asks for (NULL with REC_CAPTURE_OFF, or with errno
 * set on ENOMEM), reading build ids from `out`'s records, modules from
 * `mods` and, for a process gone, its files from `pins` (may be NULL);
 * all are borrowed and must outlive it.
 */
struct rec_capture *rec_capture_new(const struct rec_capture_opts *o,
				    struct rec_spoolout *out,
				    const struct sp_modtab *mods,
				    struct rec_filepin *pins);
/* Closes what it holds without copying; NULL is allowed. */
void rec_capture_free(struct rec_capture *c);

/*
 * The frames of a sample of process `pid` about to be written: a module
 * seen for the first time has its file opened and held (cheap for
 * modules seen), and a frame outside any module has the process's perf
 * map and jitdump opened once (jitkeep.h).
 */
void rec_capture_frames(struct rec_capture *c, int32_t pid,
			const struct sp_frame *f, size_t n);
/*
 * Process `pid` was retired: the files only it held are decided, and
 * its perf map and jitdump, if it had samples outside any module, are
 * copied into DIR/.jit (jitkeep.h names them).
 */
void rec_capture_retire(struct rec_capture *c, int32_t pid);
/* Lets go of the files held idle for a second at `now` (rec_clock_now_ns). */
void rec_capture_tick(struct rec_capture *c, uint64_t now);
/* The recording ended: every file still held is decided. */
void rec_capture_finish(struct rec_capture *c);

const struct rec_capture_stats *rec_capture_stats(const struct rec_capture *c);

#endif

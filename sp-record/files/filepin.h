/*
 * filepin.h: module files pinned as soon as their mapping leaves the
 * ring, so that a process that ends before its records are handled
 * still has its files found by build id, CFI and capture.
 *
 * Records are handled a sorter round or two after they are read (tens
 * of milliseconds), and by then a short-lived process may be gone: its
 * /proc/PID/map_files, exe and root with it, and so the only way to a
 * binary deleted since, or one that exists only in the process's mount
 * namespace.  So when an executable file mapping is read from a ring,
 * its file is found at once (as the host sees it at its path when that
 * is the mapped device and inode, else as the process sees it:
 * capfile.h) and held by an O_PATH descriptor, which reads nothing and
 * opens no FIFO or device.  A later open that finds neither the path
 * nor the process asks here last (modfile.h, capture.h), and gets the
 * file opened anew for reading.  The recorder reads the rings at least
 * every 10 ms, so a process that lives longer than that, and than the
 * recorder takes to be scheduled, has its files pinned.
 *
 * The pins are one table for the whole recorder, owned by it and lent
 * to every opener that may need them (each process's unwinder cache,
 * the build-id cache, the capture), which must all find the same files.  A pin
 * is let go when every process that mapped it has been retired (its samples all
 * handled: rec_filepin_retire), so that a deleted binary's disk space is not
 * held past its processes. At most REC_FILEPIN_MAX files are held; a new file
 * past that replaces the one mapped least recently.  Nothing is read from a
 * pinned file until an opener asks for it.
 */
#ifndef SP_RECORD_FILES_FILEPIN_H
#define SP_RECORD_FILES_FILEPIN_H

#include <stddef.h>
#include <stdint.h>
#include <sys/stat.h>

#define REC_FILEPIN_MAX 256

struct sp_module;
struct rec_filepin;

/* An empty table, or NULL with errno set. */
struct rec_filepin *rec_filepin_new(void);

/* Lets every pin go (the recording ended). */
void rec_filepin_free(struct rec_filepin *f);

/* One executable file mapping, as its MMAP2 record says. */
struct rec_filepin_map {
	int32_t pid;
	uint64_t start, end;
	uint32_t maj, min; /* the file's device */
	uint64_t ino;
	const char *path; /* NUL-terminated */
};

/* What the pins did, for the recorder's counters. */
struct rec_filepin_stats {
	uint64_t pinned;   /* files pinned */
	uint64_t unopened; /* mappings whose file could not be opened */
	uint64_t evicted;  /* pins let go for newer ones */
	uint64_t used;     /* opens answered from a pin */
};

/*
 * Pins the file of mapping `m` in `f` (NULL: none) unless it is pinned
 * already (same device and inode) or has no path or inode.  Never
 * blocks, never opens a FIFO or a device.
 */
void rec_filepin_mapped(struct rec_filepin *f, const struct rec_filepin_map *m);

/*
 * The file of module `m` pinned in `f` (its inode, at its path or that
 * path with " (deleted)"), opened anew for reading with *st filled; the
 * caller closes it.  Returns the descriptor or -1 with errno set
 * (ENOENT: none pinned, or `f` is NULL).
 */
int rec_filepin_open(struct rec_filepin *f, const struct sp_module *m,
		     struct stat *st);

/* Process `pid` was retired: pins only it held are let go. */
void rec_filepin_retire(struct rec_filepin *f, int32_t pid);

const struct rec_filepin_stats *rec_filepin_stats(const struct rec_filepin *f);

#endif

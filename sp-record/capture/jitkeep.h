/*
 * jitkeep.h: the perf map (/tmp/perf-PID.map) and jitdump (jit-PID.dump)
 * of each recorded process that had samples in code outside any file,
 * found and opened while it lives, so that capture.h can keep copies of
 * them beside the module files: /tmp is often cleaned, or was the
 * container's, before the spool is symbolized, and a later process of
 * the same pid writes its own map there.
 *
 * A process's files are opened at its first such sample, in its own
 * mount namespace (/proc/PID/root/tmp/perf-NSPID.map, NSPID its pid
 * there; the jitdump at the path it mapped), and the descriptors held: a
 * JIT appends to its map while it runs, which the held descriptor sees.
 * Its /tmp is held too (an O_PATH descriptor of the directory, which
 * outlives the process and its mount namespace).  At most 256
 * descriptors are held at once; past that, and for a file absent at the
 * first sample (a JVM writes its map as it exits), the file is looked
 * for when the process is taken (rec_jitkeep_take): in its namespace
 * while it lives, else in the /tmp held, else in the host's /tmp when
 * the process shared the host's mount namespace.
 * Every open is of a regular file, without following a link out of the
 * process's root (capfile.h), and only a file of root or of the
 * process's user is kept open.
 *
 * The kept copies are named DIR/.jit/BOOTID-START_US-PID.map and .dump
 * (sp-symbolize(1) and sp-archive(1) look them up by the spool's host
 * boot id, its start time and the pid): rec_jitkeep_name().
 */
#ifndef SP_RECORD_CAPTURE_JITKEEP_H
#define SP_RECORD_CAPTURE_JITKEEP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct rec_jitkeep;

enum rec_jitkeep_kind { REC_JIT_MAP, REC_JIT_DUMP, REC_JIT_NKINDS };

/* One file to copy: its descriptor (the caller's to close) and size. */
struct rec_jitkeep_file {
	int fd;
	uint64_t size;
	char name[128]; /* the kept copy's name under DIR/.jit */
};

/*
 * An empty table for a spool started at `start_us` (its header's), on
 * this boot; NULL on ENOMEM.
 */
struct rec_jitkeep *rec_jitkeep_new(uint64_t start_us);
/* Closes what it holds; NULL is allowed. */
void rec_jitkeep_free(struct rec_jitkeep *k);

/* Process `pid` had a sample outside any module: opens its files once. */
void rec_jitkeep_seen(struct rec_jitkeep *k, int32_t pid);

/*
 * The files of process `pid` to copy, each kind at most once, into
 * out[0..return); `pid` is forgotten.  0 when it had no such sample or
 * no file was found.
 */
size_t rec_jitkeep_take(struct rec_jitkeep *k, int32_t pid,
			struct rec_jitkeep_file out[REC_JIT_NKINDS]);
/* A process still in the table (for the end of a recording), or false. */
bool rec_jitkeep_any(const struct rec_jitkeep *k, int32_t *pid);

#endif

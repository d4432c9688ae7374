/*
 * capfile.h: opening the file of a sampled module to keep a copy of it
 * (capture.h): as the host sees it at the module's path, or as the
 * module's process sees it.
 *
 * The path and the process's files are the target's to choose, so every
 * open is first made with O_PATH and checked with fstat: only a regular
 * file is then opened for reading (through /proc/self/fd), never a FIFO
 * or a device, and a path inside the process's root is resolved with
 * openat2(RESOLVE_IN_ROOT), so that no symbolic link (absolute, or
 * climbing with "..") leads out of that root.
 */
#ifndef SP_RECORD_FILES_CAPFILE_H
#define SP_RECORD_FILES_CAPFILE_H

#include <stdint.h>
#include <sys/stat.h>

struct sp_module;

/* Where rec_capfile_process() found the file. */
enum rec_capfile_via {
	REC_CAPFILE_MAP_FILES = 1, /* /proc/PID/map_files/START-END */
	REC_CAPFILE_HELD,          /* its executable, or a descriptor */
	REC_CAPFILE_ROOT,          /* the path in /proc/PID/root */
};

/*
 * The regular file at `path` as the host sees it, open read-only, with
 * *st filled.  Returns the descriptor, or -1 with errno set (EINVAL: not
 * a regular file).
 */
int rec_capfile_host(const char *path, struct stat *st);

/*
 * The regular file at `path` inside the root of process `pid` (its mount
 * namespace's view), open read-only, with *st filled; no link leads out
 * of that root.  Returns the descriptor, or -1 with errno set.
 */
int rec_capfile_in_root(int32_t pid, const char *path, struct stat *st);
/*
 * The directory at `path` inside the root of process `pid`, resolved as
 * rec_capfile_in_root() does, as an O_PATH descriptor: it still reaches
 * that directory once the process and its mount namespace are gone.
 * Returns the descriptor, or -1 with errno set (ENOTDIR: no directory).
 */
int rec_capfile_dir_in_root(int32_t pid, const char *path);
/*
 * The regular file `name` (one component, no link followed) in the
 * directory open as `dirfd`, open read-only, with *st filled; or -1 with
 * errno set.
 */
int rec_capfile_at(int dirfd, const char *name, struct stat *st);

/*
 * The file behind module `m` of process m->pid as that process sees it,
 * trying in turn /proc/PID/map_files (the mapping itself; it needs
 * CAP_SYS_ADMIN or CAP_CHECKPOINT_RESTORE), the process's executable or
 * a descriptor it holds open (a memfd) when either is the module's
 * recorded inode, and unless the path says " (deleted)" that path inside
 * /proc/PID/root.
 * Returns the descriptor with *st and *via set, or -1 with errno set.
 */
int rec_capfile_process(const struct sp_module *m, struct stat *st,
			enum rec_capfile_via *via);

#endif

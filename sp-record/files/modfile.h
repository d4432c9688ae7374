/*
 * modfile.h: opening the file behind a module, as the sampled process
 * sees it, without ever blocking or reading anything but a regular file.
 *
 * A module's path comes from the target (its maps, its MMAP2 events), so
 * the target controls what sits there: a FIFO or a device at that path
 * must not stall the recorder or be read.
 */
#ifndef SP_RECORD_FILES_MODFILE_H
#define SP_RECORD_FILES_MODFILE_H

#include <stdint.h>
#include <sys/stat.h>

struct rec_filepin;
struct sp_module;

/*
 * Opens `path` read-only when it is a regular file with inode `inode`
 * (0: any), filling *st.  The type is checked before anything is opened
 * (openreg.h), so a FIFO or device there is never opened, even through
 * a symbolic link.  Returns the descriptor, or -1 with errno set
 * (EINVAL: not a regular file or another inode).
 */
int rec_modfile_open_path(const char *path, uint64_t inode, struct stat *st);

/*
 * Opens the file behind user module `m` of process `pid` (0: no process
 * to look through), trying in turn: for a deleted file (a path ending in
 * " (deleted)"), /proc/PID/map_files/START-END first, the mapping itself;
 * m->path when its inode matches; that mapping; /proc/PID/exe when it is
 * that inode (no CAP_SYS_ADMIN needed); /proc/PID/root/PATH for a process
 * in another mount namespace; last, the file pinned in `pins` (NULL:
 * none) when its mapping was read (filepin.h).  Returns the descriptor
 * or -1.
 */
int rec_modfile_open(const struct sp_module *m, int32_t pid,
		     struct rec_filepin *pins, struct stat *st);

#endif

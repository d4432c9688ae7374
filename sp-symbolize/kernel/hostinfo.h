/*
 * hostinfo.h: facts about the host sp-symbolize runs on, to decide
 * whether its kernel symbols and vdso apply to a recording.
 */
#ifndef SP_SYMBOLIZE_KERNEL_HOSTINFO_H
#define SP_SYMBOLIZE_KERNEL_HOSTINFO_H

#include <stdbool.h>
#include <stddef.h>

/* The running kernel's release (uname -r), malloc'ed; NULL on error. */
char *sym_host_release(void);
/* The boot id, malloc'ed without its newline; NULL on error. */
char *sym_host_bootid(void);
/*
 * Whether a recording with this kernel release and boot id (each NULL
 * when unknown, which matches) comes from this boot of this kernel.
 */
bool sym_host_same_kernel(const char *release, const char *bootid);
/*
 * A malloc'ed copy of this process's vdso image, the same in every
 * process of this boot; NULL when there is none.
 */
void *sym_host_vdso(size_t *len);

#endif

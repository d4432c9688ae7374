/*
 * sysctl.h: the kernel settings sp-record reads from /proc/sys, each read
 * one way, with one default where a caller needs one.
 */
#ifndef SP_RECORD_SYS_SYSCTL_H
#define SP_RECORD_SYS_SYSCTL_H

/*
 * kernel.perf_event_paranoid when it cannot be read: the kernel's own
 * default since Linux 4.6 (user-space sampling of one's own processes).
 */
#define REC_SYSCTL_PARANOID_DEFAULT 2

/*
 * Reads the integer setting `name`, spelled as sysctl(8) spells it
 * ("kernel.perf_event_max_stack"), from /proc/sys.  Returns 0 with the
 * value in *v; -errno when it cannot be read (-ENOENT: no such setting
 * on this kernel); -EBADMSG when it is not one decimal number.  *v is
 * unchanged on error.
 */
int rec_sysctl_long(const char *name, long *v);

/* kernel.perf_event_paranoid, or REC_SYSCTL_PARANOID_DEFAULT when unreadable.
 */
long rec_sysctl_perf_paranoid(void);

#endif

/*
 * cpus.h: CPU lists as -C and sysfs write them ("0-3,6"), the online
 * CPUs and how many CPU numbers this machine can have.
 */
#ifndef SP_RECORD_SYS_CPUS_H
#define SP_RECORD_SYS_CPUS_H

/*
 * Parses a CPU list of numbers below `limit`: ranges "A-B" (A <= B) and
 * single numbers, joined by commas, ending at the string's end or a
 * newline.  Returns the count (at least 1) with the numbers, in the order
 * given, in *out (malloc'd, the caller frees); or -EINVAL when `s` is not
 * such a list and -ERANGE when a number is `limit` or more (or does not
 * fit a long), with *bad at the start of the number (or of the fault) in
 * `s`; or -ENOMEM.  Nothing is allocated on error.
 */
int rec_cpus_parse(const char *s, int limit, int **out, const char **bad);

/*
 * The CPUs online (/sys/devices/system/cpu/online, or 0 to
 * _SC_NPROCESSORS_ONLN - 1): the count, the numbers in *cpus (malloc'd),
 * or -ENOMEM.
 */
int rec_cpus_online(int **cpus);

/*
 * How many CPU numbers this machine can have: one more than the highest
 * of /sys/devices/system/cpu/possible (or _SC_NPROCESSORS_CONF); at
 * least 1.  A CPU hot-plugged later has a number below it.
 */
int rec_cpus_possible(void);

#endif

/*
 * sysctl.c: kernel settings read from /proc/sys (sysctl.h).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sp-record/sys/sysctl.h"
#include "common/banned.h"

int
rec_sysctl_long(const char *name, long *v)
{
	char path[256], buf[64], *p, *end;
	FILE *f;
	long x;
	int n = snprintf(path, sizeof(path), "/proc/sys/%s", name);

	if (n < 0 || (size_t)n >= sizeof(path))
		return -ENAMETOOLONG;
	for (p = path + 10; *p; p++)
		if (*p == '.')
			*p = '/';
	if (!(f = fopen(path, "re")))
		return -errno;
	p = fgets(buf, sizeof(buf), f);
	fclose(f);
	if (!p)
		return -EBADMSG;
	errno = 0;
	x = strtol(buf, &end, 10);
	if (end == buf || errno || (*end && *end != '\n'))
		return -EBADMSG;
	*v = x;
	return 0;
}

long
rec_sysctl_perf_paranoid(void)
{
	long v = REC_SYSCTL_PARANOID_DEFAULT;

	rec_sysctl_long("kernel.perf_event_paranoid", &v);
	return v;
}

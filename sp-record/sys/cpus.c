/*
 * cpus.c: CPU lists and the machine's CPUs (cpus.h).
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "sp-record/sys/cpus.h"
#include "common/banned.h"

/* The most CPU numbers a sysfs list is trusted to hold (NR_CPUS <= 8192). */
#define SYSFS_CPUS_MAX 65536

/* Appends CPUs a..b to v (n used, *alloc allocated); 0 or -ENOMEM. */
static int
add_range(int **v, int *n, int *alloc, long a, long b)
{
	int *nv;
	long c;

	for (c = a; c <= b; c++) {
		if (*n == *alloc) {
			*alloc = *alloc ? 2 * *alloc : 8;
			nv = reallocarray(*v, (size_t)*alloc, sizeof(**v));
			if (!nv)
				return -ENOMEM;
			*v = nv;
		}
		(*v)[(*n)++] = (int)c;
	}
	return 0;
}

/*
 * One CPU number at *s: digits only (no sign, no blank), below `limit`.
 * Returns 0 with *s after it, -EINVAL or -ERANGE.
 */
static int
get_cpu(const char **s, int limit, long *cpu)
{
	char *end;

	if (**s < '0' || **s > '9')
		return -EINVAL;
	errno = 0;
	*cpu = strtol(*s, &end, 10);
	if (errno == ERANGE || *cpu >= limit)
		return -ERANGE;
	*s = end;
	return 0;
}

int
rec_cpus_parse(const char *s, int limit, int **out, const char **bad)
{
	int *v = NULL, n = 0, alloc = 0, rc = 0;
	long a, b;

	do {
		*bad = s;
		if ((rc = get_cpu(&s, limit, &a)) < 0)
			break;
		b = a;
		if (*s == '-') {
			*bad = ++s;
			if ((rc = get_cpu(&s, limit, &b)) < 0)
				break;
			if (b < a) {
				rc = -EINVAL;
				break;
			}
		}
		if ((rc = add_range(&v, &n, &alloc, a, b)) < 0)
			break;
		*bad = s;
		if (*s != ',' && *s != '\0' && *s != '\n')
			rc = -EINVAL;
	} while (rc == 0 && *s++ == ',');
	if (rc < 0) {
		free(v);
		return rc;
	}
	*out = v;
	return n;
}

/* Parses a sysfs CPU list file; the count, or a negative errno. */
static int
read_list(const char *path, int **cpus)
{
	char buf[4096];
	const char *bad;
	FILE *f = fopen(path, "re");
	int got = -ENOENT;

	if (f) {
		if (fgets(buf, sizeof(buf), f))
			got = rec_cpus_parse(buf, SYSFS_CPUS_MAX, cpus, &bad);
		fclose(f);
	}
	return got;
}

int
rec_cpus_online(int **cpus)
{
	long i, n;
	int got = read_list("/sys/devices/system/cpu/online", cpus);

	if (got > 0)
		return got;
	n = sysconf(_SC_NPROCESSORS_ONLN);
	if (n < 1)
		n = 1;
	*cpus = calloc((size_t)n, sizeof(**cpus));
	if (!*cpus)
		return -ENOMEM;
	for (i = 0; i < n; i++)
		(*cpus)[i] = (int)i;
	return (int)n;
}

int
rec_cpus_possible(void)
{
	int *v, got = read_list("/sys/devices/system/cpu/possible", &v);
	int i, max = -1;
	long n;

	for (i = 0; i < got; i++)
		if (v[i] > max)
			max = v[i];
	if (got > 0)
		free(v);
	if (max >= 0)
		return max + 1;
	n = sysconf(_SC_NPROCESSORS_CONF);
	return n < 1 ? 1 : n > INT_MAX ? INT_MAX : (int)n;
}

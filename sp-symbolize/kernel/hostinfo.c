/*
 * hostinfo.c: the running host's kernel release, boot id and vdso (see
 * hostinfo.h).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/utsname.h>

#include "sp-symbolize/kernel/hostinfo.h"
#include "common/banned.h"

char *
sym_host_release(void)
{
	struct utsname u;

	if (uname(&u))
		return NULL;
	return strdup(u.release);
}

char *
sym_host_bootid(void)
{
	FILE *f = fopen("/proc/sys/kernel/random/boot_id", "re");
	char buf[128];
	char *id = NULL;

	if (!f)
		return NULL;
	if (fgets(buf, sizeof(buf), f)) {
		buf[strcspn(buf, "\n")] = '\0';
		id = strdup(buf);
	}
	fclose(f);
	return id;
}

/* The size of the [vdso] mapping that starts at `base`, or 0. */
static size_t
vdso_size(unsigned long base)
{
	FILE *f = fopen("/proc/self/maps", "re");
	char line[512];
	unsigned long lo, hi;
	size_t size = 0;

	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f))
		if (strstr(line, "[vdso]") &&
		    sscanf(line, "%lx-%lx", &lo, &hi) == 2 && lo == base) {
			size = hi - lo;
			break;
		}
	fclose(f);
	return size;
}

void *
sym_host_vdso(size_t *len)
{
	unsigned long base = getauxval(AT_SYSINFO_EHDR);
	size_t size;
	void *copy;

	if (!base || (size = vdso_size(base)) == 0)
		return NULL;
	copy = malloc(size);
	if (!copy)
		return NULL;
	memcpy(copy, (const void *)base, size);
	*len = size;
	return copy;
}

/* Whether a recorded host fact matches this host (true when unknown). */
static bool
fact_matches(const char *recorded, char *(*get)(void))
{
	char *here;
	bool same;

	if (!recorded)
		return true;
	here = get();
	same = here && strcmp(here, recorded) == 0;
	free(here);
	return same;
}

bool
sym_host_same_kernel(const char *release, const char *bootid)
{
	return fact_matches(release, sym_host_release) &&
	       fact_matches(bootid, sym_host_bootid);
}

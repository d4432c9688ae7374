/*
 * jitpath.c: where a process's jitdump is (see jitpath.h).
 */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "sp-symbolize/jit/jitpath.h"
#include "common/banned.h"

bool
sym_jitpath_is_dump(const char *path, size_t len, int32_t pid)
{
	const char *base = memrchr(path, '/', len);
	char want[32];
	size_t n, blen;

	base = base ? base + 1 : path;
	blen = len - (size_t)(base - path);
	n = (size_t)snprintf(want, sizeof(want), "jit-%d.dump", (int)pid);
	return pid > 0 && blen == n && memcmp(base, want, n) == 0;
}

/* Whether `st` (of `path`) is to be preferred to `best` (of `have`). */
static bool
newer(const struct stat *st, const char *path, const struct timespec *best,
      const char *have)
{
	if (!have || st->st_mtim.tv_sec != best->tv_sec)
		return !have || st->st_mtim.tv_sec > best->tv_sec;
	if (st->st_mtim.tv_nsec != best->tv_nsec)
		return st->st_mtim.tv_nsec > best->tv_nsec;
	/* A tie goes by name, not by the directory's order. */
	return strcmp(path, have) < 0;
}

/*
 * The newest regular file named `name` in a subdirectory of `top`
 * (each run of perf's agent makes its own), malloc'ed; NULL when there
 * is none (or memory ran out: the caller's next allocation says so).
 */
static char *
newest_below(const char *top, const char *name)
{
	struct timespec best = { 0, 0 };
	char *found = NULL, *cand;
	struct dirent *de;
	struct stat st;
	DIR *d = opendir(top);

	while (d && (de = readdir(d)) != NULL) {
		if (de->d_name[0] == '.')
			continue;
		if (asprintf(&cand, "%s/%s/%s", top, de->d_name, name) < 0)
			break;
		if (lstat(cand, &st) < 0 || !S_ISREG(st.st_mode) ||
		    !newer(&st, cand, &best, found)) {
			free(cand);
			continue;
		}
		free(found);
		found = cand;
		best = st.st_mtim;
	}
	if (d)
		closedir(d);
	return found;
}

/* The newest `name` under one of the agent directories, or NULL. */
static char *
agent_dump(const char *name)
{
	const char *jd = getenv("JITDUMPDIR"), *bd = getenv("PERF_BUILDID_DIR");
	char *top, *found = NULL;

	if (!jd || !*jd)
		jd = getenv("HOME");
	if (jd && *jd && asprintf(&top, "%s/.debug/jit", jd) >= 0) {
		found = newest_below(top, name);
		free(top);
	}
	if (!found && bd && *bd && asprintf(&top, "%s/jit", bd) >= 0) {
		found = newest_below(top, name);
		free(top);
	}
	return found;
}

char *
sym_jitpath_find(const char *mapped, const char *dir, int32_t pid)
{
	char name[32], *path;
	struct stat st;

	snprintf(name, sizeof(name), "jit-%d.dump", (int)pid);
	if (dir)
		return asprintf(&path, "%s/%s", dir, name) < 0 ? NULL : path;
	if (mapped && lstat(mapped, &st) == 0)
		return strdup(mapped);
	if ((path = agent_dump(name)) != NULL)
		return path;
	return asprintf(&path, "/tmp/%s", name) < 0 ? NULL : path;
}

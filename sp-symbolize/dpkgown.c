/*
 * dpkgown.c: the Debian packages owning a few files, from dpkg's file
 * lists (see dpkgown.h).
 */
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/buf.h"
#include "sp-symbolize/dpkgown.h"
#include "common/openreg.h"
#include "common/banned.h"

/* A file looked for: its identity and its name's last component. */
struct want {
	bool ok; /* stat worked */
	dev_t dev;
	ino_t ino;
	char *base;     /* of its real path, malloc'ed */
	bool ambiguous; /* two packages list it */
};

static const char *
basename_of(const char *path)
{
	const char *slash = strrchr(path, '/');

	return slash ? slash + 1 : path;
}

/* Fills `w` for `path`; a file that cannot be stat'ed is never found. */
static int
want_init(struct want *w, const char *path)
{
	char real[PATH_MAX];
	struct stat st;

	memset(w, 0, sizeof(*w));
	if (stat(path, &st) < 0 || !realpath(path, real))
		return 0;
	w->base = strdup(basename_of(real));
	if (!w->base)
		return -ENOMEM;
	w->ok = true;
	w->dev = st.st_dev;
	w->ino = st.st_ino;
	return 0;
}

/* Records that `pkg` lists the file of `w`, whose owner is *owner. */
static int
found(struct want *w, char **owner, const char *pkg, size_t len)
{
	if (w->ambiguous)
		return 0;
	if (*owner) {
		if (strlen(*owner) != len || memcmp(*owner, pkg, len) != 0) {
			free(*owner);
			*owner = NULL;
			w->ambiguous = true;
		}
		return 0;
	}
	*owner = strndup(pkg, len);
	return *owner ? 0 : -ENOMEM;
}

/*
 * Checks the paths listed in `f`, the list of package `pkg` (`len`
 * bytes), against the wanted files; *budget counts down the bytes read.
 */
static int
scan_list(FILE *f, const char *pkg, size_t len, struct want *w, size_t n,
	  char **owners, size_t *budget)
{
	struct sp_buf line = SP_BUF_INIT;
	struct stat st;
	const char *base;
	size_t i;
	int rc = 0;

	while (*budget && sp_buf_getline(&line, f, PATH_MAX) == 1) {
		*budget = line.len < *budget ? *budget - line.len : 0;
		if (line.data[line.len - 1] == '\n')
			line.data[--line.len] = '\0';
		base = basename_of((const char *)line.data);
		for (i = 0; i < n && rc == 0; i++) {
			if (!w[i].ok || strcmp(base, w[i].base) != 0 ||
			    stat((const char *)line.data, &st) < 0 ||
			    st.st_dev != w[i].dev || st.st_ino != w[i].ino)
				continue;
			rc = found(&w[i], &owners[i], pkg, len);
		}
	}
	sp_buf_release(&line);
	return rc;
}

/* The package a list file names ("pkg:arch.list"), or 0 for no list. */
static size_t
list_package(const char *name)
{
	size_t len = strlen(name), pl;

	if (len <= 5 || strcmp(name + len - 5, ".list") != 0)
		return 0;
	pl = strcspn(name, ":");
	return pl < len - 5 ? pl : len - 5;
}

/* Reads every list of `dir` until the bound. */
static int
scan_dir(DIR *dir, struct want *w, size_t n, char **owners)
{
	size_t budget = SYM_DPKG_MAX_BYTES, len;
	struct dirent *de;
	struct stat st;
	FILE *f;
	int fd, rc = 0;

	while (rc == 0 && budget && (de = readdir(dir))) {
		len = list_package(de->d_name);
		if (!len)
			continue;
		fd = sp_open_regular(dirfd(dir), de->d_name, true, &st);
		if (fd < 0)
			continue;
		f = fdopen(fd, "r");
		if (!f) {
			close(fd);
			continue;
		}
		rc = scan_list(f, de->d_name, len, w, n, owners, &budget);
		fclose(f);
	}
	return rc;
}

int
sym_dpkg_owners(const char *infodir, const char *const *paths, size_t n,
		char **owners)
{
	struct want *w = calloc(n ? n : 1, sizeof(*w));
	DIR *dir = NULL;
	size_t i;
	int rc = w ? 0 : -ENOMEM;

	for (i = 0; i < n; i++)
		owners[i] = NULL;
	for (i = 0; i < n && rc == 0; i++)
		rc = want_init(&w[i], paths[i]);
	if (rc == 0 && !(dir = opendir(infodir ? infodir : SYM_DPKG_INFO)))
		rc = -errno;
	if (rc == 0)
		rc = scan_dir(dir, w, n, owners);
	if (dir)
		closedir(dir);
	for (i = 0; w && i < n; i++) {
		free(w[i].base);
		if (rc) {
			free(owners[i]);
			owners[i] = NULL;
		}
	}
	free(w);
	return rc;
}

/*
 * goexe.c: whether an executable is a Go program, from its section names
 * (goexe.h).
 */
#include <elf.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/openreg.h"
#include "sp-record/unwind/goexe.h"
#include "common/banned.h"

/* Section names only a Go toolchain writes. */
static const char *const go_sections[] = {
	".gopclntab",
	".go.buildinfo",
	".note.go.buildid",
};

/* Reads `len` bytes at `off`; false when the file has fewer. */
static bool
read_at(int fd, void *buf, size_t len, uint64_t off)
{
	return off <= INT64_MAX &&
	       pread(fd, buf, len, (off_t)off) == (ssize_t)len;
}

/* Whether section name table `names` (`len` bytes) names a Go section. */
static bool
names_go(const char *names, size_t len, const Elf64_Shdr *sh, size_t n)
{
	size_t i, j, k;

	for (i = 0; i < n; i++) {
		if (sh[i].sh_name >= len)
			continue;
		for (j = 0; j < sizeof(go_sections) / sizeof(go_sections[0]);
		     j++) {
			k = strlen(go_sections[j]);
			if (len - sh[i].sh_name > k &&
			    memcmp(names + sh[i].sh_name, go_sections[j],
				   k + 1) == 0)
				return true;
		}
	}
	return false;
}

bool
rec_goexe_is_go(const char *path)
{
	Elf64_Shdr *sh = NULL;
	char *names = NULL;
	Elf64_Ehdr eh;
	struct stat st;
	bool go = false;
	int fd;

	if ((fd = sp_open_regular(AT_FDCWD, path, false, &st)) < 0)
		return false;
	if (!read_at(fd, &eh, sizeof(eh), 0) ||
	    memcmp(eh.e_ident, ELFMAG, SELFMAG) != 0 ||
	    eh.e_ident[EI_CLASS] != ELFCLASS64 ||
	    eh.e_shentsize != sizeof(Elf64_Shdr) || eh.e_shnum == 0 ||
	    eh.e_shstrndx >= eh.e_shnum)
		goto out;
	if (!(sh = calloc(eh.e_shnum, sizeof(*sh))) ||
	    !read_at(fd, sh, eh.e_shnum * sizeof(*sh), eh.e_shoff) ||
	    sh[eh.e_shstrndx].sh_size > (1u << 20) ||
	    !(names = malloc(sh[eh.e_shstrndx].sh_size + 1)) ||
	    !read_at(fd, names, sh[eh.e_shstrndx].sh_size,
		     sh[eh.e_shstrndx].sh_offset))
		goto out;
	names[sh[eh.e_shstrndx].sh_size] = '\0';
	go = names_go(names, sh[eh.e_shstrndx].sh_size + 1, sh, eh.e_shnum);
out:
	free(names);
	free(sh);
	close(fd);
	return go;
}

bool
rec_goexe_pid_is_go(int32_t pid)
{
	char path[64];

	snprintf(path, sizeof(path), "/proc/%d/exe", (int)pid);
	return rec_goexe_is_go(path);
}

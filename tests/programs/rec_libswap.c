/*
 * rec_libswap.c: loads a library, then changes its file under the
 * recorder while running code in it, for the sp-record tests of files
 * that change on disk (issue 11).
 *
 *   rec_libswap fifo SECONDS LIBRARY READY
 *   rec_libswap truncate SECONDS LIBRARY
 *   rec_libswap link SECONDS LIBRARY READY TARGET
 *
 * fifo: deletes LIBRARY and puts a FIFO named "LIBRARY (deleted)" in its
 * place, the path /proc/PID/maps then shows; creates the file READY; then
 * spins in the library for SECONDS.
 * truncate: spins in the library for SECONDS/2, cuts LIBRARY's file right
 * after its code (what the recorder reads of it, the CFI, is gone; what
 * this process runs is not), spins SECONDS/2 more in other functions.
 * link: renames LIBRARY to "LIBRARY.moved" and puts a symbolic link to
 * TARGET (a FIFO, a device) at LIBRARY, the path a recorder that saw the
 * mapping made still names (/proc/PID/maps shows the new name); writes
 * its pid to READY; then spins in the library for SECONDS.
 * LIBRARY is built from rec_intlib.c.  SECONDS is wall time; "3c" is
 * 3 s of CPU time, so that a test gets its samples however loaded the
 * machine is.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <elf.h>
#include <fcntl.h>
#include <link.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

static void (*lib_work)(void);
static void (*lib_late)(void);

/* Wall time, or this thread's CPU time for a SECONDS like "3c". */
static clockid_t clock_id = CLOCK_MONOTONIC;

static double
now(void)
{
	struct timespec ts;

	clock_gettime(clock_id, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void
spin(double secs, void (*fn)(void))
{
	double end = now() + secs;

	while (now() < end)
		fn();
}

/* The file offset where the library's code segment ends, page-rounded. */
static long code_end;

static int
find_code_end(struct dl_phdr_info *info, size_t size, void *arg)
{
	const char *lib = arg;
	long page = sysconf(_SC_PAGESIZE);
	int i;

	(void)size;
	if (strcmp(info->dlpi_name, lib) != 0)
		return 0;
	for (i = 0; i < info->dlpi_phnum; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];

		if (ph->p_type == PT_LOAD && (ph->p_flags & PF_X))
			code_end =
			    ((long)(ph->p_offset + ph->p_filesz) + page - 1) /
			    page * page;
	}
	return code_end != 0;
}

/* The link mode: LIBRARY moved away, a link to TARGET in its place. */
static int
relink(const char *lib, const char *target, const char *ready, double secs)
{
	char moved[4096];
	int fd;

	snprintf(moved, sizeof(moved), "%s.moved", lib);
	if (rename(lib, moved) < 0 || symlink(target, lib) < 0 ||
	    (fd = open(ready, O_WRONLY | O_CREAT, 0600)) < 0) {
		perror("rec_libswap");
		return 1;
	}
	dprintf(fd, "%d\n", (int)getpid());
	close(fd);
	spin(secs, lib_work);
	return 0;
}

int
main(int argc, char **argv)
{
	char fifo[4096];
	double secs;
	void *h;
	int fd;

	if (argc < 4)
		return 2;
	secs = atof(argv[2]);
	if (argv[2][strlen(argv[2]) - 1] == 'c')
		clock_id = CLOCK_THREAD_CPUTIME_ID;
	if (!(h = dlopen(argv[3], RTLD_NOW))) {
		fprintf(stderr, "rec_libswap: %s\n", dlerror());
		return 1;
	}
	*(void **)&lib_work = dlsym(h, "lib_work");
	*(void **)&lib_late = dlsym(h, "lib_late");
	if (!lib_work || !lib_late)
		return 1;
	if (strcmp(argv[1], "fifo") == 0 && argc > 4) {
		snprintf(fifo, sizeof(fifo), "%s (deleted)", argv[3]);
		if (unlink(argv[3]) < 0 || mkfifo(fifo, 0600) < 0 ||
		    (fd = open(argv[4], O_WRONLY | O_CREAT, 0600)) < 0) {
			perror("rec_libswap");
			return 1;
		}
		close(fd);
		spin(secs, lib_work);
		return 0;
	}
	if (strcmp(argv[1], "link") == 0 && argc > 5)
		return relink(argv[3], argv[5], argv[4], secs);
	spin(secs / 2, lib_work);
	dl_iterate_phdr(find_code_end, argv[3]);
	if (!code_end || truncate(argv[3], code_end) < 0) {
		perror("rec_libswap: truncate");
		return 1;
	}
	spin(secs / 2, lib_late);
	/* exit() would run the library's destructors, from the cut part. */
	_exit(0);
}

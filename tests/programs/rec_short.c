/*
 * rec_short.c: a process that lives a few tens of milliseconds, for the
 * test of module files pinned as they are mapped (t1062).  Build with
 * -O0 -fno-omit-frame-pointer.
 *
 *   rec_short SECONDS [unlink | memfd LIBRARY]
 *
 * First, with "unlink", it removes its own file; with "memfd", it copies
 * LIBRARY (built from rec_dllib.c) into a memfd named "jitlib", loads it
 * from there with dlopen(3) and closes the memfd, so that only the
 * mapping holds it.  Then it waits, asleep and for at most 10 s, until
 * its parent (sp-record, which launched it) holds its executable (or the
 * memfd) by an O_PATH descriptor: the pin sp-record takes when it reads
 * the mapping.  Then it runs main -> run -> short_a -> short_b -> spin
 * (with "memfd": main -> run_lib -> lib_spin -> lib_inner) until it has
 * used SECONDS of CPU time, and exits 0, so that its samples are handled
 * after it is gone.  Without a pin it exits 3 at once.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <dlfcn.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define O_PATH_BIT 010000000 /* O_PATH in /proc/PID/fdinfo's octal flags */

static volatile unsigned long sink;

/* Whether descriptor `name` of process `pid` is an O_PATH one of `me`. */
static int
pins(int pid, const char *name, const struct stat *me)
{
	char path[300], line[128];
	unsigned long flags = 0;
	struct stat st;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/fd/%s", pid, name);
	if (stat(path, &st) < 0 || st.st_dev != me->st_dev ||
	    st.st_ino != me->st_ino)
		return 0;
	snprintf(path, sizeof(path), "/proc/%d/fdinfo/%s", pid, name);
	if (!(f = fopen(path, "r")))
		return 0;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "flags: %lo", &flags) == 1)
			break;
	fclose(f);
	return (flags & O_PATH_BIT) != 0;
}

static int
pinned(int pid, const struct stat *me)
{
	char dir[64];
	struct dirent *e;
	int found = 0;
	DIR *d;

	snprintf(dir, sizeof(dir), "/proc/%d/fd", pid);
	if (!(d = opendir(dir)))
		return 0;
	while (!found && (e = readdir(d)))
		found = e->d_name[0] != '.' && pins(pid, e->d_name, me);
	closedir(d);
	return found;
}

static double
cpu_secs(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

__attribute__((noinline)) void
spin(void)
{
	unsigned long i;

	for (i = 0; i < 100000; i++)
		sink += i;
}

__attribute__((noinline)) void
short_b(void)
{
	spin();
	sink++;
}

__attribute__((noinline)) void
short_a(void)
{
	short_b();
	sink++;
}

__attribute__((noinline)) void
run(double budget)
{
	double end = cpu_secs() + budget;

	while (cpu_secs() < end)
		short_a();
}

/*
 * LIBRARY copied into a memfd and loaded from it, the memfd closed; *me
 * is the memfd's inode.  Returns lib_spin, or NULL.
 */
static void (*load_memfd(const char *lib, struct stat *me))(double)
{
	char buf[65536], path[64];
	int in, fd;
	ssize_t n;
	void *h;

	in = open(lib, O_RDONLY);
	fd = memfd_create("jitlib", 0);
	if (in < 0 || fd < 0)
		return NULL;
	while ((n = read(in, buf, sizeof(buf))) > 0)
		if (write(fd, buf, (size_t)n) != n)
			return NULL;
	close(in);
	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	h = dlopen(path, RTLD_NOW);
	if (!h || fstat(fd, me) < 0)
		return NULL;
	close(fd);
	return (void (*)(double))dlsym(h, "lib_spin");
}

__attribute__((noinline)) void
run_lib(void (*lib_spin)(double), double budget)
{
	lib_spin(-budget);
	sink++;
}

int
main(int argc, char **argv)
{
	struct timespec ms = { 0, 1000000 };
	void (*lib_spin)(double) = NULL;
	struct stat me;
	int i;

	if (argc < 2 || stat("/proc/self/exe", &me) < 0)
		return 2;
	if (argc > 2 && strcmp(argv[2], "unlink") == 0 && unlink(argv[0]) < 0)
		return 2;
	if (argc > 3 && strcmp(argv[2], "memfd") == 0 &&
	    !(lib_spin = load_memfd(argv[3], &me)))
		return 2;
	for (i = 0; i < 10000 && !pinned((int)getppid(), &me); i++)
		nanosleep(&ms, NULL);
	if (i == 10000)
		return 3;
	if (lib_spin)
		run_lib(lib_spin, atof(argv[1]));
	else
		run(atof(argv[1]));
	return 0;
}

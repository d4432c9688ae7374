/*
 * py_embed.c: a program that is not CPython and loads libpython with
 * dlopen once it has run a while, as an application embedding Python
 * does, then runs a Python function, for the test that its samples get
 * their Python frames.
 *
 *   py_embed LIBPYTHON C_SECONDS PY_SECONDS   (of the process's CPU time)
 */
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static volatile unsigned long sink;

static double
cpu_secs(void)
{
	struct timespec t;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
	return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

/* Work in C alone, before any Python is mapped. */
static void __attribute__((noinline)) c_spin(double secs)
{
	double end = cpu_secs() + secs;
	unsigned long i;

	while (cpu_secs() < end)
		for (i = 0; i < 100000; i++)
			sink += i;
}

int
main(int argc, char **argv)
{
	void (*init)(void);
	int (*run)(const char *);
	char code[512];
	void *lib;

	if (argc != 4) {
		fprintf(stderr, "usage: py_embed LIBPYTHON C_SECONDS "
				"PY_SECONDS\n");
		return 2;
	}
	c_spin(atof(argv[2]));
	if (!(lib = dlopen(argv[1], RTLD_NOW | RTLD_GLOBAL))) {
		fprintf(stderr, "py_embed: %s\n", dlerror());
		return 1;
	}
	*(void **)&init = dlsym(lib, "Py_Initialize");
	*(void **)&run = dlsym(lib, "PyRun_SimpleString");
	if (!init || !run) {
		fprintf(stderr, "py_embed: %s: no Py_Initialize\n", argv[1]);
		return 1;
	}
	snprintf(code, sizeof(code),
		 "import time\n"
		 "def embedded_work(secs):\n"
		 "    end = time.process_time() + secs\n"
		 "    x = 0\n"
		 "    while time.process_time() < end:\n"
		 "        for i in range(1000):\n"
		 "            x += i\n"
		 "embedded_work(%s)\n",
		 argv[3]);
	init();
	return run(code) == 0 ? 0 : 1;
}

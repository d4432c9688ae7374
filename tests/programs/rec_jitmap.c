/*
 * rec_jitmap.c: a tiny JIT for x86-64, for the tests of perf maps that
 * travel in a bundle (t1063) or are kept by sp-record (t1064).  Build with -O0
 * -fno-omit-frame-pointer.
 *
 *   rec_jitmap SECONDS [late]
 *
 * Writes two copies of a counting loop with a frame-pointer prologue
 * into anonymous executable memory, names the first "jit_hot_loop" in
 * /tmp/perf-PID.map as JITs do for perf(1), and the second
 * "jit_dump_loop" in a jitdump, /tmp/jit-PID.dump, as perf's jitdump
 * specification lays it out; then calls them in turn from main -> run_jit
 * until it has used SECONDS of CPU time ("0.2c" or 0.2), and exits 0.
 * With "late", both files are written only then, as it exits (as a JVM
 * with -XX:+DumpPerfMapAtExit writes its map).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

/* push rbp; mov rbp,rsp; mov ecx,0x40000; 1: dec ecx; jnz 1b; pop rbp;
 * ret */
static const unsigned char code[] = { 0x55, 0x48, 0x89, 0xe5, 0xb9,
				      0x00, 0x00, 0x04, 0x00, 0xff,
				      0xc9, 0x75, 0xfc, 0x5d, 0xc3 };

static double
cpu_secs(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

__attribute__((noinline)) void
run_jit(void (*a)(void), void (*b)(void), double budget)
{
	double end = cpu_secs() + budget;

	while (cpu_secs() < end) {
		a();
		b();
	}
}

/* A jitdump with one code load record: `mem` named "jit_dump_loop". */
static int
write_dump(const char *path, void *mem)
{
	static const char name[] = "jit_dump_loop";
	uint32_t head[6] = { 0x4A695444, 1, 40, 62, 0, (uint32_t)getpid() };
	uint32_t rec[2] = { 0, 16 + 40 + sizeof(name) + sizeof(code) };
	uint64_t zero[2] = { 0, 0 }, load[5];
	uint32_t ids[2] = { (uint32_t)getpid(), (uint32_t)getpid() };
	FILE *f = fopen(path, "w");

	if (!f)
		return -1;

	load[0] = load[1] = (uint64_t)(uintptr_t)mem; /* vma, code_addr */
	load[2] = sizeof(code);
	load[3] = 1; /* code_index */
	fwrite(head, sizeof(head), 1, f);
	fwrite(zero, sizeof(zero), 1, f); /* timestamp, flags */
	fwrite(rec, sizeof(rec), 1, f);
	fwrite(zero, sizeof(uint64_t), 1, f); /* timestamp */
	fwrite(ids, sizeof(ids), 1, f);
	fwrite(load, sizeof(uint64_t), 4, f);
	fwrite(name, sizeof(name), 1, f);
	fwrite(code, sizeof(code), 1, f);
	return fclose(f);
}

int
main(int argc, char **argv)
{
	char path[64];
	char *mem;
	FILE *f;

	if (argc < 2)
		return 2;
	mem = mmap(NULL, 4096, PROT_READ | PROT_WRITE | PROT_EXEC,
		   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (mem == MAP_FAILED)
		return 1;
	memcpy(mem, code, sizeof(code));
	memcpy(mem + 64, code, sizeof(code));
	if (argc > 2 && !strcmp(argv[2], "late"))
		run_jit((void (*)(void))mem, (void (*)(void))(mem + 64),
			atof(argv[1]));
	snprintf(path, sizeof(path), "/tmp/perf-%d.map", (int)getpid());
	if (!(f = fopen(path, "w")))
		return 1;
	fprintf(f, "%lx %zx jit_hot_loop\n", (unsigned long)mem, sizeof(code));
	if (fclose(f) != 0)
		return 1;
	snprintf(path, sizeof(path), "/tmp/jit-%d.dump", (int)getpid());
	if (write_dump(path, mem + 64) != 0)
		return 1;
	if (argc <= 2)
		run_jit((void (*)(void))mem, (void (*)(void))(mem + 64),
			atof(argv[1]));
	return 0;
}

/*
 * rec_dllibc.c: a library for rec_dlopen whose lib_spin spends nearly
 * all its time in libc (memset), so that samples land in a module known
 * before the dlopen while the library is only a caller frame.  Build with
 * -shared -fPIC -O2 -fomit-frame-pointer: only its CFI unwinds it; with
 * -DPAD its code lies elsewhere in the file.
 */
#include <string.h>
#include <time.h>

static char buf[1 << 20];

#ifdef PAD
/* Built with -DPAD, lib_spin lies 16 KiB further than without. */
__attribute__((used)) static void
pad(void)
{
	__asm__ volatile(".fill 16384, 1, 0x90");
}
#endif

/* Through a volatile pointer, so that the compiler keeps the call. */
static void *(*volatile fill)(void *, int, size_t) = memset;

void lib_spin(double secs);

/* Spins for `secs` of wall time, or for -secs of this thread's CPU time. */
void
lib_spin(double secs)
{
	clockid_t id = secs < 0 ? CLOCK_THREAD_CPUTIME_ID : CLOCK_MONOTONIC;
	struct timespec ts;
	double end;
	int i = 0;

	clock_gettime(id, &ts);
	end = (double)ts.tv_sec + (double)ts.tv_nsec / 1e9 +
	      (secs < 0 ? -secs : secs);
	do {
		fill(buf, i++, sizeof(buf));
		clock_gettime(id, &ts);
	} while ((double)ts.tv_sec + (double)ts.tv_nsec / 1e9 < end);
}

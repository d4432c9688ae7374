/*
 * rec_dllibc.c: a library for rec_dlopen whose lib_spin spends nearly
 * all its time in libc (memset), so that samples land in a module known
 * before the dlopen while the library is only a caller frame.  Build with
 * -shared -fPIC -O2 -fomit-frame-pointer: only its CFI unwinds it.
 */
#include <string.h>
#include <time.h>

static char buf[1 << 20];

/* Through a volatile pointer, so that the compiler keeps the call. */
static void *(*volatile fill)(void *, int, size_t) = memset;

void lib_spin(double secs);

void
lib_spin(double secs)
{
	struct timespec ts;
	double end;
	int i = 0;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	end = (double)ts.tv_sec + (double)ts.tv_nsec / 1e9 + secs;
	do {
		fill(buf, i++, sizeof(buf));
		clock_gettime(CLOCK_MONOTONIC, &ts);
	} while ((double)ts.tv_sec + (double)ts.tv_nsec / 1e9 < end);
}

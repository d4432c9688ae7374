/*
 * fold_stripped.c: the workload of sp-fold's stripped-binary test, run
 * stripped so no symbol names its code.  Its time goes to loops in
 * several functions called from several places, so the samples land on
 * many addresses of the binary.
 *   fold_stripped [ROUNDS]
 */
#include <stdio.h>
#include <stdlib.h>

static volatile unsigned long sink;

__attribute__((noinline)) static void
mix(unsigned long n)
{
	unsigned long i;

	for (i = 0; i < n; i++)
		sink ^= (sink << 5) + i;
}

__attribute__((noinline)) static void
sum(unsigned long n)
{
	unsigned long i;

	for (i = 0; i < n; i++)
		sink += i * i;
}

__attribute__((noinline)) static void
stage_a(void)
{
	mix(200000);
	sum(100000);
}

__attribute__((noinline)) static void
stage_b(void)
{
	sum(200000);
	mix(100000);
	stage_a();
}

int
main(int argc, char *argv[])
{
	long rounds = argc > 1 ? atol(argv[1]) : 1000, r;

	for (r = 0; r < rounds; r++) {
		stage_a();
		stage_b();
	}
	puts("fold_stripped: done");
	return 0;
}

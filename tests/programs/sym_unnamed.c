/*
 * sym_unnamed.c: calls into sym_unnamed_lib.c's library for a bound of
 * CPU time, so that a recording samples its stripped code.
 *   sym_unnamed [CPU_SECONDS]
 */
#include <stdio.h>
#include <stdlib.h>

void unnamed_spin(double cpu_secs);

int
main(int argc, char **argv)
{
	unnamed_spin(argc > 1 ? atof(argv[1]) : 0.5);
	puts("sym_unnamed: done");
	return 0;
}

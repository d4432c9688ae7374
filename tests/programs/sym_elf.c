/*
 * sym_elf.c: fixture for sp-symbolize's ELF and DWARF tests.  Built as a
 * PIE, a non-PIE executable and a shared object (-DSYM_LIB); the tests
 * look its functions up by address and compare names and lines.
 */
volatile int sym_sink;

__attribute__((noinline)) void
sym_leaf(int x)
{
	sym_sink = x;
}

static __attribute__((noinline)) void
sym_local(int x)
{
	sym_sink = x + 5;
	sym_leaf(x);
}

static inline __attribute__((always_inline)) void
sym_inl(int x)
{
	sym_sink = x * 7;
	sym_leaf(x + 1);	/* the call inside the inlined body */
	sym_sink = x;
}

__attribute__((noinline)) void
sym_outer(int x)
{
	sym_inl(x);
	sym_sink += 2;
}

__attribute__((noinline)) int
sym_work(int n)
{
	int i;

	for (i = 0; i < n; i++) {
		sym_outer(i);
		sym_local(i);
	}
	return sym_sink;
}

#ifndef SYM_LIB
int
main(int argc, char **argv)
{
	(void)argv;
	return sym_work(argc * 1000) == -1;
}
#endif

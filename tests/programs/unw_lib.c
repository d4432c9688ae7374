/*
 * unw_lib.c: the shared library of unw_chains.c, so that unwinding has to
 * cross a module built and loaded separately.  Chain: lib_work ->
 * lib_inner -> the caller's callback.
 */
#define NOINLINE __attribute__((noinline))

unsigned long lib_work(unsigned long n, unsigned long (*cb)(unsigned long));

static NOINLINE unsigned long
lib_inner(unsigned long n, unsigned long (*cb)(unsigned long))
{
	unsigned long r = cb(n);

	__asm__ volatile("" : "+r"(r));
	return r + 1;
}

unsigned long
lib_work(unsigned long n, unsigned long (*cb)(unsigned long))
{
	unsigned long r = lib_inner(n, cb);

	__asm__ volatile("" : "+r"(r));
	return r + 1;
}

/*
 * sym_aliases.c: a shared object whose functions have several names at
 * one address, as glibc's do (malloc, __libc_malloc, __GI___libc_malloc;
 * puts, _IO_puts; __libc_start_main, __libc_start_main_impl), and a
 * BOLT-style ".warm" fragment.  t3014 checks the name each one shows.
 */
#define HIDDEN_ALIAS(name, of)                                                 \
	extern __typeof(of) name                                               \
	    __attribute__((alias(#of), visibility("hidden")))

volatile int alias_sink;

/* work: __libc_work is global too, __GI___libc_work local. */
__attribute__((noinline)) int
__libc_work(int x)
{
	alias_sink += x;
	return alias_sink * 3;
}
extern __typeof(__libc_work) work __attribute__((alias("__libc_work")));
HIDDEN_ALIAS(__GI___libc_work, __libc_work);

/* emit: weak, and still preferred to the global _IO_emit. */
__attribute__((noinline)) int
_IO_emit(int x)
{
	alias_sink -= x;
	return alias_sink + 7;
}
extern __typeof(_IO_emit) emit __attribute__((weak, alias("_IO_emit")));
HIDDEN_ALIAS(__GI__IO_emit, _IO_emit);

/* __start_main: global; its local __start_main_impl has as many '_'. */
__attribute__((noinline)) static int
__start_main_impl(int x)
{
	alias_sink ^= x;
	return alias_sink - 1;
}
extern __typeof(__start_main_impl) __start_main
    __attribute__((alias("__start_main_impl")));

/*
 * tie_a and tie_b tie on all else; tie_b comes first in the symbol
 * table (local symbols keep the assembler's order): byte order decides.
 */
__asm__(".text\n"
	".type tie_b, @function\n"
	"tie_b:\n"
	".type tie_a, @function\n"
	"tie_a:\n"
	"	nop\n"
	"	ret\n"
	".size tie_b, .-tie_b\n"
	".size tie_a, .-tie_a\n");

/* A fragment split off split_fn, named as BOLT names it. */
__asm__(".text\n"
	".type split_fn.warm, @function\n"
	"split_fn.warm:\n"
	"	nop\n"
	"	nop\n"
	"	ret\n"
	".size split_fn.warm, .-split_fn.warm\n");

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
	sym_leaf(x + 1); /* the call inside the inlined body */
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

/* At -O2 this becomes a jump: a tail call leaves no frame of its own. */
__attribute__((noinline)) int
sym_tail(int n)
{
	return sym_work(n + 1);
}

/* An assembly label: no type, no size. */
__asm__(".text\n.globl sym_asm_label\nsym_asm_label:\n\tret\n");

/* Rust-style mangled names (legacy and v0), given through asm labels. */
__attribute__((noinline)) void
sym_rust_legacy(void) __asm__("_ZN7symrust4work17h0123456789abcdefE");
__attribute__((noinline)) void
sym_rust_v0(void) __asm__("_RNvCs1234_7symrust5spawn");

void
sym_rust_legacy(void)
{
	sym_sink = 11;
}

void
sym_rust_v0(void)
{
	sym_sink = 12;
}

#ifndef SYM_LIB
int
main(int argc, char **argv)
{
	(void)argv;
	sym_rust_legacy();
	sym_rust_v0();
	return sym_tail(argc * 1000) == -1;
}
#endif

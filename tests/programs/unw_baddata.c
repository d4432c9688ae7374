/*
 * unw_baddata.c: a leaf function without CFI whose frame pointer points
 * at data, for the test that no impossible address is written as a frame.
 *
 *   unw_baddata [SECONDS]    (default 1; "1c": 1 s of CPU time)
 *
 * spin_nocfi is written in assembly with no .cfi directives, so no FDE
 * covers it and an unwinder can only follow its frame pointer, which
 * points at a two-word "frame" on the caller's stack: a saved rbp of 0 and
 * a return address that is no code address: all ones but the top bit, the
 * top bit and 1, a stack address, a data address, an unmapped page.
 */
#include "budget.h"

void spin_nocfi(unsigned long n, unsigned long *frame);

__asm__(".text\n"
	".globl spin_nocfi\n"
	".type spin_nocfi, @function\n"
	"spin_nocfi:\n"
	"	push %rbp\n"
	"	mov %rsi, %rbp\n"
	"1:	dec %rdi\n"
	"	jnz 1b\n"
	"	pop %rbp\n"
	"	ret\n"
	".size spin_nocfi, .-spin_nocfi\n");

static unsigned long data_word;

static void __attribute__((noinline)) run(unsigned long ra)
{
	volatile unsigned long frame[2] = { 0, ra };

	spin_nocfi(2000000, (unsigned long *)frame);
}

int
main(int argc, char **argv)
{
	unsigned long local = 0;
	const unsigned long ras[5] = {
		0x7fffffffffffffffUL,
		0x8000000000000001UL,
		(unsigned long)&local,
		(unsigned long)&data_word,
		0x10000UL,
	};
	struct budget b;
	unsigned i = 0;

	budget_start(&b, argc, argv, 1);
	do
		run(ras[i++ % 5]);
	while (budget_left(&b));
	return 0;
}

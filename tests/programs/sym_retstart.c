/*
 * sym_retstart.c: a call that returns to the first byte of a function,
 * as V8's builtins do.  ret_tramp pushes the address of ret_resume as a
 * return address and jumps to ret_spin; int3 padding (two bytes at
 * least), in no symbol, sits between the two, so the caller's call site
 * (return address - 1) lands in it.  The stack while ret_spin runs is
 * main, ret_resume, ret_spin.
 * x86-64 only; build with -fno-omit-frame-pointer (t3012).
 */
#include <stdlib.h>

void ret_tramp(void);

volatile unsigned long ret_sink;

__attribute__((noinline, used)) void
ret_spin(void)
{
	unsigned long i;

	for (i = 0; i < 2000000; i++)
		ret_sink += i;
}

__asm__(".text\n"
	".globl ret_tramp\n"
	".type ret_tramp, @function\n"
	".p2align 4\n"
	"ret_tramp:\n"
	"	push %rbp\n"
	"	mov %rsp, %rbp\n"
	"	lea ret_resume(%rip), %rax\n"
	"	push %rax\n"
	"	jmp ret_spin\n"
	".size ret_tramp, .-ret_tramp\n"
	"	int3\n"
	"	int3\n"
	".p2align 4, 0xcc\n"
	".globl ret_resume\n"
	".type ret_resume, @function\n"
	"ret_resume:\n"
	"	pop %rbp\n"
	"	ret\n"
	".size ret_resume, .-ret_resume\n");

int
main(int argc, char **argv)
{
	long i, n = argc > 1 ? atol(argv[1]) : 400;

	for (i = 0; i < n; i++)
		ret_tramp();
	return 0;
}

/*
 * unw_nocfi.c: leaf functions without CFI, as a library's _init is
 * (ld.so calls it through a pointer) and as hand-written assembly often
 * is, for the test that their stacks are complete.
 *
 *   unw_nocfi [SECONDS]    (default 1; "1c": 1 s of CPU time)
 *
 * Neither spin function has .cfi directives, so no FDE covers them; each
 * keeps an 8-byte slot below its return address, as _init does, zeroed
 * here so that only the return address looks like one.  spin_indirect
 * is called through a pointer, spin_direct by a direct call.  spin_fp
 * keeps a frame pointer's frame (push %rbp; mov %rsp, %rbp), which a
 * caller built with frame pointers needs restored.  spin_tail is reached
 * by a tail jump from hop, called directly by tailed, which main calls
 * through a pointer: its return address is tailed's, and main's right
 * above it must not be taken for its caller's (one frame skipped).
 * spin_outer, without CFI either, calls spin_inner, as a library's
 * _init calls code of its own: a caller without CFI.
 */
#include "budget.h"

void spin_indirect(unsigned long n);
void spin_direct(unsigned long n);
void spin_fp(unsigned long n);
void spin_tail(unsigned long n);
void spin_outer(unsigned long n);

/* A function NAME without CFI: ENTER, a countdown of rdi, LEAVE. */
#define NOCFI(name, enter, leave)                                              \
	".globl " name "\n.type " name ", @function\n" name ":\n" enter        \
	"1:	dec %rdi\n	jnz 1b\n" leave "	ret\n"                       \
	".size " name ", .-" name "\n"
#define SLOT "	sub $8, %rsp\n	movq $0, (%rsp)\n"
#define UNSLOT "	add $8, %rsp\n"

__asm__(".text\n" NOCFI("spin_indirect", SLOT, UNSLOT)
	    NOCFI("spin_direct", SLOT, UNSLOT)
		NOCFI("spin_fp", "	push %rbp\n	mov %rsp, %rbp\n",
		      "	pop %rbp\n") NOCFI("spin_tail", SLOT, UNSLOT)
		    NOCFI("spin_inner", SLOT, UNSLOT));

/*
 * A caller without CFI: spin_inner's, passing on its count in rdi.  Its
 * three zeroed slots put its caller's return address out of the reach
 * of spin_inner's search (two return addresses there would be refused).
 */
#define SLOTS3                                                                 \
	"	sub $24, %rsp\n	movq $0, (%rsp)\n	movq $0, 8(%rsp)\n"                \
	"	movq $0, 16(%rsp)\n"
__asm__(".text\n.globl spin_outer\n.type spin_outer, @function\n"
	"spin_outer:\n" SLOTS3 "	call spin_inner\n	add $24, %rsp\n"
	"	ret\n.size spin_outer, .-spin_outer\n");

static volatile unsigned long after;

/* The work after each call keeps it a call, not a tail jump. */
static void __attribute__((noinline))
via_pointer(void (*volatile f)(unsigned long))
{
	f(300000);
	after++;
}

static void __attribute__((noinline)) direct(void)
{
	spin_direct(300000);
	after++;
}

static void __attribute__((noinline)) framed(void)
{
	spin_fp(300000);
	after++;
}

/* A tail jump to spin_tail, in its own CFI. */
__asm__(".text\n.globl hop\n.type hop, @function\nhop:\n"
	"	.cfi_startproc\n	jmp spin_tail\n	.cfi_endproc\n"
	".size hop, .-hop\n");
void hop(unsigned long n);

static void __attribute__((noinline)) tailed(void)
{
	hop(300000);
	after++;
}

int
main(int argc, char **argv)
{
	struct budget b;

	budget_start(&b, argc, argv, 1);
	do {
		via_pointer(spin_indirect);
		direct();
		framed();
		((void (*volatile)(void))tailed)();
		via_pointer(spin_outer);
	} while (budget_left(&b));
	return 0;
}

/*
 * unw_loopcfa.c: hot functions whose CFI holds DWARF expressions that
 * jump back without end, for the test that such CFI cannot hang the
 * recorder's unwinding (t2011).
 *
 *   unw_loopcfa [SECONDS]    (default 1; "1c": 1 s of CPU time)
 *
 * main -> looping -> each spin function in turn, which counts rdi down
 * under its rule, from its first instruction on:
 *   loop_spin  DW_CFA_def_cfa_expression { DW_OP_skip -3 }, to itself;
 *   bra_spin   DW_CFA_def_cfa_expression { DW_OP_lit1; DW_OP_bra -4 };
 *   rip_spin   DW_CFA_expression rip { DW_OP_skip -3 } (the CFA rsp+8);
 *   deref_spin DW_CFA_val_expression rip { DW_OP_breg7 0; DW_OP_deref;
 *              DW_OP_drop; DW_OP_skip -7 }: a read of the stack a turn.
 * An evaluator without a bound never finishes any of them.  looping
 * keeps its own, honest CFI, so that the stacks through the spin
 * functions can be told from the others.
 */
#include <stdio.h>

#include "budget.h"

#define NOINLINE __attribute__((noinline))

void loop_spin(unsigned long n);
void bra_spin(unsigned long n);
void rip_spin(unsigned long n);
void deref_spin(unsigned long n);

/* A function NAME counting rdi down under the CFI escape RULE. */
#define SPIN(name, rule)                                                       \
	".globl " name "\n.type " name ", @function\n" name ":\n"              \
	"	.cfi_startproc\n	.cfi_escape " rule "\n"                \
	"1:	dec %rdi\n	jnz 1b\n	ret\n	.cfi_endproc\n"                          \
	".size " name ", .-" name "\n"

__asm__(".text\n" SPIN("loop_spin", "0x0f, 0x03, 0x2f, 0xfd, 0xff")
	    SPIN("bra_spin", "0x0f, 0x04, 0x31, 0x28, 0xfc, 0xff")
		SPIN("rip_spin", "0x10, 0x10, 0x03, 0x2f, 0xfd, 0xff")
		    SPIN("deref_spin", "0x16, 0x10, 0x07, 0x77, 0x00, 0x06, "
				       "0x13, 0x2f, 0xf9, 0xff"));

NOINLINE void
looping(void)
{
	loop_spin(50000);
	bra_spin(50000);
	rip_spin(50000);
	deref_spin(50000);
	__asm__ volatile("" ::: "memory");
}

int
main(int argc, char **argv)
{
	struct budget b;
	unsigned long rounds = 0;

	budget_start(&b, argc, argv, 1);
	while (budget_left(&b)) {
		looping();
		rounds++;
	}
	printf("%lu\n", rounds);
	return 0;
}

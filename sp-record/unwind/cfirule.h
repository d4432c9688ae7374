/*
 * cfirule.h: the recorder's own reading of one row of DWARF CFI
 * (.eh_frame), for the frames nearly all x86_64 code has: the caller's
 * stack pointer (the CFA) is SP or BP plus an offset, the return address
 * and the caller's BP are saved at CFA offsets (or BP is unchanged).
 *
 * libunwind parses the same FDE and CIE again in every process, since
 * its cache is per address space and keyed by run-time address; a rule
 * read here depends on the file alone (ELF addresses), so one reading
 * serves every process that maps the file (cfimemo.h).  Anything else
 * (an expression, a signal frame's CIE, a register rule that libunwind
 * evaluates or refuses, an encoding it does not read as this does) is
 * refused, and the unwinder leaves that sample to libunwind: a rule
 * given here is the one libunwind would apply.
 */
#ifndef SP_RECORD_UNWIND_CFIRULE_H
#define SP_RECORD_UNWIND_CFIRULE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* A saved register's rule: the offset from the CFA, or one of these. */
#define REC_CFIRULE_SAME INT16_MAX  /* unchanged in the caller */
#define REC_CFIRULE_UNDEF INT16_MIN /* undefined: the outermost frame */

enum rec_cfirule_reg { REC_CFA_SP, REC_CFA_BP };

struct rec_cfirule {
	uint8_t cfa_reg; /* enum rec_cfirule_reg */
	int32_t cfa_off; /* CFA = cfa_reg's value + cfa_off, |off| < 8 MiB */
	int16_t ra;      /* the return address: a CFA offset or UNDEF */
	int16_t bp;      /* the caller's BP: a CFA offset, SAME or UNDEF */
	/*
	 * Whether pc - 1 and pc + 1 lie in pc's FDE too: where they do, no
	 * function starts at pc or pc + 1, so neither can be a signal
	 * return trampoline, and the unwinder need not read the code there
	 * to know it (a read of a cold code page costs more than the step).
	 */
	bool prev_in, next_in;
	bool tiny; /* the FDE covers at most 16 bytes, a trampoline's size */
};

/*
 * The rule at ELF address `pc` of the FDE at ELF address `fde`, read from
 * `len` bytes at `sec` that hold ELF addresses [vaddr, vaddr + len) (the
 * file bytes of the segment holding .eh_frame).  `pc` is the address
 * looked up: the sampled pc, or a return address minus one.  Returns 0
 * with *rule set; -ENOENT when `pc` lies outside the FDE's range;
 * -ENOTSUP when the row is not of the kind above; -EBADMSG when the FDE
 * or its CIE is cut or malformed.  Reads nothing outside [sec, sec+len).
 */
int rec_cfirule_find(const uint8_t *sec, size_t len, uint64_t vaddr,
		     uint64_t fde, uint64_t pc, struct rec_cfirule *rule);

/* The rule as one word and back (cfimemo.h keeps words). */
uint64_t rec_cfirule_pack(const struct rec_cfirule *rule);
void rec_cfirule_unpack(uint64_t word, struct rec_cfirule *rule);

#endif

/*
 * mapguard.h: keeps the recorder alive when a file it has mapped shrinks
 * under it (a package upgrade rewriting a library in place).
 *
 * Reading a page of a file mapping past the file's new end raises SIGBUS.
 * For a mapping registered here, the handler puts a read-only page of
 * zeros at the faulting page, so the read completes (with zeros), and
 * raises the mapping's flag; the owner then stops trusting the mapping.
 * A SIGBUS anywhere else keeps its default action.  The recorder reads
 * its mappings from one thread, the one the fault is delivered to.
 */
#ifndef SP_RECORD_FILES_MAPGUARD_H
#define SP_RECORD_FILES_MAPGUARD_H

#include <signal.h>
#include <stddef.h>
#include <stdint.h>

/*
 * Registers the mapping [p, p + len) with the flag to raise when one of
 * its pages is replaced; installs the handler on first use.  The flag
 * must stay valid until rec_mapguard_remove(p).  Returns 0 or -ENOMEM.
 */
int rec_mapguard_add(const void *p, size_t len, volatile sig_atomic_t *flag);
/* Forgets the mapping starting at `p`; call it before unmapping. */
void rec_mapguard_remove(const void *p);
/* How many pages have been replaced so far, to notice new ones cheaply. */
uint64_t rec_mapguard_faults(void);

#endif

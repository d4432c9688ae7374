/*
 * mapguard.c: zero pages for registered mappings that fault (mapguard.h).
 * The handler only reads the registry, which changes outside it.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "sp-record/files/mapguard.h"
#include "common/banned.h"

struct guarded {
	uintptr_t lo, hi;
	volatile sig_atomic_t *flag;
};

/*
 * The SIGBUS handler reaches nothing but globals, so the guarded ranges
 * are the recorder's one table of them (single-threaded).
 */
static struct guarded *guards;
static size_t nguards, capguards;
static uintptr_t page_size;
static volatile uint64_t faults;

static void
on_sigbus(int sig, siginfo_t *si, void *uctx)
{
	uintptr_t a = (uintptr_t)si->si_addr, page;
	size_t i;

	(void)uctx;
	page = a & ~(page_size - 1);
	for (i = 0; si->si_code == BUS_ADRERR && i < nguards; i++) {
		if (a < guards[i].lo || a >= guards[i].hi)
			continue;
		if (mmap((void *)page, page_size, PROT_READ,
			 MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1,
			 0) == MAP_FAILED)
			break;
		*guards[i].flag = 1;
		faults++;
		return;
	}
	/* Not ours: the default action once the access is retried. */
	signal(sig, SIG_DFL);
}

static int
install(void)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = on_sigbus;
	sa.sa_flags = SA_SIGINFO;
	sigemptyset(&sa.sa_mask);
	page_size = (uintptr_t)sysconf(_SC_PAGESIZE);
	return sigaction(SIGBUS, &sa, NULL) < 0 ? -errno : 0;
}

int
rec_mapguard_add(const void *p, size_t len, volatile sig_atomic_t *flag)
{
	struct guarded *grown;
	size_t cap;
	int rc;

	if (!page_size && (rc = install()) < 0)
		return rc;
	if (nguards == capguards) {
		cap = capguards ? capguards * 2 : 64;
		if (!(grown = realloc(guards, cap * sizeof(*grown))))
			return -ENOMEM;
		guards = grown;
		capguards = cap;
	}
	guards[nguards++] =
	    (struct guarded){ (uintptr_t)p, (uintptr_t)p + len, flag };
	return 0;
}

void
rec_mapguard_remove(const void *p)
{
	size_t i;

	for (i = 0; i < nguards; i++)
		if (guards[i].lo == (uintptr_t)p) {
			guards[i] = guards[--nguards];
			break;
		}
	if (nguards == 0) {
		free(guards);
		guards = NULL;
		capguards = 0;
	}
}

uint64_t
rec_mapguard_faults(void)
{
	return faults;
}

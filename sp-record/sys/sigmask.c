/*
 * sigmask.c: sigprocmask() skipped inside libunwind (sigmask.h says why).
 */
#include <errno.h>
#include <pthread.h>
#include <signal.h>

#include "sp-record/sys/sigmask.h"
#include "common/banned.h"

__thread int rec_sigmask_in_libunwind;

int
sigprocmask(int how, const sigset_t *set, sigset_t *old)
{
	int r;

	if (rec_sigmask_in_libunwind)
		return 0;
	if ((r = pthread_sigmask(how, set, old)) != 0) {
		errno = r;
		return -1;
	}
	return 0;
}

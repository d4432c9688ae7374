/*
 * stopreq.h: stop requests: SIGINT, SIGTERM and SIGHUP, and the end of
 * -d, with a bound on how long sp-record may take to honour them.
 *
 * A request sets rec_stopreq_signal (the deadline does not) and interrupts
 * whatever call sp-record is blocked in (no SA_RESTART), so the drain
 * loop sees it.  Should sp-record still not have reached its orderly stop
 * REC_STOPREQ_GRACE_S seconds later (rec_stopreq_disarm not called), it ends
 * at once; so does a second request a second or more after the first.
 * The notice then names what the recorder was doing (rec_stopreq_doing).
 * Ending at once loses the summary and the records not yet flushed; the
 * launched command gets SIGTERM, as an orderly stop gives it, and the
 * kernel detaches --ptrace targets as the tracer dies.
 */
#ifndef SP_RECORD_SYS_STOPREQ_H
#define SP_RECORD_SYS_STOPREQ_H

#include <signal.h>
#include <sys/types.h>

#define REC_STOPREQ_GRACE_S 5

/* The signal that asked to stop, 0 until one did. */
extern volatile sig_atomic_t rec_stopreq_signal;

/* Installs the handlers; SIGPIPE is ignored (EPIPE is a write error). */
void rec_stopreq_install(void);
/* Makes `seconds` from now a stop request for the grace bound. */
void rec_stopreq_deadline(double seconds);
/* The launched command, ended with sp-record if it must end at once. */
void rec_stopreq_child(pid_t pid);
/*
 * Says what the recorder is doing from now on, for the notice: a string
 * that lives as long as the program, or NULL between its steps.
 */
void rec_stopreq_doing(const char *what);
/* The orderly stop began: the grace bound no longer applies. */
void rec_stopreq_disarm(void);

#endif

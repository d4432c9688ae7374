/*
 * stopreq.c: stop requests and their grace bound (stopreq.h).  Handlers
 * call only async-signal-safe functions.
 */
#include <string.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

#include "sp-record/sys/stopreq.h"
#include "common/banned.h"

/* Globals because the signal handlers that set them reach nothing else. */
volatile sig_atomic_t rec_stopreq_signal;
static volatile sig_atomic_t grace_armed;
static struct timespec first_request;
static volatile pid_t child;
/* What the drain loop is doing, named in the notice of ending at once. */
static const char *volatile doing;

/* write(2) of a string: async-signal-safe, a short write is let go. */
static void
say(const char *s)
{
	ssize_t n = write(STDERR_FILENO, s, strlen(s));

	(void)n;
}

static void
end_now(int sig)
{
	const char *what = doing;

	say("sp-record: did not stop in time");
	if (what && *what) {
		say(" (");
		say(what);
		say(")");
	}
	say(": ending at once\n");
	/* SIGCONT: a stopped command would hold the SIGTERM pending. */
	if (child > 0) {
		kill(child, SIGTERM);
		kill(child, SIGCONT);
	}
	if (sig == SIGALRM)
		_exit(1);
	signal(sig, SIG_DFL);
	raise(sig);
}

/* Once the orderly stop began (grace_armed 2) nothing arms it again. */
static void
arm_grace(void)
{
	if (grace_armed == 2)
		return;
	grace_armed = 1;
	alarm(REC_STOPREQ_GRACE_S);
}

static void
on_signal(int sig)
{
	struct timespec now;

	clock_gettime(CLOCK_MONOTONIC, &now);
	if (!rec_stopreq_signal) {
		rec_stopreq_signal = sig;
		first_request = now;
		arm_grace();
	} else if ((now.tv_sec - first_request.tv_sec) * 1000000000L +
		       (now.tv_nsec - first_request.tv_nsec) >=
		   1000000000L) {
		end_now(sig);
	}
}

/*
 * The end of -d, or of the grace that followed a request.  The -d timer
 * can expire just as the loop ends on its own time and disarms: that
 * late alarm ends nothing.
 */
static void
on_alarm(int sig)
{
	if (grace_armed == 1)
		end_now(sig);
	else
		arm_grace();
}

void
rec_stopreq_install(void)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal; /* no SA_RESTART: blocking calls return */
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
	sa.sa_handler = on_alarm;
	sigaction(SIGALRM, &sa, NULL);
	signal(SIGPIPE, SIG_IGN);
}

void
rec_stopreq_deadline(double seconds)
{
	struct itimerval it;
	double whole = (double)(time_t)seconds;

	memset(&it, 0, sizeof(it));
	it.it_value.tv_sec = (time_t)seconds;
	it.it_value.tv_usec = (suseconds_t)((seconds - whole) * 1e6) + 1;
	setitimer(ITIMER_REAL, &it, NULL);
}

void
rec_stopreq_child(pid_t pid)
{
	child = pid;
}

void
rec_stopreq_doing(const char *what)
{
	doing = what;
}

void
rec_stopreq_disarm(void)
{
	grace_armed = 2; /* a late SIGALRM ends nothing */
	alarm(0);
}

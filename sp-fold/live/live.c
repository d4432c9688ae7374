/*
 * live.c: --live, a top view of a running pipeline (live.h).  One thread
 * reads records as they come and, once a second, redraws a table of the
 * hottest functions (or stacks) over a sliding window of the latest
 * samples; keys come from the terminal, since standard input is the
 * pipe.  Names of a (stack, process) are worked out once and kept.
 */
#include <err.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <termios.h>
#include <time.h>
#include <unistd.h>

#include "common/grow.h"
#include "common/htab.h"
#include "sp-fold/live/live.h"
#include "sp-fold/live/livetab.h"
#include "sp-fold/model/expand.h"
#include "sp-fold/read/read_records.h"
#include "common/banned.h"

struct live {
	struct fold_reader r;
	struct fold_live_tab tab;
	int tty;
	struct termios saved;
	struct fold_live_show show;
	uint64_t window_ns;
	bool on_screen; /* the terminal is ours: the first sample came */
	bool ended;     /* the input ended; the view stays until q */
};

static int
on_sample(void *ctx, const struct fold_model *m, const struct fold_sample *s)
{
	struct live *lv = ctx;

	(void)m; /* the table reads the reader's own */
	return fold_live_tab_add(&lv->tab, &lv->r, s);
}

static uint64_t
now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000 + (uint64_t)ts.tv_nsec;
}

/* The terminal's size; 24x80 when it cannot tell. */
static struct fold_live_screen
screen(void)
{
	struct fold_live_screen sc = { 24, 80 };
	struct winsize ws;

	if (ioctl(STDOUT_FILENO, TIOCGWINSZ, &ws) == 0 && ws.ws_row >= 5 &&
	    ws.ws_col >= 20) {
		sc.rows = ws.ws_row;
		sc.cols = ws.ws_col;
	}
	return sc;
}

static void
draw(struct live *lv)
{
	struct fold_live_screen sc = screen();

	fputs("\033[H\033[2J", stdout);
	fold_live_tab_print(&lv->tab, &lv->r, stdout, &sc, &lv->show);
	if (lv->ended) /* on the last row, where the table leaves room */
		printf("\033[%d;1H\033[7m%.*s\033[m", sc.rows, sc.cols - 1,
		       "the input ended (the recording stopped): q to quit");
	fflush(stdout);
}

/*
 * Keys: s self, t total, c calls (stacks) or functions, f the next
 * thread (busiest first, then all again), q quit.
 */
static bool
key(struct live *lv)
{
	char c;

	if (read(lv->tty, &c, 1) != 1)
		return true;
	if (c == 'q' || c == 'Q' || c == 3)
		return false;
	if (c == 's')
		lv->show.by_total = false;
	else if (c == 't')
		lv->show.by_total = true;
	else if (c == 'c')
		lv->show.stacks = !lv->show.stacks;
	else if (c == 'f')
		lv->show.tid =
		    fold_live_tab_next_thread(&lv->tab, lv->show.tid);
	draw(lv);
	return true;
}

/* Reads what is there; returns 1 to go on, 0 at the end, < 0 on error. */
static int
read_some(struct live *lv, struct sp_recdec *d)
{
	int rc;

	do
		rc = fold_reader_step(&lv->r, d);
	while (rc == 1 && !sp_recdec_drained(d));
	return rc;
}

/*
 * The terminal's settings and the screen, for the exit and signal
 * handlers that put them back: a handler reaches nothing but globals, so
 * these are the one exception to "no global state" in sp-fold, set by
 * take_terminal() and cleared by give_back().
 */
static struct termios *restore_at_exit;
static int restore_fd = -1;
/* Standard error while the view is up, and the real one to show it on. */
static int held_err = -1, real_err = -1;

/* Shows what was said on standard error while the view was up. */
static void
replay_stderr(void)
{
	char buf[4096];
	ssize_t n;

	if (held_err < 0 || dup2(real_err, STDERR_FILENO) < 0)
		return;
	lseek(held_err, 0, SEEK_SET);
	while ((n = read(held_err, buf, sizeof(buf))) > 0)
		if (write(STDERR_FILENO, buf, (size_t)n) != n)
			break;
	held_err = -1; /* left open: the handler may run once more */
}

/* Leaves the alternate screen and puts the terminal's modes back. */
static void
give_back(void)
{
	static const char leave[] = "\033[?25h\033[?1049l";

	if (!restore_at_exit)
		return;
	/* write(2), not stdio: this also runs in a signal handler. */
	if (write(STDOUT_FILENO, leave, sizeof(leave) - 1) < 0) {
		/* nothing to do about it: the terminal is going away */
	}
	tcsetattr(restore_fd, TCSANOW, restore_at_exit);
	restore_at_exit = NULL;
	replay_stderr();
}

static void
on_signal(int sig)
{
	give_back();
	signal(sig, SIG_DFL);
	raise(sig);
}

/* SIGWINCH only interrupts poll(), which then redraws. */
static void
on_winch(int sig)
{
	(void)sig;
}

/*
 * Keys one at a time, unechoed, on the alternate screen (the shell's
 * screen comes back as it was); every way out puts both back.  Done at
 * the first sample, so that what the pipeline printed before (a
 * recorder's error) stays on the shell's screen.
 */
static int
take_terminal(struct live *lv)
{
	struct sigaction sa = { .sa_handler = on_winch };
	struct termios raw = lv->saved;

	raw.c_lflag &= ~(tcflag_t)(ICANON | ECHO);
	raw.c_cc[VMIN] = 1;
	raw.c_cc[VTIME] = 0;
	fflush(stdout);
	restore_at_exit = &lv->saved;
	restore_fd = lv->tty;
	signal(SIGINT, on_signal);
	signal(SIGTERM, on_signal);
	signal(SIGHUP, on_signal);
	sigemptyset(&sa.sa_mask);
	sigaction(SIGWINCH, &sa, NULL); /* no SA_RESTART: poll returns */
	/* Messages said on the alternate screen would vanish with it. */
	held_err = memfd_create("sp-fold-live-stderr", MFD_CLOEXEC);
	real_err = held_err < 0 ? -1 : fcntl(STDERR_FILENO, F_DUPFD_CLOEXEC, 3);
	if (real_err < 0 || dup2(held_err, STDERR_FILENO) < 0)
		held_err = -1;
	fputs("\033[?1049h\033[?25l", stdout); /* no cursor over the table */
	lv->on_screen = true;
	return tcsetattr(lv->tty, TCSANOW, &raw);
}

static int
loop(struct live *lv, FILE *in)
{
	struct sp_recdec *d = sp_recdec_new(in);
	struct pollfd p[2] = { { fileno(in), POLLIN, 0 },
			       { lv->tty, POLLIN, 0 } };
	uint64_t next = now_ns() + 1000000000;
	int rc = 0, n;

	if (!d)
		return -ENOMEM;
	while (rc >= 0) {
		int wait =
		    (int)((next > now_ns() ? next - now_ns() : 0) / 1000000);

		p[0].fd = lv->ended ? -1 : fileno(in);
		p[1].fd = lv->on_screen ? lv->tty : -1;
		n = poll(p, 2, wait);
		if (n > 0 && p[0].revents && (rc = read_some(lv, d)) == 0) {
			lv->ended = true;
			if (!lv->on_screen) /* not one sample: nothing to see */
				break;
			draw(lv);
		}
		if (rc >= 0 && !lv->on_screen && lv->tab.len &&
		    take_terminal(lv))
			rc = -errno;
		if (n > 0 && p[1].revents && !key(lv))
			break;
		if (lv->on_screen && (now_ns() >= next || n < 0)) {
			fold_live_tab_expire(&lv->tab, lv->window_ns);
			draw(lv);
			next = now_ns() + 1000000000;
		}
	}
	sp_recdec_free(d);
	return rc < 0 ? rc : 0;
}

int
fold_live(FILE *in, const char *name, const struct fold_opts *o)
{
	struct live lv = { .window_ns = o->window_ns };
	int rc;

	if (!isatty(STDOUT_FILENO)) {
		warnx("--live draws on a terminal: standard output is none");
		return 1;
	}
	lv.tty = open("/dev/tty", O_RDONLY | O_CLOEXEC);
	if (lv.tty < 0 || tcgetattr(lv.tty, &lv.saved)) {
		warn("/dev/tty");
		return 1;
	}
	if (fold_reader_init(&lv.r, name, o) || fold_live_tab_init(&lv.tab)) {
		warnx("out of memory");
		return 1;
	}
	lv.r.on_sample = on_sample;
	lv.r.ctx = &lv;
	atexit(give_back);
	rc = loop(&lv, in);
	give_back();
	if (rc == 0 && !lv.on_screen)
		warnx("%s: the input ended before any sample", name);
	fold_live_tab_release(&lv.tab);
	fold_reader_release(&lv.r);
	close(lv.tty);
	return rc < 0 || !lv.on_screen ? 1 : 0;
}

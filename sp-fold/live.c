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
#include <termios.h>
#include <time.h>
#include <unistd.h>

#include "common/grow.h"
#include "common/htab.h"
#include "sp-fold/expand.h"
#include "sp-fold/live.h"
#include "sp-fold/livetab.h"
#include "sp-fold/read_records.h"
#include "common/banned.h"

struct live {
	struct fold_reader r;
	struct fold_live_tab tab;
	int tty;
	struct termios saved;
	struct fold_live_show show;
	uint64_t window_ns;
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

static int
rows(void)
{
	struct winsize ws;

	if (ioctl(STDOUT_FILENO, TIOCGWINSZ, &ws) || ws.ws_row < 5)
		return 24;
	return ws.ws_row;
}

static void
draw(struct live *lv)
{
	fputs("\033[H\033[2J", stdout);
	fold_live_tab_print(&lv->tab, &lv->r, stdout, rows() - 1, &lv->show);
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

static int
loop(struct live *lv, FILE *in)
{
	struct sp_recdec *d = sp_recdec_new(in);
	struct pollfd p[2] = { { fileno(in), POLLIN, 0 },
			       { lv->tty, POLLIN, 0 } };
	uint64_t next = now_ns() + 1000000000;
	bool eof = false;
	int rc = 0, n;

	if (!d)
		return -ENOMEM;
	while (rc >= 0) {
		int wait =
		    (int)((next > now_ns() ? next - now_ns() : 0) / 1000000);

		p[0].fd = eof ? -1 : fileno(in);
		n = poll(p, 2, wait);
		if (n > 0 && p[0].revents && (rc = read_some(lv, d)) == 0)
			eof = true;
		if (n > 0 && p[1].revents && !key(lv))
			break;
		if (now_ns() >= next) {
			fold_live_tab_expire(&lv->tab, lv->window_ns);
			draw(lv);
			next = now_ns() + 1000000000;
		}
	}
	sp_recdec_free(d);
	return rc < 0 ? rc : 0;
}

/*
 * The terminal's settings, for the exit and signal handlers that put them
 * back: a handler reaches nothing but globals, so these two are the one
 * exception to "no global state" in sp-fold, set once by open_tty.
 */
static struct termios *restore_at_exit;
static int restore_fd = -1;

static void
restore_tty(void)
{
	if (restore_at_exit)
		tcsetattr(restore_fd, TCSANOW, restore_at_exit);
	fputs("\033[?25h", stdout); /* the cursor back */
	fflush(stdout);
}

static void
on_signal(int sig)
{
	restore_tty();
	signal(sig, SIG_DFL);
	raise(sig);
}

/* Keys one at a time, unechoed; the terminal is put back at exit. */
static int
open_tty(struct live *lv)
{
	struct termios raw;

	lv->tty = open("/dev/tty", O_RDONLY | O_CLOEXEC);
	if (lv->tty < 0 || tcgetattr(lv->tty, &lv->saved))
		return -1;
	raw = lv->saved;
	raw.c_lflag &= ~(tcflag_t)(ICANON | ECHO);
	raw.c_cc[VMIN] = 1;
	raw.c_cc[VTIME] = 0;
	restore_at_exit = &lv->saved;
	restore_fd = lv->tty;
	atexit(restore_tty);
	signal(SIGINT, on_signal);
	signal(SIGTERM, on_signal);
	signal(SIGHUP, on_signal);
	return tcsetattr(lv->tty, TCSANOW, &raw);
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
	if (open_tty(&lv)) {
		warn("/dev/tty");
		return 1;
	}
	if (fold_reader_init(&lv.r, name, o) || fold_live_tab_init(&lv.tab)) {
		warnx("out of memory");
		return 1;
	}
	lv.r.on_sample = on_sample;
	lv.r.ctx = &lv;
	fputs("\033[?25l", stdout); /* no cursor blinking over the table */
	draw(&lv);
	rc = loop(&lv, in);
	fputs("\033[H\033[2J", stdout);
	fold_live_tab_release(&lv.tab);
	fold_reader_release(&lv.r);
	return rc < 0 ? 1 : 0;
}

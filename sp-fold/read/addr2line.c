/*
 * addr2line.c: the addr2line and nm processes of addr2line.h.  addr2line
 * reads addresses on its standard input and flushes after each answer;
 * each question is followed by a sentinel (",", address 0) whose echo
 * line marks where the answer ends, since -i answers vary in length.
 */
#include <err.h>
#include <errno.h>
#include <fcntl.h>
#include <spawn.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include "common/grow.h"
#include "common/htab.h"
#include "sp-fold/read/addr2line.h"
#include "common/banned.h"

extern char **environ;

struct proc {
	pid_t pid;            /* 0 when none runs */
	int fd;               /* our end of its socket; -1 once it ended */
	FILE *rd;             /* reads fd (a dup of it) */
	bool tried;           /* started once: never again after it ended */
	struct sp_htab *syms; /* nm: name -> address; NULL until read */
};

struct fold_a2l {
	struct sp_htab *mods; /* module path -> index in procs */
	struct proc *procs;
	size_t n, alloc;
	bool warned_a2l, warned_nm; /* could not run them, said once */
	char *line;
	size_t cap;
};

struct fold_a2l *
fold_a2l_new(void)
{
	struct fold_a2l *a = calloc(1, sizeof(*a));

	if (a && !(a->mods = sp_htab_new())) {
		free(a);
		a = NULL;
	}
	return a;
}

static void
proc_end(struct proc *p)
{
	if (p->rd)
		fclose(p->rd);
	if (p->fd >= 0)
		close(p->fd);
	if (p->pid > 0)
		while (waitpid(p->pid, NULL, 0) < 0 && errno == EINTR)
			;
	p->rd = NULL;
	p->fd = -1;
	p->pid = 0;
}

void
fold_a2l_free(struct fold_a2l *a)
{
	size_t i;

	if (!a)
		return;
	for (i = 0; i < a->n; i++) {
		proc_end(&a->procs[i]);
		sp_htab_free(a->procs[i].syms);
	}
	free(a->procs);
	sp_htab_free(a->mods);
	free(a->line);
	free(a);
}

/* The entry of a module, added when new; NULL when out of memory. */
static struct proc *
proc_of(struct fold_a2l *a, const char *mod)
{
	bool inserted = false;
	uint64_t *slot =
	    sp_htab_slot(a->mods, mod, strlen(mod), a->n, &inserted);

	if (!slot)
		return NULL;
	if (inserted) {
		if (SP_GROW(a->procs, a->alloc, a->n + 1))
			return NULL;
		a->procs[a->n++] = (struct proc){ .fd = -1 };
	}
	return &a->procs[*slot];
}

/* Runs argv[0] from PATH with `fd` as its standard input and output, or
 * as its output only when `in` is false.  Returns 0 or an errno. */
static int
run(char *const argv[], int fd, bool in, pid_t *pid)
{
	posix_spawn_file_actions_t fa;
	int rc = posix_spawn_file_actions_init(&fa);

	if (rc)
		return rc;
	if (in)
		rc = posix_spawn_file_actions_adddup2(&fa, fd, 0);
	if (!rc)
		rc = posix_spawn_file_actions_adddup2(&fa, fd, 1);
	if (!rc)
		rc = posix_spawnp(pid, argv[0], &fa, NULL, argv, environ);
	posix_spawn_file_actions_destroy(&fa);
	return rc;
}

/*
 * The module as an argument: a name that starts with '@' would be read
 * as a response file of options (binutils reads "@FILE" anywhere on the
 * command line, "-e @/etc/shadow" too), one with '-' as an option; perf
 * script text is input, so such a name gets "./" before it.  Returns
 * `mod` or b's text, or NULL when out of memory.
 */
static char *
path_arg(struct sp_buf *b, const char *mod)
{
	if (mod[0] != '@' && mod[0] != '-')
		return (char *)mod;
	sp_buf_reset(b);
	if (sp_buf_adds(b, "./") || sp_buf_adds(b, mod))
		return NULL;
	return (char *)b->data;
}

/* Starts addr2line on a module: a socket is its input and output, so a
 * write to it after it ended fails (MSG_NOSIGNAL) rather than kill us. */
static void
a2l_start(struct fold_a2l *a, struct proc *p, const char *mod)
{
	struct sp_buf arg = SP_BUF_INIT;
	char *argv[] = { "addr2line", "-a", "-i", "-f",
			 "-s",        "-C", "-e", path_arg(&arg, mod),
			 NULL };
	int sv[2], dupfd, rc;

	p->tried = true;
	if (!argv[7]) {
		warnx("out of memory");
		return;
	}
	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv)) {
		warn("socketpair");
		sp_buf_release(&arg);
		return;
	}
	rc = run(argv, sv[1], true, &p->pid);
	sp_buf_release(&arg);
	close(sv[1]);
	if (rc) {
		if (!a->warned_a2l)
			warnx("cannot run addr2line: %s", strerror(rc));
		a->warned_a2l = true;
		p->pid = 0;
		close(sv[0]);
		return;
	}
	p->fd = sv[0];
	dupfd = fcntl(p->fd, F_DUPFD_CLOEXEC, 0);
	p->rd = dupfd < 0 ? NULL : fdopen(dupfd, "r");
	if (!p->rd) {
		if (dupfd >= 0)
			close(dupfd);
		proc_end(p);
	}
}

/* Whether a line is addr2line's echo of an address: "0x" and hex. */
static bool
is_echo(const char *s, size_t n)
{
	size_t i;

	if (n < 3 || s[0] != '0' || s[1] != 'x')
		return false;
	for (i = 2; i < n; i++)
		if (!strchr("0123456789abcdefABCDEF", s[i]))
			return false;
	return true;
}

/* Reads one line without its '\n'; -1 at the end. */
static ssize_t
read_line(struct fold_a2l *a, struct proc *p)
{
	ssize_t n = getline(&a->line, &a->cap, p->rd);

	if (n > 0 && a->line[n - 1] == '\n')
		a->line[--n] = '\0';
	return n;
}

/* Sends all of s, or returns -1. */
static int
send_all(int fd, const char *s, size_t n)
{
	ssize_t w;

	while (n) {
		w = send(fd, s, n, MSG_NOSIGNAL);
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return -1;
		s += w;
		n -= (size_t)w;
	}
	return 0;
}

/*
 * One question.  The lines of the last sentinel's answer come first and
 * are skipped up to this address's echo; the answer runs to the
 * sentinel's echo.  The process is ended when it ends or fails.
 */
static int
a2l_question(struct fold_a2l *a, struct proc *p, const char *addr,
	     struct sp_buf *out)
{
	size_t at = out->len;
	ssize_t n;
	bool echo = false;

	if (send_all(p->fd, addr, strlen(addr)) || send_all(p->fd, "\n,\n", 3))
		goto ended;
	while ((n = read_line(a, p)) >= 0) {
		if (is_echo(a->line, (size_t)n)) {
			if (echo)
				return 0;
			echo = true;
		} else if (echo && (sp_buf_add(out, a->line, (size_t)n) ||
				    sp_buf_addc(out, '\n'))) {
			return -ENOMEM;
		}
	}
ended:
	out->len = at;
	proc_end(p);
	return 0;
}

int
fold_a2l_ask(struct fold_a2l *a, const char *mod, const char *addr,
	     struct sp_buf *out)
{
	struct proc *p = proc_of(a, mod);

	if (!p)
		return -ENOMEM;
	if (!p->tried)
		a2l_start(a, p, mod);
	if (!p->rd || strchr(addr, '\n'))
		return 0;
	return a2l_question(a, p, addr, out);
}

/* One line of nm: "HEX T NAME", the first of a name kept. */
static int
nm_line(struct sp_htab *syms, const char *s, size_t n)
{
	size_t h = strspn(s, "0123456789abcdef");
	uint64_t *slot;
	bool inserted = false;

	if (!h || n < h + 3 || s[h] != ' ' || s[h + 2] != ' ')
		return 0;
	slot = sp_htab_slot(syms, s + h + 3, n - h - 3, 0, &inserted);
	if (!slot)
		return -ENOMEM;
	if (inserted)
		*slot = strtoull(s, NULL, 16);
	return 0;
}

/* Reads `nm MOD` into p->syms (empty when nm fails). */
static int
nm_read(struct fold_a2l *a, struct proc *p, const char *mod)
{
	struct sp_buf arg = SP_BUF_INIT;
	char *argv[] = { "nm", path_arg(&arg, mod), NULL };
	int fds[2], rc = 0;
	pid_t pid;
	FILE *f;
	ssize_t n;

	if (!argv[1] || !(p->syms = sp_htab_new())) {
		sp_buf_release(&arg);
		return -ENOMEM;
	}
	if (pipe2(fds, O_CLOEXEC)) {
		warn("pipe");
		sp_buf_release(&arg);
		return 0;
	}
	rc = run(argv, fds[1], false, &pid);
	sp_buf_release(&arg);
	close(fds[1]);
	if (rc) {
		if (!a->warned_nm)
			warnx("cannot run nm: %s", strerror(rc));
		a->warned_nm = true;
		close(fds[0]);
		return 0;
	}
	f = fdopen(fds[0], "r");
	if (!f)
		close(fds[0]);
	rc = 0;
	while (!rc && f && (n = getline(&a->line, &a->cap, f)) > 0)
		rc = nm_line(p->syms, a->line,
			     (size_t)n - (a->line[n - 1] == '\n'));
	if (f)
		fclose(f);
	while (waitpid(pid, NULL, 0) < 0 && errno == EINTR)
		;
	return rc;
}

int
fold_a2l_nm(struct fold_a2l *a, const char *mod, const char *name, size_t n,
	    uint64_t *addr)
{
	struct proc *p = proc_of(a, mod);
	int rc;

	if (!p)
		return -ENOMEM;
	if (!p->syms && (rc = nm_read(a, p, mod)))
		return rc;
	return sp_htab_get(p->syms, name, n, addr) ? 1 : 0;
}

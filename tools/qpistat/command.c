// SPDX-License-Identifier: GPL-2.0
/*
 * qpistat -- command: the command run while the events count, whose exit
 * status becomes qpistat's; and the signals that end any run (-I, -c,
 * --textfile, a command), passed on to the command.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include "qpistat.h"

/* a stop signal came: the run ends */
volatile sig_atomic_t stop;

static volatile sig_atomic_t child;

/* the signals that end a run, and are passed on to the command */
static const int stop_signals[] = { SIGINT, SIGTERM, SIGHUP, SIGQUIT };
static sigset_t caught;		/* those of them qpistat handles */

static void on_signal(int sig, siginfo_t *si, void *uc)
{
	(void)uc;
	stop = 1;
	/*
	 * The command's run is what is measured: it ends, then the counts.
	 * A terminal's ^C, ^\ or hang-up comes from the kernel to the whole
	 * foreground process group, the command included: not twice.
	 */
	if (child > 0 && si->si_code != SI_KERNEL)
		kill(child, sig);
}

/* The stop signals end the run cleanly; one ignored at start (nohup) stays so. */
void catch_signals(void)
{
	struct sigaction sa = {
		.sa_sigaction = on_signal, .sa_flags = SA_SIGINFO | SA_RESTART,
	};
	unsigned int i;

	sigemptyset(&caught);
	for (i = 0; i < sizeof(stop_signals) / sizeof(stop_signals[0]); i++) {
		struct sigaction old;

		if (!sigaction(stop_signals[i], NULL, &old) && old.sa_handler == SIG_IGN)
			continue;
		sigaction(stop_signals[i], &sa, NULL);
		sigaddset(&caught, stop_signals[i]);
	}
}

/* the shell's convention: 128 + n for a command killed by signal n */
int run_command(char **argv)
{
	pid_t pid, parent = getpid();
	sigset_t old;
	siginfo_t info;
	int status, sig;

	sigprocmask(SIG_BLOCK, &caught, &old);
	pid = fork();
	if (pid < 0) {
		fprintf(stderr, "qpistat: fork: %s\n", strerror(errno));
		exit(1);
	}
	if (pid == 0) {
		/* the command starts with the dispositions qpistat was given */
		for (sig = 1; sig < NSIG; sig++)
			if (sigismember(&caught, sig) == 1)
				signal(sig, SIG_DFL);
		/*
		 * qpistat killed (SIGKILL, a crash) must not leave the command
		 * running alone; if it died already, do not start it.
		 */
		if (prctl(PR_SET_PDEATHSIG, SIGKILL) || getppid() != parent)
			_exit(126);
		sigprocmask(SIG_SETMASK, &old, NULL);
		execvp(argv[0], argv);
		fprintf(stderr, "qpistat: %s: %s\n", argv[0], strerror(errno));
		_exit(errno == ENOENT ? 127 : 126);
	}
	child = pid;
	sigprocmask(SIG_SETMASK, &old, NULL);
	/* not reaped yet: a signal meanwhile cannot hit a recycled pid */
	while (waitid(P_PID, pid, &info, WEXITED | WNOWAIT) < 0) {
		if (errno != EINTR) {
			fprintf(stderr, "qpistat: waitid: %s\n", strerror(errno));
			kill(pid, SIGKILL);
			waitpid(pid, NULL, 0);
			exit(1);
		}
	}
	child = 0;
	waitpid(pid, &status, 0);
	return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

// SPDX-License-Identifier: GPL-2.0
/*
 * Host tests of qpistat's command line, output and exporter start-up: the
 * real qpistat.c, built as qpistat_fake (Makefile), whose PMUs are a fake
 * sysfs written here and whose events are software events.  System-wide
 * events want root or CAP_PERFMON: without, these cases skip.  Exit
 * statuses, messages and process state are checked exactly; the time
 * bounds only stop a qpistat that hangs.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <netinet/in.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "test.h"

enum { OUT_FILE, OUT_FULL, OUT_CLOSED };

struct proc {
	pid_t pid;
	char out[64], err[64];
};

struct result {
	int status;		/* exit status, 128 + signal, -1: hung */
	char out[131072], err[4096];
};



/* mkdir -p @path */
static void mkdirs(const char *path)
{
	char p[512], *s;

	snprintf(p, sizeof(p), "%s", path);
	for (s = p + 1; (s = strchr(s, '/')); s++) {
		*s = 0;
		mkdir(p, 0755);
		*s = '/';
	}
	mkdir(p, 0755);
}

/* a /proc/cpuinfo of two sockets of @vendor family 6 model @model */
static void fake_cpuinfo(const char *vendor, int model)
{
	char text[1024] = "";
	int cpu;

	mkdirs(FAKE_ROOT "/proc");
	for (cpu = 0; cpu < 2; cpu++)
		snprintf(text + strlen(text), sizeof(text) - strlen(text),
			 "processor\t: %d\nvendor_id\t: %s\ncpu family\t: 6\n"
			 "model\t\t: %d\nphysical id\t: %d\nflags\t\t: fpu\n\n",
			 cpu, vendor, model, cpu);
	test_put(FAKE_ROOT "/proc", "cpuinfo", text);
}

/* CPU @cpu on socket @socket, as qpistat_fake's sysfs shows it */
static void fake_cpu(int cpu, int socket)
{
	char dir[256], id[16];

	snprintf(dir, sizeof(dir), FAKE_ROOT "/sys/devices/system/cpu/cpu%d/topology", cpu);
	snprintf(id, sizeof(id), "%d\n", socket);
	mkdirs(dir);
	test_put(dir, "physical_package_id", id);
}

/* one QPI port and one R3QPI link, on CPU 0 */
static void fake_sysfs(void)
{
	fake_cpu(0, 0);
	mkdirs(FAKE_SYSFS);
	mkdir(FAKE_SYSFS "/uncore_qpi_0", 0755);
	mkdir(FAKE_SYSFS "/uncore_r3qpi_0", 0755);
	mkdir(FAKE_SYSFS "/uncore_r3qpi_0/events", 0755);
	test_put(FAKE_SYSFS "/uncore_qpi_0", "type", "1\n");
	test_put(FAKE_SYSFS "/uncore_qpi_0", "cpumask", "0\n");
	test_put(FAKE_SYSFS "/uncore_qpi_0", "link_speed", "0 9.6\n");
	test_put(FAKE_SYSFS "/uncore_r3qpi_0", "type", "1\n");
	test_put(FAKE_SYSFS "/uncore_r3qpi_0", "cpumask", "0\n");
	test_put(FAKE_SYSFS "/uncore_r3qpi_0/events", "vna_credits_reject.drs",
	    "event=0x34,umask=0x8\n");
	/* qpistat_fake's /proc/cpuinfo: IVB-EP, a plan that counts Rx */
	test_put(FAKE_SYSFS, "cpuinfo", "processor\t: 0\nmodel\t\t: 62\n");
}

/* rm of a fake PMU directory: its files, then it */
static void sh_rm(const char *dir)
{
	static const char *const files[] = { "type", "cpumask", "fake_counts" };
	char path[512];
	unsigned int i;

	for (i = 0; i < sizeof(files) / sizeof(files[0]); i++) {
		snprintf(path, sizeof(path), "%s/%s", dir, files[i]);
		unlink(path);
	}
	rmdir(dir);
}

static void slurp(const char *path, char *buf, size_t len)
{
	int fd = open(path, O_RDONLY);
	ssize_t n = fd < 0 ? 0 : read(fd, buf, len - 1);

	buf[n > 0 ? n : 0] = 0;
	if (fd >= 0)
		close(fd);
}

/* wait at most 20 s for @path to appear (a child's "I am ready") */
static void wait_for_file(const char *path)
{
	int i;

	for (i = 0; i < 2000 && access(path, F_OK); i++)
		usleep(10000);
}

/* the uid (and gid) spawn() runs qpistat_fake as; 0: ours */
static uid_t spawn_uid;
/* a stop signal spawn() gives qpistat_fake ignored, as nohup does; 0: none */
static int spawn_ignore;

/* qpistat_fake ARGV... in the background, stdout per @outmode */
static void spawn(struct proc *p, int outmode, const char *const *argv)
{
	int fo, fe;

	strcpy(p->out, "/tmp/test_qpistat_out.XXXXXX");
	strcpy(p->err, "/tmp/test_qpistat_err.XXXXXX");
	fo = mkstemp(p->out);
	fe = mkstemp(p->err);
	fflush(stdout);
	p->pid = fork();
	if (p->pid == 0) {
		int null = open("/dev/null", O_RDONLY);

		dup2(null, 0);
		dup2(fe, 2);
		if (outmode == OUT_FILE)
			dup2(fo, 1);
		else if (outmode == OUT_FULL)
			dup2(open("/dev/full", O_WRONLY), 1);
		else
			close(1);
		/* nothing else open: what the command gets is qpistat's */
		closefrom(3);
		/*
		 * The stop signals as a shell's foreground job gets them,
		 * whatever this test was started with: under nohup (or as a
		 * shell's background job) SIGHUP (SIGINT, SIGQUIT) comes
		 * ignored, and qpistat rightly leaves it so.
		 */
		signal(SIGINT, SIG_DFL);
		signal(SIGHUP, SIG_DFL);
		signal(SIGQUIT, SIG_DFL);
		signal(SIGTERM, SIG_DFL);
		if (spawn_ignore)
			signal(spawn_ignore, SIG_IGN);
		if (spawn_uid && (setgroups(0, NULL) || setresgid(spawn_uid, spawn_uid, spawn_uid) ||
				  setresuid(spawn_uid, spawn_uid, spawn_uid)))
			_exit(125);
		/* its uid may change: LeakSanitizer cannot follow it */
		setenv("ASAN_OPTIONS", "detect_leaks=0", 1);
		execv(QPISTAT_FAKE, (char *const *)argv);
		_exit(126);
	}
	close(fo);
	close(fe);
}

/* wait at most @secs for @p; the result in @r, files removed */
static void finish(struct proc *p, int secs, struct result *r)
{
	int status, i;

	r->status = -1;
	for (i = 0; i < secs * 100; i++) {
		if (waitpid(p->pid, &status, WNOHANG) == p->pid) {
			r->status = WIFEXITED(status) ? WEXITSTATUS(status) :
				    128 + WTERMSIG(status);
			break;
		}
		usleep(10000);
	}
	if (r->status < 0) {
		kill(p->pid, SIGKILL);
		waitpid(p->pid, &status, 0);
	}
	slurp(p->out, r->out, sizeof(r->out));
	slurp(p->err, r->err, sizeof(r->err));
	unlink(p->out);
	unlink(p->err);
}

static void run(struct result *r, int outmode, const char *const *argv)
{
	struct proc p;

	spawn(&p, outmode, argv);
	finish(&p, 20, r);
}

/* @text as KTAP diagnostics, "# @label" first */
static void diag(const char *label, const char *text)
{
	const char *p;

	printf("# %s\n", label);
	for (p = text; *p; p += strcspn(p, "\n"), p += !!*p)
		printf("#   %.*s\n", (int)strcspn(p, "\n"), p);
}

/* exit status @status and exactly @err on stderr */
static void expect(const char *name, int outmode, const char *const *argv,
		   int status, const char *err)
{
	struct result r;
	bool good;

	run(&r, outmode, argv);
	good = r.status == status && !strcmp(r.err, err);
	if (!good) {
		printf("# exit status %d\n", r.status);
		diag("stderr:", r.err);
	}
	ok(good, "cli: %s: exit status %d, stderr '%.*s'", name, status,
	   (int)strcspn(err, "\n"), err);
}

#define ARGV(...) ((const char *const []){ QPISTAT_FAKE, __VA_ARGS__, NULL })

static void write_errors(void)
{
	static const char full[] = "qpistat: writing to stdout: No space left on device\n";
	struct result r;

	expect("--prometheus -I 10 -c 1 > /dev/full", OUT_FULL,
	       ARGV("--prometheus", "-I", "10", "-c", "1"), 1, full);
	expect("--json -I 10 -c 1 > /dev/full", OUT_FULL,
	       ARGV("--json", "-I", "10", "-c", "1"), 1, full);
	expect("-I 10 -c 1 > /dev/full", OUT_FULL, ARGV("-I", "10", "-c", "1"), 1, full);
	expect("--prometheus -- true > /dev/full", OUT_FULL,
	       ARGV("--prometheus", "--", "true"), 1, full);
	expect("-I 10 with stdout closed", OUT_CLOSED, ARGV("-I", "10"), 1,
	       "qpistat: stdout: Bad file descriptor\n");
	run(&r, OUT_FILE, ARGV("--prometheus", "-I", "10", "-c", "2"));
	ok(r.status == 0 && !strcmp(r.err, "") &&
	   strstr(r.out, "\nqpi_rx_bytes_total{socket=\"0\",port=\"0\"} 0\n"),
	   "cli: --prometheus -I 10 -c 2 to a file: exit status 0, the exposition (%d)",
	   r.status);
}

/* test_qpistat --fds FILE: our open fds (but the directory's) to FILE */
int list_fds(const char *file)
{
	DIR *d = opendir("/proc/self/fd");
	FILE *f = fopen(file, "w");
	struct dirent *e;

	if (!d || !f)
		return 1;
	while ((e = readdir(d))) {
		char path[300], link[256] = "";
		ssize_t n;

		if (e->d_name[0] == '.' || atoi(e->d_name) == dirfd(d) ||
		    atoi(e->d_name) == fileno(f))
			continue;
		snprintf(path, sizeof(path), "/proc/self/fd/%s", e->d_name);
		n = readlink(path, link, sizeof(link) - 1);
		link[n > 0 ? n : 0] = 0;
		fprintf(f, "%s %s\n", e->d_name, link);
	}
	closedir(d);
	return fclose(f) ? 1 : 0;
}

static void fd_leak(void)
{
	char file[] = "/tmp/test_qpistat_fds.XXXXXX", fds[4096], self[4096];
	struct result r;
	int fd = mkstemp(file);
	ssize_t n;
	bool good;

	close(fd);
	n = readlink("/proc/self/exe", self, sizeof(self) - 1);
	self[n > 0 ? n : 0] = 0;
	run(&r, OUT_FILE, ARGV("--", self, "--fds", file));
	slurp(file, fds, sizeof(fds));
	unlink(file);
	good = r.status == 0 && !strncmp(fds, "0 ", 2) && strstr(fds, "\n1 ") &&
	       strstr(fds, "\n2 ") && !strstr(fds, "\n3 ") && !strstr(fds, "perf_event");
	ok(good, "cli: the command of 'qpistat -- command' gets fds 0-2 only, no perf fd (%d)",
	   r.status);
	if (!good)
		diag("the command's fds:", fds);
}

/*
 * --help names every long option of qpistat's and --check's option tables
 * (read from their sources, so that a new option without its line fails
 * here), and every exit status.
 */
static void help_lists_all(const char *help)
{
	static const char *const srcs[] = { QPISTAT_DIR "/qpistat.c", QPISTAT_DIR "/check.c" };
	static const char exits[] =
		"exit status: 0 done (--check: no check failed); 1 an error (--check: a check\n"
		"  failed); 2 a usage error; 64 a link map that does not parse, or (but with\n"
		"  --check) does not fit this machine; 66 its file cannot be read; 69 no QPI\n"
		"  PMU, or one went away; 77 perf refused the events; with a command, its\n"
		"  status (126 it cannot run, 127 not found, 128+N killed by signal N)\n";
	char text[32768], opt[64], missing[512] = "";
	int n = 0, i;
	const char *t;

	for (i = 0; i < 2; i++) {
		slurp(srcs[i], text, sizeof(text));
		for (t = text; (t = strstr(t, "{ \"")); t++) {
			const char *q = strchr(t + 3, '"');

			if (!q || (strncmp(q, "\", no_argument", 14) &&
				   strncmp(q, "\", required_argument", 20)))
				continue;
			snprintf(opt, sizeof(opt), "--%.*s", (int)(q - t - 3), t + 3);
			n++;
			if (!strstr(help, opt))
				snprintf(missing + strlen(missing), sizeof(missing) - strlen(missing),
					 " %s", opt);
		}
	}
	ok(n >= 13 && !missing[0], "cli: --help names all %d long options of qpistat.c and check.c%s%s",
	   n, missing[0] ? "; missing:" : "", missing);
	ok(strlen(help) > sizeof(exits) &&
	   !strcmp(help + strlen(help) - (sizeof(exits) - 1), exits),
	   "cli: --help ends with every exit status: 0, 1, 2, 64, 66, 69, 77, a command's");
}

static void usage_errors(void)
{
	static const char *const help[] = { "-h", "--help" };
	static const char *const version[] = { "-V", "--version" };
	struct result r;
	unsigned int i;

	for (i = 0; i < 2; i++) {
		run(&r, OUT_FILE, ARGV(help[i]));
		ok(r.status == 0 && !strncmp(r.out, "usage: qpistat ", 15) && !r.err[0],
		   "cli: %s: usage on stdout, nothing on stderr, exit status 0 (%d)",
		   help[i], r.status);
	}
	help_lists_all(r.out);
	for (i = 0; i < 2; i++) {
		run(&r, OUT_FILE, ARGV(version[i]));
		ok(r.status == 0 && !strcmp(r.out, "qpistat " QPISTAT_VERSION "\n") && !r.err[0] &&
		   strcmp(QPISTAT_VERSION, "unknown"),
		   "cli: %s: 'qpistat " QPISTAT_VERSION "' (dkms.conf's PACKAGE_VERSION) on stdout, exit status 0 (%d)",
		   version[i], r.status);
	}
	expect("--version > /dev/full", OUT_FULL, ARGV("--version"), 1,
	       "qpistat: writing to stdout: No space left on device\n");
	expect("-c abc", OUT_FILE, ARGV("-c", "abc"), 2,
	       "qpistat: -c 'abc': want a count, a whole number from 1 to 2147483647\n");
	expect("-c 0", OUT_FILE, ARGV("-c", "0"), 2,
	       "qpistat: -c '0': want a count, a whole number from 1 to 2147483647\n");
	expect("-I 10abc", OUT_FILE, ARGV("-I", "10abc"), 2,
	       "qpistat: -I '10abc': want milliseconds, a whole number from 1 to 2147483647\n");
	expect("-I 99999999999", OUT_FILE, ARGV("-I", "99999999999"), 2,
	       "qpistat: -I '99999999999': want milliseconds, a whole number from 1 to 2147483647\n");
	expect("-I ''", OUT_FILE, ARGV("-I", ""), 2,
	       "qpistat: -I '': want milliseconds, a whole number from 1 to 2147483647\n");
	expect("--json --prometheus", OUT_FILE, ARGV("--json", "--prometheus"), 2,
	       "qpistat: --json and --prometheus: choose one\n");
	expect("--listen with -I", OUT_FILE, ARGV("--listen", "127.0.0.1:1", "-I", "100"), 2,
	       "qpistat: --listen: -I and -c do not apply, every scrape reads the counters\n");
	expect("--listen with -c", OUT_FILE, ARGV("-c", "3", "--listen", "127.0.0.1:1"), 2,
	       "qpistat: --listen: -I and -c do not apply, every scrape reads the counters\n");
	expect("-I with a command", OUT_FILE, ARGV("-I", "100", "--", "true"), 2,
	       "qpistat: with a command: -I and -c do not apply, it prints once when the command ends\n");
	expect("--listen with a command", OUT_FILE, ARGV("--listen", "9739", "--", "true"), 2,
	       "qpistat: --listen: no command\n");
	expect("--listen ::1:x", OUT_FILE, ARGV("--listen", "[::1]:x"), 2,
	       "qpistat: --listen '[::1]:x': want [ADDR:]PORT, [IPV6]:PORT or ADDR, PORT 1-65535\n");
}

static void command_status(void)
{
	char ready[] = "/tmp/test_qpistat_ready.XXXXXX", script[256];
	struct result r;
	struct proc p;
	int fd;

	run(&r, OUT_FILE, ARGV("--", "sh", "-c", "exit 3"));
	ok(r.status == 3 && strstr(r.out, "rx MB/s"),
	   "cli: a command that exits 3: exit status 3, the counts printed (%d)", r.status);
	run(&r, OUT_FILE, ARGV("--", "sh", "-c", "kill -USR1 $$"));
	ok(r.status == 128 + SIGUSR1 && strstr(r.out, "rx MB/s"),
	   "cli: a command killed by SIGUSR1: exit status 128 + %d, the counts printed (%d)",
	   SIGUSR1, r.status);
	run(&r, OUT_FILE, ARGV("--", "/nonexistent/command"));
	ok(r.status == 127 &&
	   !strcmp(r.err, "qpistat: /nonexistent/command: No such file or directory\n"),
	   "cli: a command that does not exist: exit status 127, one message (%d)", r.status);

	/* SIGTERM to qpistat while the command runs: the command gets it */
	fd = mkstemp(ready);
	close(fd);
	unlink(ready);
	snprintf(script, sizeof(script), "echo > %s; exec sleep 60", ready);
	spawn(&p, OUT_FILE, ARGV("--", "sh", "-c", script));
	wait_for_file(ready);
	kill(p.pid, SIGTERM);
	finish(&p, 20, &r);
	unlink(ready);
	ok(r.status == 128 + SIGTERM && strstr(r.out, "rx MB/s") && !r.err[0],
	   "cli: SIGTERM during the command is passed on: it ends, exit status 128 + %d, the counts printed (%d)",
	   SIGTERM, r.status);
}

static int free_port(int family)
{
	struct sockaddr_in6 a6 = { .sin6_family = AF_INET6, .sin6_addr = IN6ADDR_LOOPBACK_INIT };
	struct sockaddr_in a4 = { .sin_family = AF_INET,
				  .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	struct sockaddr_storage a;
	socklen_t len = sizeof(a);
	int fd = socket(family, SOCK_STREAM, 0), port = -1;

	if (fd >= 0 && !bind(fd, family == AF_INET ? (void *)&a4 : (void *)&a6,
			     family == AF_INET ? sizeof(a4) : sizeof(a6)) &&
	    !getsockname(fd, (void *)&a, &len))
		port = ntohs(family == AF_INET ? ((struct sockaddr_in *)&a)->sin_port :
			     ((struct sockaddr_in6 *)&a)->sin6_port);
	if (fd >= 0)
		close(fd);
	return port;
}

/* GET /metrics from [@addr]:@port: the HTTP status, 0 if none */
static int get(int family, const char *addr, int port)
{
	struct sockaddr_in6 a6 = { .sin6_family = AF_INET6, .sin6_port = htons(port) };
	struct sockaddr_in a4 = { .sin_family = AF_INET, .sin_port = htons(port) };
	static const char req[] = "GET /metrics HTTP/1.1\r\nHost: localhost\r\n\r\n";
	struct timeval tv = { .tv_sec = 10 };
	char buf[64] = "";
	int fd = socket(family, SOCK_STREAM, 0), status = 0;

	inet_pton(AF_INET, addr, &a4.sin_addr);
	inet_pton(AF_INET6, addr, &a6.sin6_addr);
	setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv));
	if (!connect(fd, family == AF_INET ? (void *)&a4 : (void *)&a6,
		     family == AF_INET ? sizeof(a4) : sizeof(a6)) &&
	    write(fd, req, sizeof(req) - 1) == sizeof(req) - 1 &&
	    read(fd, buf, sizeof(buf) - 1) > 0)
		sscanf(buf, "HTTP/1.1 %d", &status);
	close(fd);
	return status;
}

/* qpistat_fake ARGV (--listen), up and serving: its pid, or -1 */
static pid_t serve_on(struct proc *p, const char *const *argv, char *line, size_t len)
{
	int i;

	spawn(p, OUT_FILE, argv);
	for (i = 0; i < 2000; i++) {
		slurp(p->err, line, len);
		if (strchr(line, '\n') || waitpid(p->pid, NULL, WNOHANG) == p->pid)
			break;
		usleep(10000);
	}
	return strstr(line, "serving") ? p->pid : -1;
}

static void stop_server(struct proc *p, const char *name)
{
	struct result r;

	kill(p->pid, SIGTERM);
	finish(p, 20, &r);
	ok(r.status == 0, "cli: %s: exit status 0 on SIGTERM (%d)", name, r.status);
}

static void ipv6(void)
{
	char spec[64], want[128], line[512] = "";
	struct proc p;
	int port = free_port(AF_INET6);

	if (port < 0) {
		ok(1, "cli: --listen [::1]:PORT # SKIP no IPv6 loopback");
		ok(1, "cli: --listen ::1 # SKIP no IPv6 loopback");
		return;
	}
	snprintf(spec, sizeof(spec), "[::1]:%d", port);
	snprintf(want, sizeof(want),
		 "qpistat: serving 1 QPI ports and 1 R3QPI links at http://[::1]:%d/metrics\n", port);
	serve_on(&p, ARGV("--listen", spec), line, sizeof(line));
	ok(!strcmp(line, want) && get(AF_INET6, "::1", port) == 200,
	   "cli: --listen [::1]:PORT serves on ::1 (%.*s)", (int)strcspn(line, "\n"), line);
	stop_server(&p, "--listen [::1]:PORT");
	if (get(AF_INET6, "::1", 9739)) {
		ok(1, "cli: --listen ::1 # SKIP [::1]:9739 is taken");
		return;
	}
	serve_on(&p, ARGV("--listen", "::1"), line, sizeof(line));
	ok(!strcmp(line, "qpistat: serving 1 QPI ports and 1 R3QPI links at http://[::1]:9739/metrics\n") &&
	   get(AF_INET6, "::1", 9739) == 200,
	   "cli: --listen ::1 serves on [::1]:9739, the default port (%.*s)",
	   (int)strcspn(line, "\n"), line);
	stop_server(&p, "--listen ::1");
}

/* the Uid:, Gid:, Groups:, NoNewPrivs: and CapEff: lines of @pid */
static void creds(pid_t pid, char *buf, size_t len)
{
	char path[64], status[4096], *line;

	snprintf(path, sizeof(path), "/proc/%d/status", pid);
	slurp(path, status, sizeof(status));
	buf[0] = 0;
	for (line = strtok(status, "\n"); line; line = strtok(NULL, "\n"))
		if (!strncmp(line, "Uid:", 4) || !strncmp(line, "Gid:", 4) ||
		    !strncmp(line, "Groups:", 7) || !strncmp(line, "NoNewPrivs:", 11) ||
		    !strncmp(line, "CapEff:", 7))
			snprintf(buf + strlen(buf), len - strlen(buf), "%s\n", line);
}

static void root_drops(void)
{
	static const char nobody[] = "Uid:\t65534\t65534\t65534\t65534\n"
		"Gid:\t65534\t65534\t65534\t65534\nGroups:\t \n"
		"CapEff:\t0000000000000000\nNoNewPrivs:\t1\n";
	static const char other[] = "Uid:\t4242\t4242\t4242\t4242\n"
		"Gid:\t4343\t4343\t4343\t4343\nGroups:\t \n"
		"CapEff:\t0000000000000000\nNoNewPrivs:\t1\n";
	char spec[64], line[512] = "", got[512];
	struct proc p;
	int port;

	if (geteuid()) {
		ok(1, "cli: as root, --listen serves as 65534 # SKIP not root");
		ok(1, "cli: as root, --listen --user 4242:4343 # SKIP not root");
		return;
	}
	port = free_port(AF_INET);
	snprintf(spec, sizeof(spec), "127.0.0.1:%d", port);
	serve_on(&p, ARGV("--listen", spec), line, sizeof(line));
	creds(p.pid, got, sizeof(got));
	ok(!strcmp(got, nobody) && get(AF_INET, "127.0.0.1", port) == 200,
	   "cli: as root, --listen serves as uid and gid 65534, no groups, NoNewPrivs 1, no capability");
	if (strcmp(got, nobody))
		diag("/proc/PID/status:", got);
	stop_server(&p, "--listen as root");

	port = free_port(AF_INET);
	snprintf(spec, sizeof(spec), "127.0.0.1:%d", port);
	serve_on(&p, ARGV("--listen", spec, "--user", "4242:4343"), line, sizeof(line));
	creds(p.pid, got, sizeof(got));
	ok(!strcmp(got, other) && get(AF_INET, "127.0.0.1", port) == 200,
	   "cli: as root, --listen --user 4242:4343 serves as uid 4242, gid 4343, NoNewPrivs 1");
	if (strcmp(got, other))
		diag("/proc/PID/status:", got);
	stop_server(&p, "--listen --user");
	expect("--user with no listen", OUT_FILE, ARGV("--user", "4242", "-c", "1"), 2,
	       "qpistat: --user: only with --listen\n");
	expect("--user no-such-user-q", OUT_FILE,
	       ARGV("--listen", "9739", "--user", "no-such-user-q"), 2,
	       "qpistat: --user 'no-such-user-q': no such user\n");
}

/* a whole exposition of the fake sysfs, as --textfile writes it */
static bool whole(const char *t)
{
	static const char last[] = "\nr3qpi_vn0_credit_rejects_total{socket=\"0\",link=\"0\"} 0\n";
	size_t len = strlen(t);

	return !strncmp(t, "# HELP qpi_clockticks_total ", 28) && len > sizeof(last) &&
	       !strcmp(t + len - (sizeof(last) - 1), last) && !strstr(t, "# EOF");
}

/*
 * What a qpistat killed between writing and renaming leaves: ".BASE."
 * and six letters or digits.  At the start those of FILE that are ours
 * go; other names, a symlink and another user's file stay.
 */
static void stale_tmp(const char *dir, const char *file)
{
	static const char *const keep[] = {
		".qpi.prom.AbC12", ".qpi.prom.AbC1234", ".other.prom.AbC123",
		"qpi.prom.AbC123", ".qpi.prom.Ab-123", ".qpi.prom.Sym123",
		".qpi.prom.Oth123",
	};
	char path[128], want[256], ls[512] = "";
	unsigned int i, kept = 0;
	struct dirent *e;
	struct result r;
	struct stat st;
	DIR *d;

	test_put(dir, ".qpi.prom.AbC123", "old");
	for (i = 0; i < sizeof(keep) / sizeof(keep[0]); i++)
		test_put(dir, keep[i], "keep");
	snprintf(path, sizeof(path), "%s/.qpi.prom.Sym123", dir);
	unlink(path);
	if (symlink("qpi.prom", path))
		perror(path);
	snprintf(path, sizeof(path), "%s/.qpi.prom.Oth123", dir);
	if (chown(path, 4242, 4242))
		perror(path);
	run(&r, OUT_FILE, ARGV("--textfile", file, "-I", "10", "-c", "1"));
	d = opendir(dir);
	while (d && (e = readdir(d)))
		if (strcmp(e->d_name, ".") && strcmp(e->d_name, ".."))
			snprintf(ls + strlen(ls), sizeof(ls) - strlen(ls), "%s ", e->d_name);
	if (d)
		closedir(d);
	snprintf(want, sizeof(want),
		 "qpistat: writing 1 QPI ports and 1 R3QPI links to %s every 10 ms; removed 1 stale temporary file\n",
		 file);
	for (i = 0; i < sizeof(keep) / sizeof(keep[0]); i++) {
		snprintf(path, sizeof(path), "%s/%s", dir, keep[i]);
		kept += !lstat(path, &st);
		unlink(path);
	}
	snprintf(path, sizeof(path), "%s/.qpi.prom.AbC123", dir);
	ok(r.status == 0 && !strcmp(r.err, want) && access(path, F_OK) &&
	   kept == sizeof(keep) / sizeof(keep[0]),
	   "cli: --textfile at the start removes its stale .qpi.prom.AbC123 only, and says so (%d; %s)",
	   r.status, ls);
	if (strcmp(r.err, want))
		diag("stderr:", r.err);
}

static void textfile(void)
{
	char dir[] = "/tmp/test_qpistat_tf.XXXXXX", file[64], text[8192], ls[512] = "";
	char started[256];
	int reads = 0, cut = 0, inodes = 0, types = 0, status;
	ino_t ino = 0;
	struct result r;
	struct stat st;
	struct proc p;
	struct dirent *e;
	const char *t;
	DIR *d;

	mkdtemp(dir);
	snprintf(file, sizeof(file), "%s/qpi.prom", dir);
	run(&r, OUT_CLOSED, ARGV("--textfile", file, "-I", "10", "-c", "3"));
	slurp(file, text, sizeof(text));
	for (t = text; (t = strstr(t, "# TYPE ")); t++)
		types++;
	d = opendir(dir);
	while (d && (e = readdir(d)))
		if (e->d_name[0] != '.' || (e->d_name[1] && strcmp(e->d_name, "..")))
			snprintf(ls + strlen(ls), sizeof(ls) - strlen(ls), "%s ", e->d_name);
	if (d)
		closedir(d);
	snprintf(started, sizeof(started),
		 "qpistat: writing 1 QPI ports and 1 R3QPI links to %s every 10 ms\n", file);
	ok(r.status == 0 && !strcmp(r.err, started) && !stat(file, &st) &&
	   (st.st_mode & 07777) == 0644 &&
	   whole(text) && types == 10 && !strcmp(ls, "qpi.prom ") &&
	   strstr(text, "\nqpi_rx_bytes_total{socket=\"0\",port=\"0\"} 0\n"),
	   "cli: --textfile FILE -I 10 -c 3 (stdout closed): exit status 0 (%d), one start-up line, FILE alone in its directory (%s), mode 0644, 10 families, the text format without # EOF",
	   r.status, ls);
	if (strcmp(r.err, started))
		diag("stderr:", r.err);
	stale_tmp(dir, file);

	/* a reader never sees a part of the file */
	spawn(&p, OUT_FILE, ARGV("--textfile", file, "-I", "1", "-c", "500"));
	while (waitpid(p.pid, &status, WNOHANG) == 0) {
		int fd = open(file, O_RDONLY);
		ssize_t n;

		if (fd < 0)
			continue;
		fstat(fd, &st);
		inodes += st.st_ino != ino;
		ino = st.st_ino;
		n = read(fd, text, sizeof(text) - 1);
		close(fd);
		text[n > 0 ? n : 0] = 0;
		reads++;
		cut += !whole(text);
	}
	unlink(p.out);
	unlink(p.err);
	ok(WIFEXITED(status) && !WEXITSTATUS(status) && reads > 0 && !cut,
	   "cli: --textfile -I 1 -c 500 with a reader beside: %d reads of %d versions, %d not whole",
	   reads, inodes, cut);
	unlink(file);
	rmdir(dir);

	expect("--textfile in a missing directory", OUT_FILE,
	       ARGV("--textfile", "/nonexistent/qpi.prom", "-c", "1"), 1,
	       "qpistat: --textfile: cannot create a file in /nonexistent: No such file or directory\n");
	expect("--textfile with --json", OUT_FILE, ARGV("--textfile", "f.prom", "--json"), 2,
	       "qpistat: --textfile writes the Prometheus text format: no --json or --prometheus\n");
	expect("--textfile with --listen", OUT_FILE,
	       ARGV("--textfile", "f.prom", "--listen", "9739"), 2,
	       "qpistat: --textfile and --listen: choose one\n");
	expect("--textfile with a command", OUT_FILE, ARGV("--textfile", "f.prom", "--", "true"), 2,
	       "qpistat: --textfile: no command\n");
	expect("--textfile dir/", OUT_FILE, ARGV("--textfile", "/tmp/"), 2,
	       "qpistat: --textfile: want the path of a file\n");
	expect("--textfile qpi.txt", OUT_FILE, ARGV("--textfile", "/tmp/qpi.txt", "-c", "1"), 2,
	       "qpistat: --textfile '/tmp/qpi.txt': want a name ending in .prom, the only files node_exporter reads\n");
	expect("--textfile qpi.prom.tmp", OUT_FILE, ARGV("--textfile", "qpi.prom.tmp"), 2,
	       "qpistat: --textfile 'qpi.prom.tmp': want a name ending in .prom, the only files node_exporter reads\n");
	expect("--textfile dir/.prom", OUT_FILE, ARGV("--textfile", "/tmp/.prom"), 2,
	       "qpistat: --textfile '/tmp/.prom': want a name ending in .prom, the only files node_exporter reads\n");
}

/* 1 if the "SigIgn:" line in @file has signal @sig, 0 if not, -1: no line */
static int sig_ignored(const char *file, int sig)
{
	char buf[4096], *l;
	unsigned long long mask;

	slurp(file, buf, sizeof(buf));
	l = strstr(buf, "SigIgn:");
	if (!l || sscanf(l + 7, "%llx", &mask) != 1)
		return -1;
	return !!(mask & (1ULL << (sig - 1)));
}

/*
 * SIGINT, SIGHUP and SIGQUIT sent to qpistat alone (as kill(1) does) are
 * passed on like SIGTERM: the command ends, the counts are printed.
 */
static void forward_signals(void)
{
	static const int sigs[] = { SIGINT, SIGHUP, SIGQUIT };
	char ready[] = "/tmp/test_qpistat_ready.XXXXXX", script[256], path[64];
	struct result r;
	struct proc p;
	unsigned int k;
	int fd, qign, cign;

	fd = mkstemp(ready);
	close(fd);
	for (k = 0; k < sizeof(sigs) / sizeof(sigs[0]); k++) {
		unlink(ready);
		snprintf(script, sizeof(script), "ulimit -c 0; echo > %s; exec sleep 60", ready);
		spawn(&p, OUT_FILE, ARGV("--", "sh", "-c", script));
		wait_for_file(ready);
		kill(p.pid, sigs[k]);
		finish(&p, 20, &r);
		ok(r.status == 128 + sigs[k] && strstr(r.out, "rx MB/s") && !r.err[0],
		   "cli: %s to qpistat during the command is passed on: exit status 128 + %d, the counts printed (%d)",
		   sigabbrev_np(sigs[k]), sigs[k], r.status);
		if (r.err[0])
			diag("stderr:", r.err);
	}

	/*
	 * Started with SIGHUP ignored (nohup), qpistat leaves it ignored and
	 * so does its command: both show it in SigIgn (the command writes its
	 * own into the ready file), and TERM still ends them.
	 */
	unlink(ready);
	snprintf(script, sizeof(script),
		 "ulimit -c 0; grep SigIgn /proc/self/status > %s.t; mv %s.t %s; exec sleep 60",
		 ready, ready, ready);
	spawn_ignore = SIGHUP;
	spawn(&p, OUT_FILE, ARGV("--", "sh", "-c", script));
	spawn_ignore = 0;
	wait_for_file(ready);
	snprintf(path, sizeof(path), "/proc/%d/status", (int)p.pid);
	qign = sig_ignored(path, SIGHUP);
	cign = sig_ignored(ready, SIGHUP);
	kill(p.pid, SIGTERM);
	finish(&p, 20, &r);
	ok(qign == 1 && cign == 1 && r.status == 128 + SIGTERM && strstr(r.out, "rx MB/s") &&
	   !r.err[0],
	   "cli: started under nohup, qpistat and its command keep SIGHUP ignored (%d, %d); TERM ends them, 128 + %d (%d)",
	   qign, cign, SIGTERM, r.status);
	unlink(ready);
}

/* qpistat killed by SIGKILL: its command does not stay behind */
static void no_orphan(void)
{
	char ready[] = "/tmp/test_qpistat_ready.XXXXXX", script[256], buf[32] = "";
	struct result r;
	struct proc p;
	pid_t cmd = 0;
	int fd, i;

	fd = mkstemp(ready);
	close(fd);
	unlink(ready);
	/* "> tmp && mv": the pid is whole when the file appears */
	snprintf(script, sizeof(script), "echo $$ > %s.t && mv %s.t %s; exec sleep 60",
		 ready, ready, ready);
	spawn(&p, OUT_FILE, ARGV("--", "sh", "-c", script));
	wait_for_file(ready);
	slurp(ready, buf, sizeof(buf));
	unlink(ready);
	cmd = atoi(buf);
	kill(p.pid, SIGKILL);
	finish(&p, 20, &r);
	/* gone, or a zombie its new parent has not reaped yet */
	for (i = 0; i < 500 && cmd > 0; i++) {
		char path[64], stat[256] = "", *rp;

		snprintf(path, sizeof(path), "/proc/%d/stat", cmd);
		slurp(path, stat, sizeof(stat));
		rp = strrchr(stat, ')');
		if (!rp || rp[2] == 'Z')
			break;
		usleep(10000);
	}
	ok(cmd > 0 && i < 500,
	   "cli: qpistat -- sleep 60 killed by SIGKILL: the command ends too (pid %d, %.2f s)",
	   cmd, i / 100.0);
	if (cmd > 0 && i == 500)
		kill(cmd, SIGKILL);
}

/*
 * Refused by the kernel (run as nobody, without CAP_PERFMON): CAP_PERFMON
 * first, the sysctl last with its cost.
 */
static void permission(void)
{
	char paranoid[16] = "", want[2048];
	struct result r;
	int level;

	slurp("/proc/sys/kernel/perf_event_paranoid", paranoid, sizeof(paranoid));
	paranoid[strcspn(paranoid, "\n")] = 0;
	level = atoi(paranoid);
	if (geteuid() || !paranoid[0] || level <= 0) {
		ok(1, "cli: permission denied: CAP_PERFMON first, the sysctl last # SKIP not root, or kernel.perf_event_paranoid <= 0");
		return;
	}
	snprintf(want, sizeof(want),
		 "qpistat: permission denied opening qpi events.\n"
		 "  System-wide uncore events need CAP_PERFMON (or root).  Give it to qpistat only:\n"
		 "    sudo setcap cap_perfmon+ep %s  (anyone who can run it gets it)\n"
		 "    or a systemd unit's AmbientCapabilities= (qpistat.service gives CAP_SYS_ADMIN,\n"
		 "    which qpistat drops once its events are open)\n"
		 "    or sudo qpistat ...\n", QPISTAT_FAKE);
	if (level > 2)
		snprintf(want + strlen(want), sizeof(want) - strlen(want),
			 "  kernel.perf_event_paranoid is %s: above 2 this kernel wants root (CAP_SYS_ADMIN)\n"
			 "  and refuses CAP_PERFMON alone; at 2, upstream's default, CAP_PERFMON is enough.\n",
			 paranoid);
	snprintf(want + strlen(want), sizeof(want) - strlen(want),
		 "  Last resort: sudo sysctl kernel.perf_event_paranoid=0 (it is %s) lets every user\n"
		 "  watch every CPU's events: it weakens the whole machine, not just qpistat.\n",
		 paranoid);
	spawn_uid = 65534;
	run(&r, OUT_FILE, ARGV("-c", "1"));
	spawn_uid = 0;
	ok(r.status == 77 && !strcmp(r.err, want),
	   "cli: as uid 65534 without CAP_PERFMON: exit status 77 (%d), setcap, the unit and sudo first, the sysctl last with its cost",
	   r.status);
	if (strcmp(r.err, want)) {
		diag("stderr:", r.err);
		diag("want:", want);
	}
}

static void check_bad_map(const char *const *argv, const char *what, const char *line);

/* On a CPU without QPI PMON nobody is told to load qpi_uncore. */
static void no_qpi_cpu(void)
{
	static const char upi[] =
		"GenuineIntel family 6 model 85 (0x55) on 2 sockets: Skylake-SP or later, which has UPI, not QPI => use intel_uncore's UPI PMUs: perf stat -a -e uncore_upi_0/event=0x1/ (clockticks); qpi_uncore has nothing to drive here";
	char want[1024];
	struct result r;

	/* the fake sysfs without its QPI PMU */
	rename(FAKE_SYSFS "/uncore_qpi_0", FAKE_SYSFS "/hidden_qpi_0");
	fake_cpuinfo("GenuineIntel", 85);
	snprintf(want, sizeof(want), "qpistat: no uncore_qpi_* PMU in %s.\n"
		 "  This CPU has no QPI PMON that qpistat reads (the cpu check of qpistat --check):\n  %s\n",
		 FAKE_SYSFS, upi);
	expect("no QPI PMU on a Skylake-SP", OUT_FILE, ARGV("-c", "1"), 69, want);

	run(&r, OUT_FILE, ARGV("--check"));
	ok(r.status == 1 && !strstr(r.out, "modprobe") &&
	   strstr(r.out, "\nskip module   qpi_uncore is not loaded, and has nothing to drive here (see cpu)\n"),
	   "cli: --check on a Skylake-SP: the cpu check fails, the module check skips, no 'modprobe' (%d)",
	   r.status);
	if (!strstr(r.out, "\nskip module") || strstr(r.out, "modprobe"))
		diag("stdout:", r.out);
	/* the symmetry line says why in its own words, not HSX/BDX's */
	ok(strstr(r.out, "\nskip symmetry no QPI platform (see cpu)\n") &&
	   !strstr(r.out, "only the sending end"),
	   "cli: --check on a Skylake-SP: skip symmetry, no QPI platform (see cpu)");
	/* a link map on a machine without QPI: the checks first, the map among them */
	check_bad_map(ARGV("--check", "--link-map", "0.0=1.0"), "a Skylake-SP (no QPI port)",
		      "\nfail map      --link-map: entry 1 '0.0=1.0': no socket 0 with QPI ports (sockets: ) => give the map of this machine's wiring, its QPI ports as socket.port (qpistat.rst, \"The link map\"), or no --link-map\n");

	fake_cpuinfo("AuthenticAMD", 1);
	run(&r, OUT_FILE, ARGV("-c", "1"));
	ok(r.status == 69 && !strstr(r.err, "modprobe") &&
	   strstr(r.err, "\n  AuthenticAMD family 6 model 1 (0x1) on 2 sockets: not an Intel Xeon with QPI"),
	   "cli: no QPI PMU on an AMD CPU: exit status 69 (%d), no 'modprobe'", r.status);
	if (strstr(r.err, "modprobe"))
		diag("stderr:", r.err);

	/* a QPI Xeon: the advice about the drivers, not the CPU's */
	fake_cpuinfo("GenuineIntel", 45);
	run(&r, OUT_FILE, ARGV("-c", "1"));
	ok(r.status == 69 && !strstr(r.err, "This CPU has no QPI PMON"),
	   "cli: no QPI PMU on an SNB-EP: exit status 69 (%d), the drivers' advice", r.status);
	rename(FAKE_SYSFS "/hidden_qpi_0", FAKE_SYSFS "/uncore_qpi_0");
}

/*
 * The plan follows /proc/cpuinfo's model: on HSX each direction is counted
 * where it is sent, receive per port is unknown, and the health events
 * have their series (a free counter to take turns on).
 */
static void plans_by_cpu(void)
{
	static const char *const prom[] = {
		"\n# TYPE qpi_tx_flits_total counter\n",
		"\nqpi_tx_bytes_total{socket=\"0\",port=\"0\"} 0\n",
		"\nqpi_tx_utilization_ratio{socket=\"0\",port=\"0\"} 0.000000\n",
		"\nqpi_crc_errors_total{socket=\"0\",port=\"0\",phase=\"link_init\"} 0\n",
		"\nqpi_crc_errors_total{socket=\"0\",port=\"0\",phase=\"normal\"} 0\n",
		"\nqpi_retry_stall_cycles_total{socket=\"0\",port=\"0\",level=\"full\"} 0\n",
		"\nqpi_retry_stall_cycles_total{socket=\"0\",port=\"0\",level=\"almost_full\"} 0\n",
		"\nqpi_l0p_cycles_total{socket=\"0\",port=\"0\",direction=\"tx\"} 0\n",
		"\nqpi_l0p_cycles_total{socket=\"0\",port=\"0\",direction=\"rx\"} 0\n",
		"\nqpi_l1_cycles_total{socket=\"0\",port=\"0\"} 0\n",
		"\nqpi_l1_cycles_counted_seconds_total{socket=\"0\",port=\"0\"} ",
		"\nqpi_crc_errors_counted_seconds_total{socket=\"0\",port=\"0\",phase=\"normal\"} ",
	};
	static const char *const json[] = {
		"\"clockticks\": 0, \"tx_data_flits\": 0, \"tx_nondata_flits\": 0, \"rx_bytes\": null, \"tx_bytes\": 0, \"rx_bandwidth_bytes_per_s\": null",
		"\"tx_flits_per_s\": 0.000, \"tx_utilization\": 0.000000",
		"\"health\": {\"crc_errors\": {\"link_init\": {\"count\": 0, \"counted_s\": ",
		"\"l1_cycles\": {\"count\": 0, ",
		"\"l0p_tx_share\": null, \"l0p_rx_share\": null, \"l1_share\": null}",
		"], \"rx_bandwidth_bytes_per_s\": null, \"tx_bandwidth_bytes_per_s\": 0.000}",
		"\"platform\": \"HSX\", \"measured_at\": \"tx\"}\n",
	};
	struct result r;
	unsigned int i;
	bool good;

	test_put(FAKE_SYSFS, "cpuinfo", "processor\t: 0\nmodel\t\t: 63\n");
	run(&r, OUT_FILE, ARGV("--prometheus", "--", "true"));
	good = r.status == 0 && !strstr(r.out, "qpi_rx_");
	for (i = 0; i < sizeof(prom) / sizeof(prom[0]); i++)
		if (!strstr(r.out, prom[i])) {
			printf("# no '%s'\n", prom[i] + 1);
			good = false;
		}
	ok(good, "cli: HSX --prometheus: Tx families, health series, no qpi_rx_*");
	run(&r, OUT_FILE, ARGV("--json", "--", "true"));
	good = r.status == 0 && !strstr(r.out, "rx_data_flits");
	for (i = 0; i < sizeof(json) / sizeof(json[0]); i++)
		if (!strstr(r.out, json[i])) {
			printf("# no '%s'\n", json[i]);
			good = false;
		}
	ok(good, "cli: HSX --json: tx flits, receive null, health, the platform");
	run(&r, OUT_FILE, ARGV("--", "true"));
	ok(r.status == 0 && strstr(r.out, " tx flits/s  tx util overhead\n") &&
	   strstr(r.out, " 0 port0 health: CRC errors link_init 0 normal 0, retry stall cycles full 0 almost_full 0, L0p tx - rx -, L1 -; "),
	   "cli: HSX table: tx columns, a health row");
	test_put(FAKE_SYSFS, "cpuinfo", "processor\t: 0\nmodel\t\t: 62\n");
	run(&r, OUT_FILE, ARGV("--prometheus", "--", "true"));
	ok(r.status == 0 && strstr(r.out, "\nqpi_rx_bytes_total{socket=\"0\",port=\"0\"} 0\n") &&
	   !strstr(r.out, "qpi_crc_errors_total") && !strstr(r.out, "qpi_tx_flits_total"),
	   "cli: IVB-EP --prometheus: Rx families; no health (no counter left)");
}

/* the HSX ring of the link map cases: each port's peer */
static const char ring[] = "0.0=1.0,1.1=2.1,2.0=3.0,3.1=0.1,0.2=2.2,1.2=3.2";

/* how many lines of @out start with @prefix */
static int count_lines(const char *out, const char *prefix)
{
	const char *p;
	int n = 0;

	for (p = out; p && *p; p = strchr(p, '\n'), p += !!p)
		n += !strncmp(p, prefix, strlen(prefix));
	return n;
}

/* how many times @needle is in @out */
static int count_str(const char *out, const char *needle)
{
	const char *p;
	int n = 0;

	for (p = strstr(out, needle); p; p = strstr(p + 1, needle))
		n++;
	return n;
}

/* the line of @out holding @start also holds @needle */
static bool line_has(const char *out, const char *start, const char *needle)
{
	const char *p = strstr(out, start), *q;

	if (!p)
		return false;
	q = strstr(p, needle);
	return q && !memchr(p, '\n', q - p);
}

/* @out has every string of @want; says which it lacks */
/*
 * --check with a link map that parses but cannot apply here: every check
 * still runs and prints, the map is the map check's verdict (fail, exit
 * 1), nothing on stderr.
 */
static void check_bad_map(const char *const *argv, const char *what, const char *line)
{
	static const char *const names[] = {
		"cpu ", "pci ", "binding ", "module ", "map ", "link ", "counting ",
		"foreign ", "health ", "symmetry ",
	};
	char missing[256] = "";
	struct result r;
	unsigned int i;
	const char *t;
	int lines = 0;

	run(&r, OUT_FILE, argv);
	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		char key[32];

		/* after its verdict */
		if (!strstr(r.out, (snprintf(key, sizeof(key), "pass %s", names[i]), key)) &&
		    !strstr(r.out, (snprintf(key, sizeof(key), "warn %s", names[i]), key)) &&
		    !strstr(r.out, (snprintf(key, sizeof(key), "fail %s", names[i]), key)) &&
		    !strstr(r.out, (snprintf(key, sizeof(key), "skip %s", names[i]), key)))
			snprintf(missing + strlen(missing), sizeof(missing) - strlen(missing),
				 " %s", names[i]);
	}
	for (t = r.out; (t = strchr(t, '\n')); t++)
		lines++;
	ok(r.status == 1 && !r.err[0] && !missing[0] && lines == 11 && strstr(r.out, line) &&
	   strstr(r.out, "\nFAIL: "),
	   "cli: --check --link-map, %s: the 10 checks and the verdict, the map's among them, exit status 1 (%d)",
	   what, r.status);
	if (r.status != 1 || r.err[0] || missing[0] || !strstr(r.out, line)) {
		printf("# missing:%s\n", missing);
		diag("stdout:", r.out);
		diag("stderr:", r.err);
	}
}

static bool has_all(const char *out, const char *const *want, int n)
{
	bool good = true;
	int i;

	for (i = 0; i < n; i++)
		if (!strstr(out, want[i])) {
			printf("# no '%s'\n", want[i]);
			good = false;
		}
	return good;
}

/*
 * qpi_uncore's map of the silicon on the fake sysfs: uncore_qpi_P/dieS
 * names the far end ("qpi_Q,die_T"), uncore_qpi_P/link/dieS the link
 * state.  An empty die file stands for the driver's ENODATA (no peer).
 */
static void fake_die(int s, int p, const char *peer, const char *state)
{
	char dir[256], name[32];

	snprintf(dir, sizeof(dir), FAKE_SYSFS "/uncore_qpi_%d/link", p);
	mkdir(dir, 0755);
	snprintf(name, sizeof(name), "die%d", s);
	test_put(dir, name, state);
	dir[strlen(dir) - strlen("/link")] = 0;
	test_put(dir, name, peer);
}

/* the ring of the link map cases, as the silicon has it */
static void fake_ring(void)
{
	static const int link[6][4] = {
		{ 0, 0, 1, 0 }, { 1, 1, 2, 1 }, { 2, 0, 3, 0 },
		{ 3, 1, 0, 1 }, { 0, 2, 2, 2 }, { 1, 2, 3, 2 },
	};
	char text[32];
	int i, j;

	for (i = 0; i < 6; i++)
		for (j = 0; j < 2; j++) {
			const int *a = &link[i][2 * j], *b = &link[i][2 * !j];

			snprintf(text, sizeof(text), "qpi_%d,die_%d\n", b[1], b[0]);
			fake_die(a[0], a[1], text, "normal_operation\n");
		}
}

/* link 1.2=3.2 down: no peer at either end, their states */
static void fake_down(void)
{
	fake_die(1, 2, "", "link_abort not_normal_operation\n");
	fake_die(3, 2, "", "parameter_exchange no_peer_parameters\n");
}

static void fake_die_rm(void)
{
	char path[256];
	int s, p;

	for (p = 0; p < 3; p++) {
		for (s = 0; s < 4; s++) {
			snprintf(path, sizeof(path), FAKE_SYSFS "/uncore_qpi_%d/die%d", p, s);
			unlink(path);
			snprintf(path, sizeof(path), FAKE_SYSFS "/uncore_qpi_%d/link/die%d", p, s);
			unlink(path);
		}
		snprintf(path, sizeof(path), FAKE_SYSFS "/uncore_qpi_%d/link", p);
		rmdir(path);
	}
}

/*
 * The 4-socket HSX of link_map_hsx4(), its ring published by qpi_uncore:
 * without --link-map every port receives exactly what its peer sent, as
 * with the map, and the link families say so.  Then link 1.2=3.2 down:
 * those two ports' receive unknown, their states in every output.  Then
 * --link-map naming that link: a warning naming the entry, counted by it.
 */
static void silicon_map_hsx4(void)
{
	static const char *const json[] = {
		"\"clockticks\": 1000, \"tx_data_flits\": 1000, \"tx_nondata_flits\": 10, \"peer\": {\"socket\": 1, \"port\": 0}, \"rx_data_flits\": 2000, \"rx_nondata_flits\": 20, \"rx_bytes\": 16000, \"tx_bytes\": 8000",
		"\"clockticks\": 1000, \"tx_data_flits\": 4200, \"tx_nondata_flits\": 42, \"peer\": {\"socket\": 1, \"port\": 2}, \"rx_data_flits\": 2200, \"rx_nondata_flits\": 22, \"rx_bytes\": 17600, \"tx_bytes\": 33600",
		", \"link_state\": \"normal_operation\"}",
	};
	static const char *const prom[] = {
		"\nqpi_rx_bytes_total{socket=\"0\",port=\"0\"} 16000\n",
		"\nqpi_rx_bytes_total{socket=\"3\",port=\"2\"} 17600\n",
		"\nqpi_rx_flits_total{socket=\"1\",port=\"2\"} 4242\n",
		"# TYPE qpi_link_peer_info gauge\n",
		"\nqpi_link_peer_info{socket=\"0\",port=\"0\",peer_socket=\"1\",peer_port=\"0\"} 1\n",
		"\nqpi_link_peer_info{socket=\"3\",port=\"1\",peer_socket=\"0\",peer_port=\"1\"} 1\n",
		"\nqpi_link_normal_operation{socket=\"2\",port=\"2\"} 1\n",
		"\nqpi_link_state{socket=\"2\",port=\"2\",qpi_link_state=\"normal_operation\"} 1\n",
		"\nqpi_link_state{socket=\"2\",port=\"2\",qpi_link_state=\"link_abort\"} 0\n",
	};
	static const char *const down_prom[] = {
		"\nqpi_link_normal_operation{socket=\"1\",port=\"2\"} 0\n",
		"\nqpi_link_state{socket=\"1\",port=\"2\",qpi_link_state=\"link_abort\"} 1\n",
		"\nqpi_link_state{socket=\"1\",port=\"2\",qpi_link_state=\"normal_operation\"} 0\n",
		"\nqpi_link_state{socket=\"3\",port=\"2\",qpi_link_state=\"parameter_exchange\"} 1\n",
		"\nqpi_link_normal_operation{socket=\"0\",port=\"0\"} 1\n",
		"\nqpi_rx_bytes_total{socket=\"0\",port=\"0\"} 16000\n",
	};
	struct result r;
	bool good;

	fake_ring();
	run(&r, OUT_FILE, ARGV("--json", "--", "true"));
	good = r.status == 0 && has_all(r.out, json, sizeof(json) / sizeof(json[0])) &&
	       !strstr(r.out, "\"rx_bytes\": null") && !r.err[0];
	ok(good, "cli: HSX, 4 sockets, the silicon's ring: each port receives its peer's flits exactly, no --link-map (%d)",
	   r.status);
	if (!good)
		diag("stdout:", r.out);
	run(&r, OUT_FILE, ARGV("--prometheus", "--", "true"));
	good = r.status == 0 && has_all(r.out, prom, sizeof(prom) / sizeof(prom[0]));
	/* 12 ports, each with 12 states of which one is 1 */
	good &= count_lines(r.out, "qpi_link_peer_info{") == 12 &&
		count_lines(r.out, "qpi_link_state{") == 12 * 12 &&
		count_lines(r.out, "qpi_link_normal_operation{") == 12;
	ok(good, "cli: HSX, the silicon's ring: qpi_rx_* from the far end, qpi_link_peer_info, qpi_link_normal_operation, the qpi_link_state set");
	if (!good)
		diag("stdout:", r.out);

	fake_down();
	run(&r, OUT_FILE, ARGV("--prometheus", "--", "true"));
	good = r.status == 0 && has_all(r.out, down_prom, sizeof(down_prom) / sizeof(down_prom[0])) &&
	       !strstr(r.out, "qpi_rx_bytes_total{socket=\"1\",port=\"2\"}") &&
	       !strstr(r.out, "qpi_link_peer_info{socket=\"3\",port=\"2\"") &&
	       count_lines(r.out, "qpi_link_peer_info{") == 10;
	ok(good, "cli: HSX, link 1.2=3.2 down: no peer, no receive there, its states by name");
	if (!good)
		diag("stdout:", r.out);
	run(&r, OUT_FILE, ARGV("--json", "--", "true"));
	ok(r.status == 0 &&
	   strstr(r.out, "\"clockticks\": 1000, \"tx_data_flits\": 2200, \"tx_nondata_flits\": 22, \"rx_bytes\": null") &&
	   strstr(r.out, ", \"link_state\": \"link_abort\", \"no_peer_reason\": \"not_normal_operation\"}"),
	   "cli: HSX, link 1.2=3.2 down: --json: receive null, link_state and no_peer_reason");
	run(&r, OUT_FILE, ARGV("--", "true"));
	ok(r.status == 0 &&
	   strstr(r.out, "      1 port2 link: link_abort (not_normal_operation), not in normal operation\n") &&
	   strstr(r.out, "      3 port2 link: parameter_exchange (no_peer_parameters), not in normal operation\n") &&
	   count_str(r.out, " link: ") == 2,
	   "cli: HSX, link 1.2=3.2 down: a table line for each end, naming the state");
	if (count_str(r.out, " link: ") != 2 || !strstr(r.out, "      1 port2 link: "))
		diag("stdout:", r.out);

	run(&r, OUT_FILE, ARGV("--prometheus", "--link-map", ring, "--", "true"));
	good = r.status == 0 &&
	       !strcmp(r.err, "qpistat: --link-map disagrees with the silicon's map: entry 6 '1.2=3.2': the silicon links socket 1 port 2 to nothing (link_abort, not_normal_operation), socket 3 port 2 to nothing (parameter_exchange, no_peer_parameters); counting by --link-map (qpistat --check names each difference)\n") &&
	       strstr(r.out, "\nqpi_rx_bytes_total{socket=\"1\",port=\"2\"} 33600\n") &&
	       strstr(r.out, "\nqpi_link_peer_info{socket=\"1\",port=\"2\",peer_socket=\"3\",peer_port=\"2\"} 1\n");
	ok(good, "cli: HSX, --link-map against a down link: one warning naming the entry, counted by the map");
	if (!good)
		diag("stderr:", r.err);
	run(&r, OUT_FILE, ARGV("--prometheus", "--link-map", "0.0=1.0,1.1=2.1,2.0=3.0,3.1=0.1,0.2=2.2", "--", "true"));
	ok(r.status == 0 && !r.err[0], "cli: HSX, --link-map that agrees where the silicon has links: no warning ('%.*s')",
	   (int)strcspn(r.err, "\n"), r.err);
	fake_die_rm();
}

/*
 * 4 sockets of IVB-EP (E5-4600 v2, 3 ports each), the silicon's ring
 * with link 1.2=3.2 down.  The ports with a far end count where a flit
 * is sent, on three counters, and have health series and their own Rx
 * data flits; the two without keep the Rx row, four counters, no health.
 * fake_counts' three numbers per socket are each row's first three
 * events.  Without the die files, every port keeps the Rx row.
 */
static void silicon_map_ivb4(void)
{
	static const char *const json[] = {
		"\"clockticks\": 1000, \"tx_data_flits\": 1000, \"tx_nondata_flits\": 10, \"peer\": {\"socket\": 1, \"port\": 0}, \"rx_data_flits\": 2000, \"rx_nondata_flits\": 20, \"rx_bytes\": 16000, \"tx_bytes\": 8000",
		"\"clockticks\": 1000, \"rx_data_flits\": 2200, \"rx_nondata_flits\": 22, \"tx_data_flits\": 0, \"rx_bytes\": 17600, \"tx_bytes\": 0",
		"\"rx_own_data_flits\": {\"count\": 0, \"counted_s\": ",
		"\"health\": {\"crc_errors\": {\"link_init\": {\"count\": 0, ",
		"\"platform\": \"IVB-EP\", \"measured_at\": \"mixed\"}\n",
	};
	static const char *const prom[] = {
		"\nqpi_rx_bytes_total{socket=\"0\",port=\"0\"} 16000\n",
		"\nqpi_rx_flits_total{socket=\"0\",port=\"0\"} 2020\n",
		"\nqpi_tx_flits_total{socket=\"0\",port=\"0\"} 1010\n",
		"\nqpi_tx_bytes_total{socket=\"0\",port=\"0\"} 8000\n",
		"\nqpi_rx_bytes_total{socket=\"1\",port=\"2\"} 17600\n",
		"\nqpi_rx_flits_total{socket=\"1\",port=\"2\"} 2222\n",
		"\nqpi_tx_bytes_total{socket=\"1\",port=\"2\"} 0\n",
		"\nqpi_crc_errors_total{socket=\"0\",port=\"0\",phase=\"normal\"} 0\n",
		"\nqpi_l1_cycles_counted_seconds_total{socket=\"2\",port=\"1\"} ",
		"\nqpi_rx_own_data_flits_total{socket=\"0\",port=\"0\"} 0\n",
		"\nqpi_rx_own_data_flits_counted_seconds_total{socket=\"3\",port=\"1\"} ",
	};
	struct result r;
	bool good;

	test_put(FAKE_SYSFS, "cpuinfo", "processor\t: 0\nmodel\t\t: 62\n");
	fake_ring();
	fake_down();
	run(&r, OUT_FILE, ARGV("--json", "--", "true"));
	good = r.status == 0 && has_all(r.out, json, sizeof(json) / sizeof(json[0]));
	ok(good, "cli: IVB-EP, 4 sockets, the silicon's ring but 1.2=3.2: the sending end where the peer is known, the receiving end elsewhere (%d)",
	   r.status);
	if (!good)
		diag("stdout:", r.out);
	run(&r, OUT_FILE, ARGV("--prometheus", "--", "true"));
	good = r.status == 0 && has_all(r.out, prom, sizeof(prom) / sizeof(prom[0])) &&
	       !strstr(r.out, "qpi_crc_errors_total{socket=\"1\",port=\"2\"") &&
	       !strstr(r.out, "qpi_rx_own_data_flits_total{socket=\"3\",port=\"2\"") &&
	       !strstr(r.out, "qpi_tx_flits_total{socket=\"1\",port=\"2\"") &&
	       count_lines(r.out, "qpi_crc_errors_total{") == 2 * 10 &&
	       count_lines(r.out, "qpi_rx_own_data_flits_total{") == 10;
	ok(good, "cli: IVB-EP, the silicon's map: health series and own Rx flits on the 10 ports with a peer, exact receive both ways");
	if (!good)
		diag("stdout:", r.out);
	run(&r, OUT_FILE, ARGV("--", "true"));
	ok(r.status == 0 &&
	   strstr(r.out, "        flits/s     util overhead  at\n") &&
	   count_str(r.out, "%  tx\n") == 10 && count_str(r.out, "%  rx\n") == 2 &&
	   line_has(r.out, "      1    2 ", "  111.10%    0.99%  rx"),
	   "cli: IVB-EP, mixed ends: the table says where each port counts");
	if (count_str(r.out, "%  rx\n") != 2)
		diag("stdout:", r.out);
	fake_die_rm();
	run(&r, OUT_FILE, ARGV("--json", "--", "true"));
	ok(r.status == 0 && strstr(r.out, "\"measured_at\": \"rx\"}") && !strstr(r.out, "\"health\"") &&
	   !strstr(r.out, "\"peer\""),
	   "cli: IVB-EP without the die files (an older qpi_uncore): the Rx row everywhere, no health, as before");
	test_put(FAKE_SYSFS, "cpuinfo", "processor\t: 0\nmodel\t\t: 63\n");
}

/*
 * 4 sockets of HSX, 3 QPI ports each, whose Tx counts are fake_counts:
 * socket s port p sent 1000 (s + 1) + 100 p data flits and 10 (s + 1) + p
 * non-data flits in 1000 cycles.  With the link map every port receives
 * exactly what its peer sent; a port left out of it, and its socket (of
 * 4), stay unknown.  A map naming a socket or port sysfs does not show
 * exits 64 before counting, in --check too.
 */
static void link_map_hsx4(void)
{
	static const char *const json[] = {
		/* socket 0 port 0 received what socket 1 port 0 sent */
		"\"clockticks\": 1000, \"tx_data_flits\": 1000, \"tx_nondata_flits\": 10, \"peer\": {\"socket\": 1, \"port\": 0}, \"rx_data_flits\": 2000, \"rx_nondata_flits\": 20, \"rx_bytes\": 16000, \"tx_bytes\": 8000",
		"\"clockticks\": 1000, \"tx_data_flits\": 2000, \"tx_nondata_flits\": 20, \"peer\": {\"socket\": 0, \"port\": 0}, \"rx_data_flits\": 1000, \"rx_nondata_flits\": 10, \"rx_bytes\": 8000, \"tx_bytes\": 16000",
		"\"clockticks\": 1000, \"tx_data_flits\": 1200, \"tx_nondata_flits\": 12, \"peer\": {\"socket\": 2, \"port\": 2}, \"rx_data_flits\": 3200, \"rx_nondata_flits\": 32, \"rx_bytes\": 25600, \"tx_bytes\": 9600",
		"\"clockticks\": 1000, \"tx_data_flits\": 4100, \"tx_nondata_flits\": 41, \"peer\": {\"socket\": 0, \"port\": 1}, \"rx_data_flits\": 1100, \"rx_nondata_flits\": 11, \"rx_bytes\": 8800, \"tx_bytes\": 32800",
		"\"clockticks\": 1000, \"tx_data_flits\": 4200, \"tx_nondata_flits\": 42, \"peer\": {\"socket\": 1, \"port\": 2}, \"rx_data_flits\": 2200, \"rx_nondata_flits\": 22, \"rx_bytes\": 17600, \"tx_bytes\": 33600",
	};
	static const char *const prom[] = {
		"\nqpi_rx_bytes_total{socket=\"0\",port=\"0\"} 16000\n",
		"\nqpi_rx_bytes_total{socket=\"2\",port=\"1\"} 16800\n",
		"\nqpi_rx_bytes_total{socket=\"3\",port=\"2\"} 17600\n",
		"\nqpi_rx_flits_total{socket=\"0\",port=\"0\"} 2020\n",
		"\nqpi_rx_flits_total{socket=\"1\",port=\"2\"} 4242\n",
		"\nqpi_rx_utilization_ratio{socket=\"0\",port=\"0\"} ",
		"\nqpi_rx_protocol_overhead_ratio{socket=\"0\",port=\"0\"} ",
		"\nqpi_tx_bytes_total{socket=\"3\",port=\"1\"} 32800\n",
		"\nqpi_tx_flits_total{socket=\"3\",port=\"1\"} 4141\n",
	};
	char dir[256], text[256], listen[32];
	struct result r;
	int s, p;
	bool good;

	for (s = 1; s < 4; s++)
		fake_cpu(s, s);
	for (p = 0; p < 3; p++) {
		snprintf(dir, sizeof(dir), FAKE_SYSFS "/uncore_qpi_%d", p);
		mkdir(dir, 0755);
		test_put(dir, "type", "1\n");
		test_put(dir, "cpumask", "0-3\n");
		text[0] = 0;
		for (s = 0; s < 4; s++)
			snprintf(text + strlen(text), sizeof(text) - strlen(text),
				 "%d 1000 %d %d\n", s, 1000 * (s + 1) + 100 * p, 10 * (s + 1) + p);
		test_put(dir, "fake_counts", text);
	}
	test_put(FAKE_SYSFS, "cpuinfo", "processor\t: 0\nmodel\t\t: 63\n");

	run(&r, OUT_FILE, ARGV("--json", "--link-map", ring, "--", "true"));
	good = r.status == 0 && has_all(r.out, json, sizeof(json) / sizeof(json[0]));
	/* every port mapped: each socket's receive is known, 4 sockets or not */
	good &= !strstr(r.out, "\"rx_bytes\": null") &&
		!strstr(r.out, "\"rx_bandwidth_bytes_per_s\": null");
	ok(good, "cli: HSX, 4 sockets, --link-map: each port receives its peer's flits exactly (%d)",
	   r.status);
	if (!good)
		diag("stdout:", r.out);
	run(&r, OUT_FILE, ARGV("--prometheus", "--link-map", ring, "--", "true"));
	good = r.status == 0 && has_all(r.out, prom, sizeof(prom) / sizeof(prom[0]));
	ok(good, "cli: HSX, 4 sockets, --link-map: qpi_rx_* series from the far end's Tx");

	/* without 1.2=3.2: those two ports, and sockets 1 and 3, unknown */
	run(&r, OUT_FILE, ARGV("--json", "--link-map", "0.0=1.0,1.1=2.1,2.0=3.0,3.1=0.1,0.2=2.2",
			       "--", "true"));
	good = r.status == 0 &&
	       strstr(r.out, "\"clockticks\": 1000, \"tx_data_flits\": 2200, \"tx_nondata_flits\": 22, \"rx_bytes\": null") &&
	       strstr(r.out, "\"clockticks\": 1000, \"tx_data_flits\": 4200, \"tx_nondata_flits\": 42, \"rx_bytes\": null");
	for (s = 0; s < 4; s++) {
		char sock[64], *at = strstr(r.out, (snprintf(sock, sizeof(sock), "{\"socket\": %d, \"ports\"", s), sock));
		char *end = at ? strstr(at, "], \"rx_bandwidth_bytes_per_s\": ") : NULL;

		good &= end && !strncmp(end + 31, "null", 4) == (s == 1 || s == 3);
	}
	ok(good, "cli: HSX, 4 sockets, a port left out of the map: it and its socket receive unknown");
	if (!good)
		diag("stdout:", r.out);
	run(&r, OUT_FILE, ARGV("--prometheus", "--link-map", "0.0=1.0", "--", "true"));
	ok(r.status == 0 && strstr(r.out, "\nqpi_rx_bytes_total{socket=\"1\",port=\"0\"} 8000\n") &&
	   !strstr(r.out, "qpi_rx_bytes_total{socket=\"0\",port=\"1\"}"),
	   "cli: HSX --prometheus: qpi_rx_* only for the ports of the map");
	run(&r, OUT_FILE, ARGV("--json", "--", "true"));
	ok(r.status == 0 && !strstr(r.out, "rx_data_flits") && !strstr(r.out, "\"peer\"") &&
	   strstr(r.out, "], \"rx_bandwidth_bytes_per_s\": null, \"tx_bandwidth_bytes_per_s\": "),
	   "cli: HSX, 4 sockets, no map: receive unknown, as before");

	expect("--link-map with a socket sysfs does not show", OUT_FILE,
	       ARGV("--link-map", "0.0=1.0,0.1=5.0", "-c", "1"), 64,
	       "qpistat: --link-map: entry 2 '0.1=5.0': no socket 5 with QPI ports (sockets: 0, 1, 2, 3)\n");
	snprintf(listen, sizeof(listen), "127.0.0.1:%d", free_port(AF_INET));
	expect("--listen --link-map with a port sysfs does not show", OUT_FILE,
	       ARGV("--link-map", "0.0=1.0,2.3=3.2", "--listen", listen), 64,
	       "qpistat: --link-map: entry 2 '2.3=3.2': socket 2 has no QPI port 3 (its ports: 0, 1, 2)\n");
	expect("--link-map self-link", OUT_FILE, ARGV("--link-map", "1.1=1.1", "-c", "1"), 64,
	       "qpistat: --link-map: entry 1 '1.1=1.1': both ends on socket 1; a QPI link joins two sockets\n");
	expect("--link-map port twice", OUT_FILE, ARGV("--link-map", "0.0=1.0,2.0=1.0", "-c", "1"), 64,
	       "qpistat: --link-map: entry 2 '2.0=1.0': port 1.0 is in entry 1 '0.0=1.0' already; a port is on one link\n");
	expect("--link-map @missing", OUT_FILE, ARGV("--link-map", "@/nonexistent/map", "-c", "1"), 66,
	       "qpistat: --link-map @/nonexistent/map: cannot read it: No such file or directory\n");
	check_bad_map(ARGV("--check", "--link-map", "0.0=1.0,3.2=7.0"),
		      "4-socket HSX, a socket sysfs does not show",
		      "\nfail map      --link-map: entry 2 '3.2=7.0': no socket 7 with QPI ports (sockets: 0, 1, 2, 3) => give the map of this machine's wiring, its QPI ports as socket.port (qpistat.rst, \"The link map\"), or no --link-map\n");
	run(&r, OUT_FILE, ARGV("--check", "--link-map", "0.0=1.0,3.2=7.0"));
	ok(strstr(r.out, "\nskip symmetry the --link-map given does not fit this machine (see map)\n") != NULL,
	   "cli: --check --link-map that does not fit: symmetry does not use it (see map)");
	expect("--check --link-map syntax", OUT_FILE, ARGV("--check", "--link-map", "0:0=1:0"), 64,
	       "qpistat: --link-map: entry 1 '0:0=1:0': want SOCKET.PORT=SOCKET.PORT, whole numbers\n");

	silicon_map_hsx4();
	silicon_map_ivb4();

	/* back to one port on CPU 0 (socket 0) */
	test_put(FAKE_SYSFS "/uncore_qpi_0", "cpumask", "0\n");
	unlink(FAKE_SYSFS "/uncore_qpi_0/fake_counts");
	for (p = 1; p < 3; p++) {
		snprintf(dir, sizeof(dir), FAKE_SYSFS "/uncore_qpi_%d", p);
		sh_rm(dir);
	}
	test_put(FAKE_SYSFS, "cpuinfo", "processor\t: 0\nmodel\t\t: 62\n");
}

/*
 * PMUs that go away (unregistered, or registered again under the name by
 * another driver) end the exporter and the textfile writer with 69, for
 * systemd to restart them, instead of 500s or frozen counters for ever.
 */
static void pmus_vanish(void)
{
	static const char *const how[] = { "removed", "another type" };
	char line[256] = "", spec[32];
	struct result r;
	struct proc p;
	int i;

	for (i = 0; i < 2; i++) {
		int port = free_port(AF_INET), before, after;

		snprintf(spec, sizeof(spec), "127.0.0.1:%d", port);
		if (serve_on(&p, ARGV("--listen", spec), line, sizeof(line)) < 0) {
			ok(0, "cli: --listen: uncore_qpi_0 %s: not serving (%s)", how[i], line);
			continue;
		}
		before = get(AF_INET, "127.0.0.1", port);
		if (i == 0)
			rename(FAKE_SYSFS "/uncore_qpi_0", FAKE_SYSFS "/uncore_qpi_0.gone");
		else
			test_put(FAKE_SYSFS "/uncore_qpi_0", "type", "7\n");
		after = get(AF_INET, "127.0.0.1", port);
		finish(&p, 20, &r);
		if (i == 0)
			rename(FAKE_SYSFS "/uncore_qpi_0.gone", FAKE_SYSFS "/uncore_qpi_0");
		else
			test_put(FAKE_SYSFS "/uncore_qpi_0", "type", "1\n");
		ok(before == 200 && after == 0 && r.status == 69 &&
		   strstr(r.err, "qpistat: uncore_qpi_0 is gone (unregistered or replaced); exiting\n"),
		   "cli: --listen: uncore_qpi_0 %s: 200, then no answer and exit 69 (%d, %d, %d)",
		   how[i], before, after, r.status);
		if (r.status != 69)
			diag("stderr", r.err);
	}
	/* the textfile writer too: not frozen counts in qpi.prom for ever */
	{
		char dir[] = "/tmp/test_qpistat_gone.XXXXXX", file[64];

		mkdtemp(dir);
		snprintf(file, sizeof(file), "%s/qpi.prom", dir);
		spawn(&p, OUT_CLOSED, ARGV("--textfile", file, "-I", "20"));
		wait_for_file(file);
		rename(FAKE_SYSFS "/uncore_qpi_0", FAKE_SYSFS "/uncore_qpi_0.gone");
		finish(&p, 20, &r);
		rename(FAKE_SYSFS "/uncore_qpi_0.gone", FAKE_SYSFS "/uncore_qpi_0");
		unlink(file);
		rmdir(dir);
		ok(r.status == 69 &&
		   strstr(r.err, "qpistat: uncore_qpi_0 is gone (unregistered or replaced); exiting\n"),
		   "cli: --textfile: uncore_qpi_0 removed: exit 69 at the next rewrite (%d)", r.status);
		if (r.status != 69)
			diag("stderr", r.err);
	}
}

void test_cli(void)
{
	struct result r;

	fake_sysfs();
	run(&r, OUT_FILE, ARGV("-I", "10", "-c", "1"));
	if (r.status) {
		printf("# qpistat_fake -I 10 -c 1: exit status %d\n", r.status);
		diag("stderr:", r.err);
		ok(1, "cli: all # SKIP system-wide software events refused (not root?)");
		return;
	}
	write_errors();
	fd_leak();
	usage_errors();
	command_status();
	ipv6();
	root_drops();
	textfile();
	plans_by_cpu();
	forward_signals();
	no_orphan();
	permission();
	no_qpi_cpu();
	link_map_hsx4();
	pmus_vanish();
}

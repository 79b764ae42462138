// SPDX-License-Identifier: GPL-2.0
/*
 * --check's counting and foreign checks: clockticks counted on every
 * QPI port at the rate its link speed implies, and the counter controls
 * read back holding what the driver wrote (no other tool reprogramming
 * them), with qpi_uncore's own count of such writes.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <inttypes.h>
#include <linux/perf_event.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "check_int.h"

/* Control register read-back: the bits that say which event counts. */
#define CTL_EN		(1u << 22)
#define CTL_CMP_MASK	(~((1u << 20) | (1u << 17)))	/* not ov_en, rst */
#define QPI_CLK_CTL	(CTL_EN | 0x14)
#define R3_CLK_CTL	(CTL_EN | 0x01)
#define CTL0		0xd8

int check_rate(double hz, double gts, bool down)
{
	double want = check_link_hz(gts);

	if (hz <= 0)
		return down ? CK_WARN : CK_FAIL;
	if (gts <= 0)
		return CK_WARN;
	if (hz > 1.1 * want)
		return CK_FAIL;
	/* link power states (L0s, L1) may stop the clock part of the time */
	if (hz < 0.9 * want)
		return CK_WARN;
	return CK_PASS;
}

int check_ctls(const uint32_t *ctl, int n, uint32_t want, uint32_t *seen)
{
	int i, zero = 0;
	bool paused = false;

	*seen = 0;
	for (i = 0; i < n; i++) {
		if ((ctl[i] & CTL_CMP_MASK) == want)
			return CTLS_OK;
		paused |= (ctl[i] & CTL_CMP_MASK) == (want & ~CTL_EN);
		zero += !ctl[i];
		if (!*seen && (ctl[i] & CTL_EN))
			*seen = ctl[i];
	}
	if (paused)
		return CTLS_PAUSED;
	if (zero == n)
		return CTLS_ZERO;
	if (!*seen)
		*seen = ctl[0];
	return CTLS_FOREIGN;
}

struct ev {
	int fd, kind, idx, socket;
	uint64_t v0, t0, v1, t1;	/* count, time running */
	bool shared;			/* ran less than it was enabled */
	/*
	 * The box's foreign_writes event (qpi_uncore's own read-back), -1
	 * when the module has none: its count before and after the window.
	 */
	int fw_fd;
	uint64_t fw0, fw1;
};

static struct ev evs[MAX_EVS];
static int nr_evs;

/* Open clockticks on every socket of uncore_<name>_<idx>: -errno or count. */
static int open_pmu(int kind, int idx)
{
	const char *name = kind == K_QPI ? "qpi" : "r3qpi";
	char buf[512];
	int type, n = 0, cpus[MAX_EVS], nr_cpus, k;
	bool has_fw;

	if (read_file(buf, sizeof(buf), "/sys/bus/event_source/devices/uncore_%s_%d/type",
		      name, idx))
		return 0;
	type = atoi(buf);
	has_fw = exists("/sys/bus/event_source/devices/uncore_%s_%d/events/foreign_writes",
			name, idx);
	if (read_file(buf, sizeof(buf), "/sys/bus/event_source/devices/uncore_%s_%d/cpumask",
		      name, idx))
		return 0;
	nr_cpus = check_cpulist(buf, cpus, MAX_EVS);
	for (k = 0; k < nr_cpus && nr_evs < MAX_EVS; k++) {
		int cpu = cpus[k];
		struct perf_event_attr attr = {
			.size = sizeof(attr), .type = type,
			.config = kind == K_QPI ? 0x14 : 0x01,
			.read_format = PERF_FORMAT_TOTAL_TIME_ENABLED |
				       PERF_FORMAT_TOTAL_TIME_RUNNING,
		};
		struct ev *e = &evs[nr_evs];

		e->fd = syscall(SYS_perf_event_open, &attr, -1, cpu, -1, 0);
		if (e->fd < 0)
			return -errno;
		/* no counter taken; an older module has no such event */
		attr.config = FOREIGN_WRITES_CONFIG;
		attr.read_format = 0;
		e->fw_fd = has_fw ? syscall(SYS_perf_event_open, &attr, -1,
					    cpu, -1, 0) : -1;
		e->kind = kind;
		e->idx = idx;
		e->socket = cpu_socket(cpu);
		nr_evs++;
		n++;
	}
	return n;
}

/*
 * The count and the time it counted: running, not enabled, so that an
 * event multiplexed with other users' events is not taken for a slow one.
 */
static int read_ev(struct ev *e, uint64_t *v, uint64_t *t)
{
	uint64_t buf[3];

	if (read(e->fd, buf, sizeof(buf)) != sizeof(buf))
		return -1;
	*v = buf[0];
	*t = buf[2];
	e->shared |= buf[2] < buf[1];
	return 0;
}

static void read_fw(struct ev *e, uint64_t *v)
{
	if (e->fw_fd < 0 || read(e->fw_fd, v, sizeof(*v)) != sizeof(*v))
		*v = 0;
}

static void close_evs(void)
{
	int i;

	for (i = 0; i < nr_evs; i++) {
		close(evs[i].fd);
		if (evs[i].fw_fd >= 0)
			close(evs[i].fw_fd);
	}
	nr_evs = 0;
}

static int cmp_ev(const void *a, const void *b)
{
	const struct ev *x = a, *y = b;

	if (x->kind != y->kind)
		return x->kind - y->kind;
	if (x->socket != y->socket)
		return x->socket - y->socket;
	return x->idx - y->idx;
}

void check_counting(struct result *r)
{
	int window_ms = ck.window_ms;
	bool low = false, unknown = false, down_seen = false, busy = false;
	struct timespec ts = { window_ms / 1000, window_ms % 1000 * 1000000L };
	int i, k, err = 0, n = 0, worst = CK_PASS;

	/* this run's events only */
	nr_evs = 0;
	if (!ck.nr_pmus) {
		r->status = CK_SKIP;
		app(r->saw, "no uncore_qpi_* PMU (see module)");
		return;
	}
	for (k = K_QPI; k <= K_R3; k += K_R3 - K_QPI)
		for (i = 0; i < 4 && !err; i++) {
			int got = open_pmu(k, i);

			if (got < 0)
				err = -got;
			else if (k == K_QPI)
				n += got;
		}
	if (err) {
		close_evs();
		r->status = err == EACCES || err == EPERM ? CK_SKIP : CK_FAIL;
		app(r->saw, "cannot open clockticks: %s", strerror(err));
		app(r->todo, err == EACCES || err == EPERM ?
		    "run as root (or with CAP_PERFMON)" :
		    "see dmesg | grep qpi_uncore");
		return;
	}
	if (!n) {
		r->status = CK_SKIP;
		app(r->saw, "no uncore_qpi_* PMU to count on");
		return;
	}
	qsort(evs, nr_evs, sizeof(evs[0]), cmp_ev);
	for (i = 0; i < nr_evs; i++) {
		read_ev(&evs[i], &evs[i].v0, &evs[i].t0);
		read_fw(&evs[i], &evs[i].fw0);
	}
	nanosleep(&ts, NULL);
	for (i = 0; i < nr_evs; i++) {
		struct ev *e = &evs[i];
		double hz, gts = 0;
		bool down = false;
		int v;

		read_fw(e, &e->fw1);
		if (read_ev(e, &e->v1, &e->t1) || e->kind != K_QPI)
			continue;
		if (e->t1 == e->t0) {
			worst = worst > CK_WARN ? worst : CK_WARN;
			busy = true;
			app(r->saw, "%ssocket %d port %d: never scheduled",
			    r->saw[0] ? "; " : "", e->socket, e->idx);
			continue;
		}
		hz = e->t1 > e->t0 ? (double)(e->v1 - e->v0) * 1e9 / (e->t1 - e->t0) : 0;
		if (e->socket >= 0 && e->socket < MAX_SOCKETS && e->idx < MAX_PORTS) {
			gts = ck.gts[e->socket][e->idx];
			down = gts < 0;
		}
		v = check_rate(hz, down ? 0 : gts, down);
		worst = v > worst ? v : worst;
		app(r->saw, "%ssocket %d port %d: %" PRIu64 " in %.0f ms, %.1f MHz",
		    r->saw[0] ? "; " : "", e->socket, e->idx, e->v1 - e->v0,
		    (e->t1 - e->t0) / 1e6, hz / 1e6);
		if (gts > 0)
			app(r->saw, " (%.1f GT/s implies %.1f MHz)", gts,
			    check_link_hz(gts) / 1e6);
		if (v == CK_FAIL && hz <= 0)
			app(r->saw, " FAIL: zero");
		else if (v == CK_FAIL)
			app(r->saw, " FAIL: implausible");
		else if (v == CK_WARN)
			app(r->saw, down ? " (link down)" : gts > 0 ? " WARN: low" : " (speed unknown)");
		down_seen |= v == CK_WARN && down;
		low |= v == CK_WARN && !down && gts > 0;
		unknown |= v == CK_WARN && !down && gts <= 0;
	}
	r->status = worst;
	if (worst == CK_FAIL)
		app(r->todo, "clockticks must run at the link speed / 8; zero or another rate means the counters ignore writes (firmware lock, a hypervisor), another tool reprograms or freezes them (see foreign), or the functions are emulated");
	if (low)
		app(r->todo, "%sa low rate: link power states (L0s/L1) may stop the clock part of the time; check the BIOS power settings if it stays low under load",
		    r->todo[0] ? "; " : "");
	if (down_seen)
		app(r->todo, "%sa port whose link is down counts nothing (see link)",
		    r->todo[0] ? "; " : "");
	if (unknown)
		app(r->todo, "%sthe link speed is unknown (see link): the rate cannot be judged",
		    r->todo[0] ? "; " : "");
	if (busy)
		app(r->todo, "%severy counter of the box is taken by other perf events: run the check again when they are closed",
		    r->todo[0] ? "; " : "");
}

/*
 * Was our event on @fn's box counting when the registers were read?  Not
 * when other perf events took every counter: then the box holds theirs.
 */
static struct ev *ev_of(const struct fn *fn)
{
	int i;

	for (i = 0; i < nr_evs; i++)
		if (evs[i].kind == fn->kind && evs[i].idx == fn->idx &&
		    evs[i].socket == fn->socket)
			return &evs[i];
	return NULL;
}

static bool scheduled(const struct fn *fn)
{
	const struct ev *e = ev_of(fn);

	return e && e->t1 > e->t0;
}

/*
 * What the driver found by itself since it loaded.  Nothing wrong now but
 * episodes counted: a tool that ran before, or runs now and then (a cron
 * job, a monitoring agent): a warning, as measurements then were wrong.
 */
static void past_episodes(struct result *r)
{
	if (!ck.episodes)
		return;
	app(r->saw, "; since it loaded, qpi_uncore found another writer %ld time%s (foreign_writes: %s)",
	    ck.episodes, ck.episodes == 1 ? "" : "s", ck.episode_pmus);
	if (r->status == CK_PASS || r->status == CK_SKIP) {
		r->status = CK_WARN;
		app(r->todo, "%sanother tool reprogrammed the counters earlier (dmesg | grep 'another tool' says when and which): find it (PCM, likwid -M 1, a monitoring agent) and stop it; counts taken while it ran are wrong",
		    r->todo[0] ? "; " : "");
	}
}

void check_foreign(struct result *r)
{
	int i, c, tries, checked = 0, bad = 0, shared = 0;
	uint64_t caught;
	struct ev *ev;

	if (!nr_evs) {
		r->status = CK_SKIP;
		app(r->saw, "no event counting (see counting)");
		past_episodes(r);
		return;
	}
	for (i = 0; i < ck.nr_fns; i++) {
		struct fn *fn = &ck.fns[i];
		int nr = fn->kind == K_QPI ? 4 : 3, v;
		uint32_t ctl[4], want, seen;

		/* only a bound function had our event programmed */
		if ((fn->kind != K_QPI && fn->kind != K_R3) || !fn->driver[0])
			continue;
		want = fn->kind == K_QPI ? QPI_CLK_CTL : R3_CLK_CTL;
		/* our event off its counter for a moment: look again */
		for (tries = 0; tries < 10; tries++) {
			if (tries)
				usleep(20000);
			for (c = 0; c < nr; c++)
				if (!cfg_read(fn->bdf, CTL0 + 4 * c, &ctl[c]))
					break;
			if (c < nr) {
				r->status = CK_SKIP;
				app(r->saw, "cannot read config space of %s", fn->bdf);
				app(r->todo, "run as root");
				return;
			}
			v = check_ctls(ctl, nr, want, &seen);
			if (v != CTLS_PAUSED)
				break;
		}
		if (!scheduled(fn))
			continue;
		checked++;
		ev = ev_of(fn);
		read_fw(ev, &ev->fw1);
		caught = ev->fw1 - ev->fw0;
		if (v == CTLS_OK && !caught)
			continue;
		/*
		 * Multiplexed with other users' events, ours may be switched
		 * out right now and the box hold theirs, or still paused
		 * after 200 ms: no verdict.  Unless the driver's own read-back
		 * caught a foreign write meanwhile (which also makes perf show
		 * our event running less than it was enabled).
		 */
		if (!caught && (ev->shared || v == CTLS_PAUSED)) {
			shared++;
			app(r->saw, "%ssocket %d %s %d (%s): %s, holds 0x%08x: cannot tell",
			    r->saw[0] ? "; " : "", fn->socket, kind_name[fn->kind], fn->idx, fn->bdf,
			    v == CTLS_PAUSED ? "the check's event kept off its counter" :
			    "multiplexed with other perf events", seen);
			continue;
		}
		bad++;
		if (v == CTLS_ZERO)
			app(r->saw, "%ssocket %d %s %d (%s): every control register reads 0, 0x%06x was written: the counters ignore writes",
			    r->saw[0] ? "; " : "", fn->socket, kind_name[fn->kind], fn->idx, fn->bdf, want);
		else if (v == CTLS_FOREIGN)
			app(r->saw, "%ssocket %d %s %d (%s): a control register holds 0x%08x where the driver wrote 0x%06x: something else writes these registers",
			    r->saw[0] ? "; " : "", fn->socket, kind_name[fn->kind], fn->idx, fn->bdf, seen, want);
		else
			app(r->saw, "%ssocket %d %s %d (%s): the control holds what the driver wrote now, but something else wrote it during the check",
			    r->saw[0] ? "; " : "", fn->socket, kind_name[fn->kind], fn->idx, fn->bdf);
		if (caught)
			app(r->saw, " (qpi_uncore's own read-back caught it: %" PRIu64 " episode%s)",
			    caught, caught == 1 ? "" : "s");
		if (!strstr(r->todo, v == CTLS_ZERO ? "locks" : "PCM"))
			app(r->todo, "%s%s", r->todo[0] ? "; " : "", v == CTLS_ZERO ?
			    "firmware locks the PMON registers (a BIOS option), or a hypervisor drops the writes" :
			    "stop the other tool: PCM (pcm, pcm-numa, pcm-memory...), likwid in direct access mode (likwid-perfctr -M 1), or a BIOS SMI; perf counts are wrong while it runs");
	}
	close_evs();
	if (!checked) {
		r->status = CK_SKIP;
		app(r->saw, "no bound QPI/R3QPI function to read back");
		past_episodes(r);
		return;
	}
	if (!bad && !shared) {
		app(r->saw, "%d boxes: the control registers hold what the driver wrote", checked);
		past_episodes(r);
		return;
	}
	if (!bad) {
		r->status = CK_WARN;
		app(r->todo, "run the check again when no other perf events are open on the uncore_qpi/r3qpi PMUs");
		past_episodes(r);
		return;
	}
	r->status = CK_FAIL;
	past_episodes(r);
}

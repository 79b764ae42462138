// SPDX-License-Identifier: GPL-2.0
/*
 * --check's health check: CRC errors in normal operation and the share
 * of cycles in L0p or L1 while data flows, each event on its own; the
 * way of opening and reading them, which the symmetry check shares.
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
#include "plan.h"

int check_health(uint64_t crc_normal, const double *share, int n, bool traffic)
{
	int i;

	if (crc_normal)
		return CK_WARN;
	for (i = 0; i < n; i++)
		if (traffic && share[i] > 0.5)
			return CK_WARN;
	return CK_PASS;
}

/*
 * @nr events of @cfg, each on its own, on uncore_qpi_@idx on every socket
 * of its cpumask: boxes added to @hb (fd -1 for the events beyond @nr and
 * those that cannot be opened).
 */
int open_events(const uint64_t *cfg, int nr, int idx, struct hbox *hb, int max)
{
	char buf[512];
	int type, n = 0, j, cpus[MAX_EVS], nr_cpus, k;

	if (read_file(buf, sizeof(buf), "/sys/bus/event_source/devices/uncore_qpi_%d/type", idx))
		return 0;
	type = atoi(buf);
	if (read_file(buf, sizeof(buf), "/sys/bus/event_source/devices/uncore_qpi_%d/cpumask", idx))
		return 0;
	nr_cpus = check_cpulist(buf, cpus, max < MAX_EVS ? max : MAX_EVS);
	for (k = 0; k < nr_cpus; k++, n++) {
		int cpu = cpus[k];

		hb[n].socket = cpu_socket(cpu);
		hb[n].idx = idx;
		for (j = 0; j < HC_N; j++) {
			struct perf_event_attr attr = {
				.size = sizeof(attr), .type = type,
				.config = j < nr ? cfg[j] : 0,
				.read_format = PERF_FORMAT_TOTAL_TIME_ENABLED |
					       PERF_FORMAT_TOTAL_TIME_RUNNING,
			};

			hb[n].fd[j] = j >= nr ? -1 :
				syscall(SYS_perf_event_open, &attr, -1, cpu, -1, 0);
		}
	}
	return n;
}

/*
 * Every box's first @nr events open and read once; else all closed, false
 * and errno.
 */
bool start_events(struct hbox *hb, int n, int nr)
{
	int i, j, err;

	for (i = 0; i < n; i++)
		for (j = 0; j < nr; j++)
			if (hb[i].fd[j] < 0)
				goto fail;
	for (i = 0; i < n; i++)
		read_health(&hb[i], 0);
	return true;
fail:
	err = errno;
	for (i = 0; i < n; i++)
		for (j = 0; j < HC_N; j++)
			if (hb[i].fd[j] >= 0)
				close(hb[i].fd[j]);
	errno = err;
	return false;
}

void read_health(struct hbox *b, int when)
{
	int j;

	for (j = 0; j < HC_N; j++) {
		uint64_t buf[3] = { 0, 0, 0 };

		if (b->fd[j] >= 0 && read(b->fd[j], buf, sizeof(buf)) != sizeof(buf))
			memset(buf, 0, sizeof(buf));
		b->v[j][when] = buf[0];
		b->t[j][when] = buf[2];
	}
}

/*
 * Link health over a window: CRC errors in normal operation (any count is
 * real: the event counts only while it holds a counter, never scaled up),
 * and the share of cycles in L0p or L1 while data flows.
 */
void check_health_live(struct result *r)
{
	int window_ms = ck.window_ms;
	const struct plan *p = plan_for_model(ck.plat ? ck.plat->model : -1);
	const uint64_t cfg[HC_N] = {
		[HC_CLK] = p->bw[BW_CLK].config,
		[HC_DATA] = p->bw[BW_DATA].config,
		[HC_CRC] = p->health[H_CRC_NORMAL].config,
		[HC_L0P_TX] = p->health[H_L0P_TX].config,
		[HC_L0P_RX] = p->health[H_L0P_RX].config,
		[HC_L1] = p->health[H_L1].config,
	};
	struct timespec ts = { window_ms / 1000, window_ms % 1000 * 1000000L };
	static struct hbox hb[MAX_SOCKETS * 4];
	int i, j, n = 0, worst = CK_PASS;

	if (!ck.nr_pmus) {
		r->status = CK_SKIP;
		app(r->saw, "no uncore_qpi_* PMU (see module)");
		return;
	}
	for (i = 0; i < 4; i++)
		n += open_events(cfg, HC_N, i, hb + n, (int)(sizeof(hb) / sizeof(hb[0])) - n);
	if (!start_events(hb, n, HC_N)) {
		r->status = CK_SKIP;
		app(r->saw, "cannot open the health events: %s", strerror(errno));
		return;
	}
	nanosleep(&ts, NULL);
	for (i = 0; i < n; i++) {
		struct hbox *b = &hb[i];
		double share[3], clk_rate, data;
		uint64_t crc;
		int v;

		read_health(b, 1);
		for (j = 0; j < HC_N; j++)
			if (b->fd[j] >= 0)
				close(b->fd[j]);
		crc = b->v[HC_CRC][1] - b->v[HC_CRC][0];
		clk_rate = (double)(b->v[HC_CLK][1] - b->v[HC_CLK][0]) /
			   (b->t[HC_CLK][1] - b->t[HC_CLK][0] + !(b->t[HC_CLK][1] - b->t[HC_CLK][0]));
		data = b->v[HC_DATA][1] - b->v[HC_DATA][0];
		for (j = 0; j < 3; j++) {
			uint64_t dt = b->t[HC_L0P_TX + j][1] - b->t[HC_L0P_TX + j][0];
			uint64_t dv = b->v[HC_L0P_TX + j][1] - b->v[HC_L0P_TX + j][0];

			share[j] = dt && clk_rate > 0 ? dv / (double)dt / clk_rate : -1;
		}
		v = check_health(crc, share, 3, data > 0);
		worst = v > worst ? v : worst;
		app(r->saw, "%ssocket %d port %d: %" PRIu64 " CRC errors in normal operation",
		    r->saw[0] ? "; " : "", b->socket, b->idx, crc);
		for (j = 0; j < 3; j++) {
			static const char *const what[] = { "L0p tx", "L0p rx", "L1" };

			if (share[j] >= 0)
				app(r->saw, ", %s %.0f%%", what[j], 100 * share[j]);
			else
				app(r->saw, ", %s not counted", what[j]);
		}
		app(r->saw, ", %s data flits %.0f", p->end == PLAN_RX ? "rx" : "tx", data);
		if (v == CK_WARN)
			app(r->saw, " WARN");
	}
	r->status = n ? worst : CK_SKIP;
	if (!n)
		app(r->saw, "no uncore_qpi_* PMU to count on");
	if (worst == CK_WARN)
		app(r->todo, "CRC errors in normal operation: the link retries flits, check the board and its cabling; most cycles in L0p/L1 under traffic: the link runs at reduced width or sleeps, check the BIOS link power settings");
}

// SPDX-License-Identifier: GPL-2.0
/*
 * qpistat's outputs on stdout: the table and one JSON object per
 * interval (exposition.c has the Prometheus text), and the write errors
 * that must not pass for success.
 */
#include <inttypes.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <errno.h>

#include "qpistat.h"

/*
 * A full disk or a closed pipe must not pass for success: the textfile
 * recipe "qpistat ... > f.tmp && mv f.tmp f" would install a cut file.
 */
void check_stdout(void)
{
	int err;

	errno = 0;
	if (!fflush(stdout) && !ferror(stdout))
		return;
	err = errno;
	fprintf(stderr, "qpistat: writing to stdout: %s\n",
		err ? strerror(err) : "write error");
	exit(1);
}

/* the last output: what close() says counts too (NFS reports it there) */
int close_stdout(int status)
{
	check_stdout();
	if (fclose(stdout)) {
		fprintf(stderr, "qpistat: writing to stdout: %s\n", strerror(errno));
		return 1;
	}
	return status;
}

/*
 * The health families: one series per label value, each fed by one
 * event.  Their _counted_seconds companions say how long it counted.
 */
const struct hfam hfams[] = {
	{ "crc_errors", "phase", { "link_init", "normal" },
	  { H_CRC_INIT, H_CRC_NORMAL }, 2 },
	{ "retry_stall_cycles", "level", { "full", "almost_full" },
	  { H_STALL_FULL, H_STALL_ALMOST }, 2 },
	{ "l0p_cycles", "direction", { "tx", "rx" }, { H_L0P_TX, H_L0P_RX }, 2 },
	{ "l1_cycles", NULL, { NULL }, { H_L1 }, 1 },
};
#define NR_HFAMS	((int)(sizeof(hfams) / sizeof(hfams[0])))

static void fmt_share(char *buf, size_t len, double share)
{
	if (share < 0)
		snprintf(buf, len, "-");
	else
		snprintf(buf, len, "%.2f%%", 100 * share);
}

static void print_health_row(double t, const struct box *b, double dt, bool cum)
{
	double least = 1;
	char l0t[16], l0r[16], l1[16];
	int h;

	for (h = 0; h < PLAN_NR_HEALTH; h++) {
		struct plan_health v = health(b, h, cum);

		least = fmin(least, ratio(v.counted_s, v.enabled_s));
	}
	fmt_share(l0t, sizeof(l0t), residency(b, H_L0P_TX, dt, cum));
	fmt_share(l0r, sizeof(l0r), residency(b, H_L0P_RX, dt, cum));
	fmt_share(l1, sizeof(l1), residency(b, H_L1, dt, cum));
	printf("%9.3f %6d port%d health: CRC errors link_init %" PRIu64 " normal %" PRIu64
	       ", retry stall cycles full %" PRIu64 " almost_full %" PRIu64
	       ", L0p tx %s rx %s, L1 %s; each event counted >= %.0f%% of the time\n",
	       t, b->socket, b->idx, health(b, H_CRC_INIT, cum).value,
	       health(b, H_CRC_NORMAL, cum).value, health(b, H_STALL_FULL, cum).value,
	       health(b, H_STALL_ALMOST, cum).value, l0t, l0r, l1, 100 * least);
}

void print_table(double t, double dt, bool cum)
{
	const char *e = plan->end == PLAN_RX ? "rx" : "tx";
	char flits[16], util[16];
	int i, s;

	snprintf(flits, sizeof(flits), "%s flits/s", e);
	snprintf(util, sizeof(util), "%s util", e);
	printf("%9s %6s %4s %8s %12s %12s %14s %8s %8s\n", "time", "socket",
	       "port", "GT/s", "rx MB/s", "tx MB/s", flits, util, "overhead");
	for (s = 0; s < MAX_SOCKETS; s++) {
		double rx = 0, tx = 0, peer;
		char rxs[32] = "-", txs[32] = "-";
		bool any = false, rx_known = true;

		for (i = 0; i < nr_boxes; i++) {
			struct plan_counts c;
			struct plan_figures m;
			char speed[16] = "-";

			if (boxes[i].kind != QPI || boxes[i].socket != s)
				continue;
			port_figures(&boxes[i], dt, cum, &c, &m);
			if (boxes[i].speed > 0)
				snprintf(speed, sizeof(speed), "%.1f",
					 boxes[i].speed);
			snprintf(rxs, sizeof(rxs), m.rx_known ? "%.3f" : "-", m.rx_bw / 1e6);
			snprintf(txs, sizeof(txs), m.tx_known ? "%.3f" : "-", m.tx_bw / 1e6);
			printf("%9.3f %6d %4d %8s %12s %12s %14.0f %7.2f%% %7.2f%%\n",
			       t, s, boxes[i].idx, speed, rxs, txs, m.flit_rate,
			       100 * m.util, 100 * m.overhead);
			rx += m.rx_bw;
			tx += m.tx_bw;
			rx_known &= m.rx_known;
			any = true;
		}
		if (any) {
			/* where ports count what they send: what the peer sent */
			if (!rx_known && socket_rx(s, dt, cum, &peer)) {
				rx = peer;
				rx_known = true;
			}
			snprintf(rxs, sizeof(rxs), rx_known ? "%.3f" : "-", rx / 1e6);
			printf("%9.3f %6d %4s %8s %12s %12.3f\n", t, s, "all",
			       "", rxs, tx / 1e6);
		}
		for (i = 0; i < nr_boxes; i++)
			if (boxes[i].socket == s && has_health(&boxes[i]))
				print_health_row(t, &boxes[i], dt, cum);
		for (i = 0; i < nr_boxes; i++) {
			const struct box *b = &boxes[i];

			if (b->kind != R3QPI || b->socket != s || b->nr < 3)
				continue;
			printf("%9.3f %6d r3qpi%d credit rejects per cycle: VNA %.6f VN0 %.6f\n",
			       t, s, b->idx, ratio(d(b, 1, cum), d(b, 0, cum)),
			       ratio(d(b, 2, cum), d(b, 0, cum)));
		}
	}
	check_stdout();
}

/* A figure, or null for one this end cannot count. */
static void json_num(const char *key, bool known, const char *fmt, double v)
{
	printf(", \"%s\": ", key);
	if (known)
		printf(fmt, v);
	else
		printf("null");
}

/* A count, exact at any size, or null. */
static void json_u64(const char *key, bool known, uint64_t v)
{
	if (known)
		printf(", \"%s\": %" PRIu64, key, v);
	else
		printf(", \"%s\": null", key);
}

static void json_share(const char *key, double share)
{
	json_num(key, share >= 0, "%.6f", share);
}

static void print_json_health(const struct box *b, double dt, bool cum)
{
	int k, j;

	printf(", \"health\": {");
	for (k = 0; k < NR_HFAMS; k++) {
		const struct hfam *hf = &hfams[k];

		printf("%s\"%s\": ", k ? ", " : "", hf->key);
		if (hf->label)
			printf("{");
		for (j = 0; j < hf->n; j++) {
			struct plan_health v = health(b, hf->ev[j], cum);

			if (hf->label)
				printf("%s\"%s\": ", j ? ", " : "", hf->val[j]);
			printf("{\"count\": %" PRIu64 ", \"counted_s\": %.9f, \"enabled_s\": %.9f}",
			       v.value, v.counted_s, v.enabled_s);
		}
		if (hf->label)
			printf("}");
	}
	json_share("l0p_tx_share", residency(b, H_L0P_TX, dt, cum));
	json_share("l0p_rx_share", residency(b, H_L0P_RX, dt, cum));
	json_share("l1_share", residency(b, H_L1, dt, cum));
	printf("}");
}

/*
 * The port at the far end of @b's link, by the link map, and where the
 * plan counts at the sending end, the flits it sent, which @b received.
 */
static void print_json_peer(const struct box *b, double dt, bool cum)
{
	const struct box *peer = peer_box(b);
	struct plan_counts pc;
	struct plan_figures pf;

	if (!peer)
		return;
	printf(", \"peer\": {\"socket\": %d, \"port\": %d}", peer->socket, peer->idx);
	if (plan->end != PLAN_TX)
		return;
	own_figures(peer, dt, cum, &pc, &pf);
	printf(", \"rx_data_flits\": %" PRIu64 ", \"rx_nondata_flits\": %" PRIu64,
	       pc.data, pc.nondata);
}

void print_json(double t, double dt, bool cum)
{
	const char *e = plan->end == PLAN_RX ? "rx" : "tx";
	int i, s, first_s = 1;

	printf("{\"time\": %.9f, \"interval_s\": %.9f, \"sockets\": [", t, dt);
	for (s = 0; s < MAX_SOCKETS; s++) {
		double rx = 0, tx = 0, peer;
		int first = 1, any = 0;
		bool rx_known = true;

		for (i = 0; i < nr_boxes; i++)
			any |= boxes[i].socket == s;
		if (!any)
			continue;
		printf("%s{\"socket\": %d, \"ports\": [", first_s ? "" : ", ", s);
		first_s = 0;
		for (i = 0; i < nr_boxes; i++) {
			struct plan_counts c;
			struct plan_figures m;
			char key[32];

			if (boxes[i].kind != QPI || boxes[i].socket != s)
				continue;
			port_figures(&boxes[i], dt, cum, &c, &m);
			printf("%s{\"port\": %d, \"link_speed_gts\": %.1f, "
			       "\"clockticks\": %" PRIu64 ", \"%s_data_flits\": %" PRIu64
			       ", \"%s_nondata_flits\": %" PRIu64,
			       first ? "" : ", ", boxes[i].idx, boxes[i].speed,
			       c.clk, e, c.data, e, c.nondata);
			if (boxes[i].nr > BW_TX_DATA)
				printf(", \"tx_data_flits\": %" PRIu64, c.tx_data);
			print_json_peer(&boxes[i], dt, cum);
			json_u64("rx_bytes", m.rx_known, m.rx_bytes);
			json_u64("tx_bytes", m.tx_known, m.tx_bytes);
			json_num("rx_bandwidth_bytes_per_s", m.rx_known, "%.3f", m.rx_bw);
			json_num("tx_bandwidth_bytes_per_s", m.tx_known, "%.3f", m.tx_bw);
			snprintf(key, sizeof(key), "%s_flits_per_s", e);
			json_num(key, true, "%.3f", m.flit_rate);
			snprintf(key, sizeof(key), "%s_utilization", e);
			json_num(key, true, "%.6f", m.util);
			snprintf(key, sizeof(key), "%s_protocol_overhead", e);
			json_num(key, true, "%.6f", m.overhead);
			if (has_health(&boxes[i]))
				print_json_health(&boxes[i], dt, cum);
			printf("}");
			first = 0;
			rx += m.rx_bw;
			tx += m.tx_bw;
			rx_known &= m.rx_known;
		}
		printf("], \"links\": [");
		first = 1;
		for (i = 0; i < nr_boxes; i++) {
			const struct box *b = &boxes[i];

			if (b->kind != R3QPI || b->socket != s)
				continue;
			printf("%s{\"link\": %d, \"clockticks\": %" PRIu64, first ? "" : ", ",
			       b->idx, d(b, 0, cum));
			if (b->nr == 3)
				printf(", \"vna_credit_rejects\": %" PRIu64
				       ", \"vn0_credit_rejects\": %" PRIu64
				       ", \"vna_rejects_per_cycle\": %.6f, \"vn0_rejects_per_cycle\": %.6f",
				       d(b, 1, cum), d(b, 2, cum),
				       ratio(d(b, 1, cum), d(b, 0, cum)),
				       ratio(d(b, 2, cum), d(b, 0, cum)));
			printf("}");
			first = 0;
		}
		if (!rx_known && socket_rx(s, dt, cum, &peer)) {
			rx = peer;
			rx_known = true;
		}
		printf("]");
		json_num("rx_bandwidth_bytes_per_s", rx_known, "%.3f", rx);
		json_num("tx_bandwidth_bytes_per_s", true, "%.3f", tx);
		printf("}");
	}
	printf("], \"platform\": \"%s\", \"measured_at\": \"%s\"}\n", plan->name, e);
	check_stdout();
}

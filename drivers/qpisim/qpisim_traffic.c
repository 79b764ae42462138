// SPDX-License-Identifier: GPL-2.0
/*
 * qpisim traffic: the "inject" command language and what each injection
 * does to the counters of one box.
 */
#include "qpisim_model.h"

#ifdef __KERNEL__
#include <linux/kernel.h>
#include <linux/string.h>
#else
#include <stdio.h>
#include <string.h>
#endif

/*
 * The commands, one a line:
 *
 *   event  socket=S box=qpiP|r3qpiL event=E [umask=U] [ext=0|1] count=N
 *          [per_cycle=K] [cycles=C]
 *   packet socket=S port=P dir=rx|tx mc=CLASS [opc=O] [dnid=D] [rnid=R]
 *          [rds=S] [vnw=V] [flits=F] [ring=ad|ak] count=N
 *   rate   socket=S box=qpiP|r3qpiL event=E [umask=U] [ext=0|1] per_s=N
 *
 * An injection is a batch of cycles of one box.  Counters selecting the
 * injected event see its per-cycle increments, clockticks counters see one
 * per cycle, every other counter sees zero per cycle (which matters when it
 * counts with invert).  A rate is not a batch: it sets how many events a
 * second of one event arrive from now on (qsim_advance() delivers them).
 * Documentation/qpisim.rst states the rules in full.
 */

#define QSIM_MAX_ARGS	16
#define QSIM_MAX_COUNT	BIT_ULL(56)

struct qsim_args {
	unsigned int n;
	const char *key[QSIM_MAX_ARGS];
	const char *val[QSIM_MAX_ARGS];
	bool used[QSIM_MAX_ARGS];
};

static bool parse_u64(const char *s, u64 *out)
{
	unsigned int base = 10;
	u64 v = 0;

	if (s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
		base = 16;
		s += 2;
	}
	if (!*s)
		return false;
	for (; *s; s++) {
		unsigned int d;

		if (*s >= '0' && *s <= '9')
			d = *s - '0';
		else if (base == 16 && *s >= 'a' && *s <= 'f')
			d = *s - 'a' + 10;
		else if (base == 16 && *s >= 'A' && *s <= 'F')
			d = *s - 'A' + 10;
		else
			return false;
		if (v > (~0ULL - d) / base)
			return false;
		v = v * base + d;
	}
	*out = v;
	return true;
}

static int split_args(char *line, struct qsim_args *a, char *err, size_t len)
{
	char *tok;

	a->n = 0;
	while ((tok = strsep(&line, " \t\n")) != NULL) {
		char *eq;
		unsigned int i;

		if (!*tok)
			continue;
		eq = strchr(tok, '=');
		if (!eq || eq == tok) {
			snprintf(err, len, "'%s' is not key=value", tok);
			return -1;
		}
		*eq = '\0';
		for (i = 0; i < a->n; i++) {
			if (!strcmp(a->key[i], tok)) {
				snprintf(err, len, "%s given twice", tok);
				return -1;
			}
		}
		if (a->n == QSIM_MAX_ARGS) {
			snprintf(err, len, "too many arguments");
			return -1;
		}
		a->key[a->n] = tok;
		a->val[a->n] = eq + 1;
		a->used[a->n] = false;
		a->n++;
	}
	return 0;
}

static const char *arg_str(struct qsim_args *a, const char *key)
{
	unsigned int i;

	for (i = 0; i < a->n; i++) {
		if (!strcmp(a->key[i], key)) {
			a->used[i] = true;
			return a->val[i];
		}
	}
	return NULL;
}

/* 1: present and valid, 0: absent (*out = def), -1: invalid. */
static int arg_num(struct qsim_args *a, const char *key, u64 max, u64 def,
		   u64 *out, char *err, size_t len)
{
	const char *s = arg_str(a, key);

	*out = def;
	if (!s)
		return 0;
	if (!parse_u64(s, out) || *out > max) {
		snprintf(err, len, "%s=%s: must be a number 0..%llu", key, s,
			 (unsigned long long)max);
		return -1;
	}
	return 1;
}

static int need_num(struct qsim_args *a, const char *key, u64 max, u64 *out,
		    char *err, size_t len)
{
	int ret = arg_num(a, key, max, 0, out, err, len);

	if (!ret)
		snprintf(err, len, "%s= is required", key);
	return ret == 1 ? 0 : -1;
}

static int check_unused(struct qsim_args *a, char *err, size_t len)
{
	unsigned int i;

	for (i = 0; i < a->n; i++) {
		if (!a->used[i]) {
			snprintf(err, len, "unknown key '%s'", a->key[i]);
			return -1;
		}
	}
	return 0;
}

static struct qsim_socket *arg_socket(struct qsim *sim, struct qsim_args *a,
				      char *err, size_t len)
{
	u64 s;

	if (need_num(a, "socket", QSIM_MAX_SOCKETS, &s, err, len))
		return NULL;
	if (s >= sim->nr_sockets) {
		snprintf(err, len, "socket=%llu: the model has %u sockets",
			 (unsigned long long)s, sim->nr_sockets);
		return NULL;
	}
	return &sim->sock[s];
}

static bool is_clockticks(const struct qsim_box *box, u32 ctl)
{
	return (ctl & UNC_CTL_EV_SEL) == box->desc->clockticks &&
	       !(ctl & UNC_CTL_EV_SEL_EXT);
}

static const u8 qsim_zero[1] = { 0 };
static const u8 qsim_one[1] = { 1 };

/* A batch's cycles, and how many of them the port spent in each power state. */
struct qsim_batch {
	u64 cycles;
	u64 res[QSIM_NR_RES];
};

/* Feed the segments chosen by @segs_for to every counting counter of @box. */
typedef unsigned int (*segs_fn)(const struct qsim_box *box, u32 ctl,
				const void *arg, const struct qsim_batch *b,
				struct qsim_seg *segs, u8 *buf);

/*
 * A batch of @cycles clockticks: the port's residency knobs give their
 * share of them to the power-state events, whatever the box's counters
 * select, so the carried remainders follow the link and not the counters.
 */
static void run_batch(struct qsim_box *box, u64 cycles, segs_fn segs_for,
		      const void *arg)
{
	struct qsim_socket *sock = box->sock;
	struct qsim_batch b = { .cycles = cycles };
	unsigned int i;

	qsim_residency(box, cycles, b.res);
	for (i = 0; i < box->desc->nr_ctrs; i++) {
		struct qsim_seg segs[3];
		u8 buf[2 * QSIM_MAX_FLITS];
		unsigned int n;

		if (!qsim_ctr_counting(box, i))
			continue;
		n = segs_for(box, box->ctl[i], arg, &b, segs, buf);
		qsim_ctr_add(box, i, qsim_eval(box->ctl[i], segs, n,
					       &box->cmp[i]));
	}
	qsim_batch_end(sock);
}

/*
 * What a counter sees of a batch that carries none of its event:
 * clockticks one per cycle, a power-state event its cycles first (one per
 * cycle) then idle, anything else idle cycles.
 */
static unsigned int idle_segs(const struct qsim_box *box, u32 ctl,
			      const struct qsim_batch *b,
			      struct qsim_seg *segs)
{
	int k = qsim_residency_of(box, ctl);

	if (is_clockticks(box, ctl)) {
		segs[0] = (struct qsim_seg){ qsim_one, 1, b->cycles };
		return 1;
	}
	if (k < 0) {
		segs[0] = (struct qsim_seg){ qsim_zero, 1, b->cycles };
		return 1;
	}
	segs[0] = (struct qsim_seg){ qsim_one, 1, b->res[k] };
	segs[1] = (struct qsim_seg){ qsim_zero, 1, b->cycles - b->res[k] };
	return 2;
}

/* ---- event injection ---- */

struct qsim_event {
	u8 event;
	u8 umask;
	bool ext;
	u64 count;
	u64 per_cycle;
	u64 cycles;
};

static unsigned int event_segs(const struct qsim_box *box, u32 ctl,
			       const void *arg, const struct qsim_batch *b,
			       struct qsim_seg *segs, u8 *buf)
{
	const struct qsim_event *ev = arg;
	u8 umask = (ctl & UNC_CTL_UMASK) >> UNC_CTL_UMASK_SHIFT;
	u64 full = ev->count / ev->per_cycle;
	u64 rem = ev->count % ev->per_cycle;
	unsigned int n = 0;

	if ((ctl & UNC_CTL_EV_SEL) != ev->event ||
	    !(ctl & UNC_CTL_EV_SEL_EXT) != !ev->ext ||
	    (ev->umask && !(umask & ev->umask)))
		return idle_segs(box, ctl, b, segs);
	buf[0] = ev->per_cycle;
	buf[1] = rem;
	segs[n++] = (struct qsim_seg){ &buf[0], 1, full };
	if (rem)
		segs[n++] = (struct qsim_seg){ &buf[1], 1, 1 };
	segs[n++] = (struct qsim_seg){ qsim_zero, 1,
				       ev->cycles - full - (rem ? 1 : 0) };
	return n;
}

static struct qsim_box *arg_box(struct qsim_socket *sock, struct qsim_args *a,
				char *err, size_t len)
{
	const char *s = arg_str(a, "box");
	u64 idx;

	if (!s) {
		snprintf(err, len, "box= is required");
		return NULL;
	}
	if (!strncmp(s, "qpi", 3) && parse_u64(s + 3, &idx) &&
	    idx < sock->nr_ports)
		return &sock->qpi[idx];
	if (!strncmp(s, "r3qpi", 5) && parse_u64(s + 5, &idx) &&
	    idx < sock->nr_links)
		return &sock->r3qpi[idx];
	snprintf(err, len,
		 "box=%s: socket %u has qpi0..qpi%u and r3qpi0..r3qpi%u", s,
		 sock->id, sock->nr_ports - 1, sock->nr_links - 1);
	return NULL;
}

static int exec_event(struct qsim *sim, struct qsim_args *a, char *err,
		      size_t len)
{
	struct qsim_socket *sock = arg_socket(sim, a, err, len);
	struct qsim_event ev;
	struct qsim_box *box;
	u64 v, min_cycles;
	int ret;

	if (!sock)
		return -1;
	box = arg_box(sock, a, err, len);
	if (!box)
		return -1;
	if (need_num(a, "event", 0xff, &v, err, len))
		return -1;
	ev.event = v;
	if (arg_num(a, "umask", 0xff, 0, &v, err, len) < 0)
		return -1;
	ev.umask = v;
	if (arg_num(a, "ext", 1, 0, &v, err, len) < 0)
		return -1;
	ev.ext = v;
	if (ev.ext && box->type != QSIM_BOX_QPI) {
		snprintf(err, len, "ext=1: R3QPI has no ev_sel_ext");
		return -1;
	}
	if (need_num(a, "count", QSIM_MAX_COUNT, &ev.count, err, len))
		return -1;
	if (arg_num(a, "per_cycle", QSIM_MAX_PER_CYCLE, 1, &ev.per_cycle,
		    err, len) < 0)
		return -1;
	if (!ev.per_cycle) {
		snprintf(err, len, "per_cycle=0: must be 1..%d",
			 QSIM_MAX_PER_CYCLE);
		return -1;
	}
	min_cycles = (ev.count + ev.per_cycle - 1) / ev.per_cycle;
	ret = arg_num(a, "cycles", QSIM_MAX_COUNT, min_cycles, &ev.cycles,
		      err, len);
	if (ret < 0)
		return -1;
	if (ev.cycles < min_cycles) {
		snprintf(err, len,
			 "cycles=%llu: %llu events at %llu per cycle need %llu cycles",
			 (unsigned long long)ev.cycles,
			 (unsigned long long)ev.count,
			 (unsigned long long)ev.per_cycle,
			 (unsigned long long)min_cycles);
		return -1;
	}
	if (check_unused(a, err, len))
		return -1;
	run_batch(box, ev.cycles, event_segs, &ev);
	return 0;
}

/* ---- traffic at a rate ---- */

static int exec_rate(struct qsim *sim, struct qsim_args *a, char *err,
		     size_t len)
{
	struct qsim_socket *sock = arg_socket(sim, a, err, len);
	struct qsim_stream *st = NULL, *slot = NULL;
	u64 event, umask, ext, per_s;
	struct qsim_box *box;
	unsigned int k;

	if (!sock)
		return -1;
	box = arg_box(sock, a, err, len);
	if (!box)
		return -1;
	if (need_num(a, "event", 0xff, &event, err, len) ||
	    arg_num(a, "umask", 0xff, 0, &umask, err, len) < 0 ||
	    arg_num(a, "ext", 1, 0, &ext, err, len) < 0 ||
	    need_num(a, "per_s", QSIM_MAX_RATE, &per_s, err, len))
		return -1;
	if (ext && box->type != QSIM_BOX_QPI) {
		snprintf(err, len, "ext=1: R3QPI has no ev_sel_ext");
		return -1;
	}
	if (check_unused(a, err, len))
		return -1;
	for (k = 0; k < QSIM_MAX_STREAMS; k++) {
		struct qsim_stream *s = &box->streams[k];

		if (!s->used) {
			slot = slot ? slot : s;
			continue;
		}
		if (s->event == event && s->umask == umask && s->ext == ext)
			st = s;
	}
	if (!st && !per_s)
		return 0;
	if (!st && !slot) {
		snprintf(err, len,
			 "rate: box has %d streams already; stop one (per_s=0) and reset its stats",
			 QSIM_MAX_STREAMS);
		return -1;
	}
	if (!st) {
		st = slot;
		memset(st, 0, sizeof(*st));
		st->used = true;
		st->event = event;
		st->umask = umask;
		st->ext = ext;
	}
	st->per_s = per_s;
	return 0;
}

/* ---- packet injection ---- */

struct qsim_packet {
	bool rx;
	bool ak;
	u8 mc;
	u8 flits;
	u32 pkt0;		/* the packet as MATCH0/MASK0 see it */
	u32 pkt1;		/* ... and MATCH1/MASK1 */
	u64 count;
	bool cto;		/* matches this box's mask/match */
};

static bool has_data(u8 mc)
{
	return mc == QPI_MC_DRS || mc == QPI_MC_NCB;
}

/* Does flit @j of a packet add to a counter with control @ctl? */
static bool flit_counts(const struct qsim_packet *p, u32 ctl, unsigned int j)
{
	u8 ev = ctl & UNC_CTL_EV_SEL;
	u8 um = (ctl & UNC_CTL_UMASK) >> UNC_CTL_UMASK_SHIFT;
	bool data = j > 0 && has_data(p->mc);

	if (!(ctl & UNC_CTL_EV_SEL_EXT)) {
		if (ev != (p->rx ? QPI_EV_RXL_FLITS_G0 : QPI_EV_TXL_FLITS_G0))
			return false;
		return ((um & QPI_G0_DATA) && data) ||
		       ((um & QPI_G0_NON_DATA) && !data);
	}
	if (ev == (p->rx ? QPI_EV_RXL_FLITS_G1 : QPI_EV_TXL_FLITS_G1))
		return ((um & QPI_G1_SNP) && p->mc == QPI_MC_SNP) ||
		       ((um & QPI_G1_HOM_REQ) && p->mc == QPI_MC_HOM_REQ) ||
		       ((um & QPI_G1_HOM_NONREQ) && p->mc == QPI_MC_HOM_RESP) ||
		       ((um & QPI_G1_DRS_DATA) && p->mc == QPI_MC_DRS && data) ||
		       ((um & QPI_G1_DRS_NONDATA) && p->mc == QPI_MC_DRS && !data);
	if (ev == (p->rx ? QPI_EV_RXL_FLITS_G2 : QPI_EV_TXL_FLITS_G2))
		return ((um & QPI_G2_NDR_AD) && p->mc == QPI_MC_NDR && !p->ak) ||
		       ((um & QPI_G2_NDR_AK) && p->mc == QPI_MC_NDR && p->ak) ||
		       ((um & QPI_G2_NCB_DATA) && p->mc == QPI_MC_NCB && data) ||
		       ((um & QPI_G2_NCB_NONDATA) && p->mc == QPI_MC_NCB && !data) ||
		       ((um & QPI_G2_NCS) && p->mc == QPI_MC_NCS);
	/* CTO_COUNT: one per matching received packet, on its header flit. */
	return ev == QPI_EV_CTO_COUNT && p->rx && p->cto && j == 0;
}

/* Does @ctl select one of the Rx flit events (RxL_FLITS_G0, G1, G2)? */
static bool rx_flit_event(u32 ctl)
{
	return qsim_rx_flit_event(ctl & UNC_CTL_EV_SEL,
				  ctl & UNC_CTL_EV_SEL_EXT);
}

/* Packets go back to back at two flits per cycle. */
static u64 packet_cycles(u64 count, unsigned int flits)
{
	return (count * flits + 1) / 2;
}

/*
 * Packets go back to back at two flits per cycle, so flit f of the batch is
 * in cycle f / 2.  With an odd flit count the cycle pattern repeats every two
 * packets; a last odd packet is the tail.
 */
static unsigned int packet_segs(const struct qsim_box *box, u32 ctl,
				const void *arg, const struct qsim_batch *b,
				struct qsim_seg *segs, u8 *buf)
{
	const struct qsim_packet *p = arg;
	unsigned int per = p->flits % 2 ? 2 : 1;
	unsigned int plen = per * p->flits / 2;
	unsigned int tlen = (p->flits + 1) / 2;
	u8 *tail = buf + QSIM_MAX_FLITS;
	u64 count = p->count, cycles, seen;
	unsigned int f;

	if (is_clockticks(box, ctl) || qsim_residency_of(box, ctl) >= 0)
		return idle_segs(box, ctl, b, segs);
	memset(buf, 0, 2 * QSIM_MAX_FLITS);
	for (f = 0; f < per * p->flits; f++) {
		bool hit = flit_counts(p, ctl, f % p->flits);

		buf[f / 2] += hit;
		if (f < p->flits)
			tail[f / 2] += hit;
	}
	/*
	 * rx_count_pct: an Rx flit event that sees more or fewer packets
	 * than arrived; fewer leave idle cycles, so that a counter with a
	 * threshold still sees the whole batch.
	 */
	if (p->rx && box->rx_count_pct != 100 && rx_flit_event(ctl))
		count = count * box->rx_count_pct / 100;
	segs[0] = (struct qsim_seg){ buf, plen, count / per };
	segs[1] = (struct qsim_seg){ tail, tlen, count % per };
	cycles = b->cycles;
	seen = packet_cycles(count, p->flits);
	segs[2] = (struct qsim_seg){ qsim_zero, 1,
				     cycles > seen ? cycles - seen : 0 };
	return 3;
}

static const struct {
	const char *name;
	u8 mc;
} qsim_mc_names[] = {
	{ "hom_req", QPI_MC_HOM_REQ }, { "hom_resp", QPI_MC_HOM_RESP },
	{ "ndr", QPI_MC_NDR }, { "snp", QPI_MC_SNP }, { "ncs", QPI_MC_NCS },
	{ "ncb", QPI_MC_NCB }, { "drs", QPI_MC_DRS },
};

static int arg_mc(struct qsim_args *a, u8 *mc, char *err, size_t len)
{
	const char *s = arg_str(a, "mc");
	unsigned int i;
	u64 v;

	if (!s) {
		snprintf(err, len, "mc= is required");
		return -1;
	}
	for (i = 0; i < ARRAY_SIZE(qsim_mc_names); i++) {
		if (!strcmp(s, qsim_mc_names[i].name)) {
			*mc = qsim_mc_names[i].mc;
			return 0;
		}
	}
	if (parse_u64(s, &v) && v <= 0xf) {
		*mc = v;
		return 0;
	}
	snprintf(err, len,
		 "mc=%s: use hom_req, hom_resp, ndr, snp, ncs, ncb, drs or 0..15",
		 s);
	return -1;
}

static int arg_choice(struct qsim_args *a, const char *key, const char *one,
		      const char *zero, bool def, bool *out, char *err,
		      size_t len)
{
	const char *s = arg_str(a, key);

	*out = def;
	if (!s)
		return 0;
	if (!strcmp(s, one)) {
		*out = true;
		return 0;
	}
	if (!strcmp(s, zero)) {
		*out = false;
		return 0;
	}
	snprintf(err, len, "%s=%s: must be %s or %s", key, s, one, zero);
	return -1;
}

static int exec_packet(struct qsim *sim, struct qsim_args *a, char *err,
		       size_t len)
{
	struct qsim_socket *sock = arg_socket(sim, a, err, len);
	u64 port, opc, dnid, rnid, rds, vnw, flits;
	struct qsim_packet p;
	struct qsim_box *box;

	if (!sock)
		return -1;
	if (need_num(a, "port", QSIM_MAX_PORTS, &port, err, len))
		return -1;
	if (port >= sock->nr_ports) {
		snprintf(err, len, "port=%llu: socket %u has %u QPI ports",
			 (unsigned long long)port, sock->id, sock->nr_ports);
		return -1;
	}
	box = &sock->qpi[port];
	if (!arg_str(a, "dir")) {
		snprintf(err, len, "dir= is required");
		return -1;
	}
	if (arg_choice(a, "dir", "rx", "tx", false, &p.rx, err, len) ||
	    arg_mc(a, &p.mc, err, len) ||
	    arg_num(a, "opc", 0xf, 0, &opc, err, len) < 0 ||
	    arg_num(a, "dnid", 0x1f, 0, &dnid, err, len) < 0 ||
	    arg_num(a, "rnid", 0x1f, 0, &rnid, err, len) < 0 ||
	    arg_num(a, "rds", 0xf, 0, &rds, err, len) < 0 ||
	    arg_num(a, "vnw", 0x3, 0, &vnw, err, len) < 0 ||
	    arg_num(a, "flits", QSIM_MAX_FLITS, has_data(p.mc) ? 9 : 1,
		    &flits, err, len) < 0 ||
	    arg_choice(a, "ring", "ak", "ad", false, &p.ak, err, len) ||
	    need_num(a, "count", QSIM_MAX_COUNT / QSIM_MAX_FLITS, &p.count,
		     err, len))
		return -1;
	if (!flits) {
		snprintf(err, len, "flits=0: must be 1..%d", QSIM_MAX_FLITS);
		return -1;
	}
	if (check_unused(a, err, len))
		return -1;
	p.flits = flits;
	/* RDS is only carried by DRS data responses, opcodes 0-2. */
	if (p.mc != QPI_MC_DRS || opc > 2)
		rds = 0;
	p.pkt0 = (u32)vnw << QPI_MM0_VNW_SHIFT | (u32)opc << QPI_MM0_OPC_SHIFT |
		 (u32)p.mc << QPI_MM0_MC_SHIFT |
		 (u32)dnid << QPI_MM0_DNID_SHIFT |
		 ((rnid & 0x10) ? QPI_MM0_RNID4 : 0);
	p.pkt1 = (rnid & QPI_MM1_RNID30) | (u32)rds << QPI_MM1_RDS_SHIFT;
	p.cto = qsim_mm_match(box, p.pkt0, p.pkt1);
	run_batch(box, packet_cycles(p.count, p.flits), packet_segs, &p);
	/*
	 * What a port sends, the far end of its link receives, in the same
	 * cycles (Documentation/qpisim.rst, "Link map").
	 */
	if (!p.rx && box->peer) {
		p.rx = true;
		p.cto = qsim_mm_match(box->peer, p.pkt0, p.pkt1);
		run_batch(box->peer, packet_cycles(p.count, p.flits),
			  packet_segs, &p);
	}
	return 0;
}

/**
 * qsim_exec() - run one command line written to the inject file
 * @sim: the model
 * @line: the command; tokenised in place
 * @err: where a one-line reason goes on failure
 * @len: size of @err
 *
 * Return: 0, or -1 with @err naming the offending field.  A failing command
 * changes nothing.
 */
int qsim_exec(struct qsim *sim, char *line, char *err, size_t len)
{
	struct qsim_args a;
	char none[1] = "";
	char *verb;

	while (*line == ' ' || *line == '\t')
		line++;
	verb = strsep(&line, " \t\n");
	if (!verb || !*verb) {
		snprintf(err, len,
			 "empty command; use 'event ...', 'packet ...' or 'rate ...'");
		return -1;
	}
	if (split_args(line ? line : none, &a, err, len))
		return -1;
	if (!strcmp(verb, "event"))
		return exec_event(sim, &a, err, len);
	if (!strcmp(verb, "packet"))
		return exec_packet(sim, &a, err, len);
	if (!strcmp(verb, "rate"))
		return exec_rate(sim, &a, err, len);
	snprintf(err, len,
		 "unknown command '%s'; use 'event', 'packet' or 'rate'", verb);
	return -1;
}

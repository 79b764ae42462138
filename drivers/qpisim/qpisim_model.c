// SPDX-License-Identifier: GPL-2.0
/*
 * qpisim register and counting model: the config space of every simulated
 * function, and its counters, counted in closed form.
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
 * Plain C over struct qsim, so the very code that answers config cycles in
 * the guest also runs in the host unit tests.  Counting is evaluated in
 * closed form over runs of per-cycle increments, which keeps an injection of
 * 2^47 events as cheap as one of ten and lets tests demand exact counts for
 * threshold, invert and edge detection.
 */

/*
 * A PCI Express capability (RC integrated endpoint) makes the PCI core size
 * config space at 4 KiB, as on the real parts: the mask/match registers at
 * 0x228 would be out of reach of sysfs and lspci otherwise.
 */
#define QSIM_CAP_PTR		0x60
#define QSIM_CAP_END		0xa0
#define QSIM_REVISION		0x04
#define QSIM_CLASS_PMON		0x110100	/* performance counters */
#define QSIM_CLASS_OTHER	0x088000	/* system peripheral */

#define UBOX_OV_R3QPI_SHIFT	8

static u64 ctr_mask(const struct qsim_box *box)
{
	return (1ULL << box->desc->width) - 1;
}

static u8 ctl_thresh(u32 ctl)
{
	return (ctl & UNC_CTL_THRESH) >> UNC_CTL_THRESH_SHIFT;
}

/*
 * Count one pass over a pattern through the comparator.  @cmp holds the raw
 * comparison (increment >= thresh) of the previous cycle; invert flips what is
 * counted, so with edge detection an inverted counter sees the falling edges
 * of the raw comparison, as Table 2-86 describes.
 */
static u64 eval_pass(const struct qsim_seg *seg, u8 thresh, bool inv,
		     bool edge, bool *cmp)
{
	bool prev = *cmp != inv;
	u64 n = 0;
	u32 k;

	for (k = 0; k < seg->len; k++) {
		bool raw = seg->pattern[k] >= thresh;
		bool cond = raw != inv;

		if (edge ? cond && !prev : cond)
			n++;
		prev = cond;
		*cmp = raw;
	}
	return n;
}

/**
 * qsim_eval() - events a counter with control @ctl adds over @segs
 * @ctl: counter control value
 * @segs: runs of per-cycle increments
 * @nsegs: number of runs
 * @cmp: comparator state, carried from cycle to cycle
 *
 * With thresh 0 the compare stage is bypassed and the raw increments are
 * summed; the guides leave invert and edge undefined in that case, and the
 * model ignores them.  A repeated pattern is walked at most twice: after the
 * first pass the comparator always enters the pattern in the same state, so
 * every later pass counts the same.
 */
u64 qsim_eval(u32 ctl, const struct qsim_seg *segs, unsigned int nsegs,
	      bool *cmp)
{
	u8 thresh = ctl_thresh(ctl);
	bool inv = ctl & UNC_CTL_INVERT;
	bool edge = ctl & UNC_CTL_EDGE_DET;
	u64 total = 0;
	unsigned int i;
	u32 k;

	for (i = 0; i < nsegs; i++) {
		const struct qsim_seg *seg = &segs[i];
		u64 first;

		if (!seg->repeat || !seg->len)
			continue;
		if (!thresh) {
			u64 sum = 0;

			for (k = 0; k < seg->len; k++)
				sum += seg->pattern[k];
			total += sum * seg->repeat;
			continue;
		}
		first = eval_pass(seg, thresh, inv, edge, cmp);
		total += first;
		if (seg->repeat > 1)
			total += (seg->repeat - 1) *
				 eval_pass(seg, thresh, inv, edge, cmp);
	}
	return total;
}

bool qsim_box_frozen(const struct qsim_box *box)
{
	return box->frz_en && (box->frz || box->sock->freeze);
}

bool qsim_ctr_counting(const struct qsim_box *box, unsigned int i)
{
	return (box->ctl[i] & UNC_CTL_EN) && !qsim_box_frozen(box);
}

static u32 ubox_ov_bit(const struct qsim_box *box)
{
	if (box->type == QSIM_BOX_QPI)
		return BIT(box->idx);
	return BIT(UBOX_OV_R3QPI_SHIFT + box->idx);
}

/* Add @v to counter @i: wrap at the counter width, and report overflow. */
void qsim_ctr_add(struct qsim_box *box, unsigned int i, u64 v)
{
	u64 mask = ctr_mask(box);
	u64 room = mask + 1 - box->ctr[i];

	if (!v)
		return;
	if (v >= room) {
		box->overflows += 1 + ((v - room) >> box->desc->width);
		if (box->desc->has_ov && (box->ctl[i] & UNC_CTL_OV_EN)) {
			box->status |= BIT(i);
			box->sock->ubox_ov |= ubox_ov_bit(box);
			box->sock->ov_pending = true;
		}
	}
	box->ctr[i] = (box->ctr[i] + v) & mask;
}

/*
 * The UBox freezes counting in answer to an overflow message only after the
 * batch that caused it, so counting continues between overflow and freeze.
 */
void qsim_batch_end(struct qsim_socket *sock)
{
	if (sock->ov_pending && sock->freeze_on_ov)
		sock->freeze = true;
	sock->ov_pending = false;
	qsim_freeze_track(sock);
}

/* ---- traffic at a rate, and the time boxes spend frozen ---- */

/**
 * qsim_accrue() - events of @st that arrive in the next @dt ns
 * @st: the stream; its fraction of an event carries to the next call
 * @dt: nanoseconds
 *
 * Exact: the events of consecutive spans add up to floor(total ns x per_s /
 * 10^9) from the stream's start, however the time is split.  Whole seconds
 * are taken apart so the product stays below 2^64 for any rate up to
 * QSIM_MAX_RATE.
 */
u64 qsim_accrue(struct qsim_stream *st, u64 dt)
{
	u64 secs = dt / QSIM_NS_PER_S;
	u64 part = (dt % QSIM_NS_PER_S) * st->per_s + st->frac;

	st->frac = part % QSIM_NS_PER_S;
	return secs * st->per_s + part / QSIM_NS_PER_S;
}

/* Does counter control @ctl select the events of @st? */
static bool stream_selects(const struct qsim_stream *st, u32 ctl)
{
	u8 umask = (ctl & UNC_CTL_UMASK) >> UNC_CTL_UMASK_SHIFT;

	return (ctl & UNC_CTL_EV_SEL) == st->event &&
	       !(ctl & UNC_CTL_EV_SEL_EXT) == !st->ext &&
	       (!st->umask || (umask & st->umask));
}

/**
 * qsim_rx_flit_event() - is (@event, @ext) one of RxL_FLITS_G0, G1, G2?
 * @event: ev_sel
 * @ext: ev_sel_ext
 */
bool qsim_rx_flit_event(u8 event, bool ext)
{
	if (!ext)
		return event == QPI_EV_RXL_FLITS_G0;
	return event == QPI_EV_RXL_FLITS_G1 || event == QPI_EV_RXL_FLITS_G2;
}

/* The Rx flit event that counts at the far end what (@event, @ext) sends. */
static bool tx_flit_peer_event(u8 event, bool ext, u8 *rx_event)
{
	if (!ext && event == QPI_EV_TXL_FLITS_G0)
		*rx_event = QPI_EV_RXL_FLITS_G0;
	else if (ext && event == QPI_EV_TXL_FLITS_G1)
		*rx_event = QPI_EV_RXL_FLITS_G1;
	else if (ext && event == QPI_EV_TXL_FLITS_G2)
		*rx_event = QPI_EV_RXL_FLITS_G2;
	else
		return false;
	return true;
}

/**
 * qsim_scale_pct() - @pct percent of @n events, the remainder carried
 * @frac: hundredths of an event carried from the last call, updated
 * @n: events
 * @pct: percentage, at most 200
 *
 * Exact: the results of consecutive calls with one @pct add up to
 * floor(sum of n x pct / 100) however the events are split.  @n is taken
 * apart in hundreds so that no product overflows.
 */
u64 qsim_scale_pct(u32 *frac, u64 n, u32 pct)
{
	u64 part = (n % 100) * pct + *frac;

	*frac = part % 100;
	return (n / 100) * pct + part / 100;
}

static const u8 qsim_res_event[QSIM_NR_RES] = {
	[QSIM_RES_L0P_TX] = QPI_EV_TXL0P_POWER_CYCLES,
	[QSIM_RES_L0P_RX] = QPI_EV_RXL0P_POWER_CYCLES,
	[QSIM_RES_L1] = QPI_EV_L1_POWER_CYCLES,
};

/**
 * qsim_residency_of() - the residency event a control selects
 * @box: the box
 * @ctl: counter control
 *
 * Return: an enum qsim_residency, or -1 if @ctl selects none (or @box is
 * not a QPI port).  The events have umask 0: any umask selects them.
 */
int qsim_residency_of(const struct qsim_box *box, u32 ctl)
{
	int k;

	if (box->type != QSIM_BOX_QPI || (ctl & UNC_CTL_EV_SEL_EXT))
		return -1;
	for (k = 0; k < QSIM_NR_RES; k++)
		if ((ctl & UNC_CTL_EV_SEL) == qsim_res_event[k])
			return k;
	return -1;
}

/**
 * qsim_residency() - the power-state cycles of @cycles clockticks of @box
 * @box: a QPI port; its carried fractions are updated
 * @cycles: clockticks the box gets
 * @res: out, cycles in each enum qsim_residency state
 *
 * Each state's share of the port's clockticks, rounded down with the
 * remainder carried (qsim_scale_pct()), so the states' cycles over any
 * series of clockticks are exactly their share of the total.
 */
void qsim_residency(struct qsim_box *box, u64 cycles, u64 *res)
{
	int k;

	for (k = 0; k < QSIM_NR_RES; k++)
		res[k] = box->type == QSIM_BOX_QPI ?
			 qsim_scale_pct(&box->res_frac[k], cycles,
					box->res_pct[k]) : 0;
}

/*
 * Deliver @n events of @sel (its event, umask and ext) to every counter of
 * @box that selects them, as traffic at a rate: counters with a threshold
 * do not see it (it has no cycles), disabled and frozen counters lose it.
 */
static void deliver(struct qsim_box *box, const struct qsim_stream *sel,
		    u64 n)
{
	unsigned int i;

	if (!n)
		return;
	for (i = 0; i < box->desc->nr_ctrs; i++) {
		if (!box->ctl[i] || ctl_thresh(box->ctl[i]) ||
		    !stream_selects(sel, box->ctl[i]))
			continue;
		box->ctr_arrived[i] += n;
		if (qsim_ctr_counting(box, i))
			qsim_ctr_add(box, i, n);
		else
			box->ctr_lost[i] += n;
	}
}

/*
 * @n events of stream @st of @box arrived: its own counters see them (Rx
 * flit events scaled by the port's rx_count_pct), the far end of a wired
 * port sees a Tx flit stream as the matching Rx flit events (scaled by
 * that end's rx_count_pct), and clockticks bring the port's residency
 * cycles.
 */
static void deliver_stream(struct qsim_box *box, struct qsim_stream *st,
			   u64 n)
{
	struct qsim_stream sel = { .umask = st->umask, .ext = st->ext };
	u64 res[QSIM_NR_RES];
	int k;

	if (box->type != QSIM_BOX_QPI) {
		deliver(box, st, n);
		return;
	}
	if (qsim_rx_flit_event(st->event, st->ext))
		deliver(box, st, qsim_scale_pct(&st->pct_frac, n,
						box->rx_count_pct));
	else
		deliver(box, st, n);
	if (box->peer && tx_flit_peer_event(st->event, st->ext, &sel.event))
		deliver(box->peer, &sel,
			qsim_scale_pct(&st->pct_frac, n,
				       box->peer->rx_count_pct));
	if (st->event != box->desc->clockticks || st->ext)
		return;
	qsim_residency(box, n, res);
	sel.umask = 0;
	sel.ext = false;
	for (k = 0; k < QSIM_NR_RES; k++) {
		sel.event = qsim_res_event[k];
		deliver(box, &sel, res[k]);
	}
}

/*
 * The boxes' state does not change between two calls (only config
 * accesses, injections and the debugfs knobs change it, and the glue
 * advances before each), so what arrived in between meets each box as the
 * last call left it, the far end of a link included.
 */
static void advance_box(struct qsim_box *box, u64 dt)
{
	bool frozen = qsim_box_frozen(box);
	unsigned int k;

	if (frozen)
		box->frozen.ns += dt;
	for (k = 0; k <= QSIM_MAX_STREAMS; k++) {
		struct qsim_stream *st = k < QSIM_MAX_STREAMS ?
					 &box->streams[k] : &box->clock;
		u64 n;

		if (!st->used || !st->per_s)
			continue;
		n = qsim_accrue(st, dt);
		st->arrived += n;
		if (frozen)
			st->lost += n;
		deliver_stream(box, st, n);
	}
}

/**
 * qsim_advance() - let time pass up to @now
 * @sim: the model
 * @now: nanoseconds, from any clock that does not go backwards
 *
 * The glue calls it, under the model lock, before every config access,
 * injection and debugfs read of state.  A socket's freeze on overflow takes
 * effect once all boxes are brought up to @now (a link's far end may be
 * on another socket).
 */
void qsim_advance(struct qsim *sim, u64 now)
{
	u64 dt = now > sim->now ? now - sim->now : 0;
	unsigned int s, i;

	if (!dt)
		return;
	sim->now = now;
	for (s = 0; s < sim->nr_sockets; s++) {
		struct qsim_socket *sock = &sim->sock[s];

		for (i = 0; i < sock->nr_ports; i++)
			advance_box(&sock->qpi[i], dt);
		for (i = 0; i < sock->nr_links; i++)
			advance_box(&sock->r3qpi[i], dt);
	}
	for (s = 0; s < sim->nr_sockets; s++)
		qsim_batch_end(&sim->sock[s]);
}

static void track_box(struct qsim_box *box)
{
	bool frozen = qsim_box_frozen(box);
	struct qsim_frozen *f = &box->frozen;
	u64 now = box->sock->sim->now;

	if (frozen == box->was_frozen)
		return;
	box->was_frozen = frozen;
	if (frozen) {
		f->windows++;
		box->win_start = now;
		box->win_accesses = 0;
		return;
	}
	if (box->win_accesses > f->max_accesses)
		f->max_accesses = box->win_accesses;
	f->hist[box->win_accesses < QSIM_WIN_HIST ? box->win_accesses :
		QSIM_WIN_HIST - 1]++;
	if (now - box->win_start > f->max_ns)
		f->max_ns = now - box->win_start;
}

/* Open or close the frozen windows of @sock's boxes after a state change. */
void qsim_freeze_track(struct qsim_socket *sock)
{
	unsigned int i;

	for (i = 0; i < sock->nr_ports; i++)
		track_box(&sock->qpi[i]);
	for (i = 0; i < sock->nr_links; i++)
		track_box(&sock->r3qpi[i]);
}

/*
 * Zero the frozen statistics and the streams' and counters' counts of
 * traffic at a rate; streams stopped with
 * per_s=0 are forgotten.  A window in progress counts on from now.
 */
void qsim_frozen_reset(struct qsim_box *box)
{
	unsigned int k;

	memset(&box->frozen, 0, sizeof(box->frozen));
	memset(box->ctr_arrived, 0, sizeof(box->ctr_arrived));
	memset(box->ctr_lost, 0, sizeof(box->ctr_lost));
	box->win_start = box->sock->sim->now;
	box->win_accesses = 0;
	for (k = 0; k < QSIM_MAX_STREAMS; k++) {
		struct qsim_stream *st = &box->streams[k];

		st->arrived = 0;
		st->lost = 0;
		if (!st->per_s)
			memset(st, 0, sizeof(*st));
	}
}

/* An access that finds its box frozen is part of the window. */
static void count_access(struct qsim_fn *fn)
{
	struct qsim_box *box = fn->box;

	if (!box || !qsim_box_frozen(box))
		return;
	box->frozen.accesses++;
	box->win_accesses++;
}

/* Opt-in fast mode: every access moves every counting counter of the box. */
static void fast_advance(struct qsim_fn *fn)
{
	struct qsim_box *box = fn->box;
	u32 k = fn->sock->sim->fast_count;
	unsigned int i;

	if (!k || !box || fn->kind == QSIM_FN_QPI_MM)
		return;
	for (i = 0; i < box->desc->nr_ctrs; i++)
		if (qsim_ctr_counting(box, i))
			qsim_ctr_add(box, i, k);
	qsim_batch_end(fn->sock);
}

static bool fn_is_pmon(const struct qsim_fn *fn)
{
	return fn->kind == QSIM_FN_QPI_PMON || fn->kind == QSIM_FN_R3QPI;
}

static u32 header_read(const struct qsim_fn *fn, int where)
{
	u32 class = fn_is_pmon(fn) ? QSIM_CLASS_PMON : QSIM_CLASS_OTHER;

	switch (where) {
	case PCI_VENDOR_ID:
		return (u32)fn->device << 16 | QPI_PCI_VENDOR_INTEL;
	case PCI_COMMAND:
		return (u32)PCI_STATUS_CAP_LIST << 16 | fn->command;
	case PCI_CLASS_REVISION:
		return class << 8 | QSIM_REVISION;
	case PCI_CACHE_LINE_SIZE:
		/* Multi-function, so the scan looks past function 0. */
		return 0x80 << (8 * (PCI_HEADER_TYPE - PCI_CACHE_LINE_SIZE));
	case PCI_SUBSYSTEM_VENDOR_ID:
		return QPI_PCI_VENDOR_INTEL;
	case PCI_CAPABILITY_LIST:
		return QSIM_CAP_PTR;
	case QSIM_CAP_PTR:
		return (u32)(PCI_EXP_TYPE_RC_END << 4 | 2) << 16 | PCI_CAP_ID_EXP;
	}
	return 0;
}

static u32 pmon_read(const struct qsim_box *box, unsigned int where)
{
	unsigned int i;

	for (i = 0; i < box->desc->nr_ctrs; i++) {
		if (where == UNC_PCI_PMON_CTL(i))
			return box->ctl[i];
		if (where == UNC_PCI_PMON_CTR(i))
			return (u32)box->ctr[i];
		if (where == UNC_PCI_PMON_CTR(i) + 4)
			return box->ctr[i] >> 32;
	}
	if (where == UNC_PCI_PMON_BOX_STATUS)
		return box->status;
	/* BOX_CTL is write-only and reads as zero. */
	return 0;
}

static u32 mm_read(const struct qsim_box *box, int where)
{
	switch (where) {
	case QPI_MM_MATCH0:
		return box->match[0];
	case QPI_MM_MATCH1:
		return box->match[1];
	case QPI_MM_MASK0:
		return box->mask[0];
	case QPI_MM_MASK1:
		return box->mask[1];
	}
	return 0;
}

/* The current dword at @where, without side effects or accounting. */
static u32 dword_read(const struct qsim_fn *fn, int where)
{
	if (where < 0x40 || (where >= QSIM_CAP_PTR && where < QSIM_CAP_END))
		return header_read(fn, where);

	switch (fn->kind) {
	case QSIM_FN_UBOX:
		if (where == UBOX_CPUNODEID)
			return fn->sock->node_id;
		if (where == UBOX_GIDNIDMAP)
			return fn->sock->gidnidmap;
		return 0;
	case QSIM_FN_QPI_MISC:
		/* a link that did not train reports no rate (*unverified*) */
		if (where == QPI_RATE_STATUS)
			return fn->sock->qpi[fn->idx].link_down ? 0 :
			       fn->sock->sim->qpi_rate;
		return qsim_link_reg(&fn->sock->qpi[fn->idx], where);
	case QSIM_FN_QPI_PMON:
	case QSIM_FN_R3QPI:
		return pmon_read(fn->box, where);
	case QSIM_FN_QPI_MM:
		return mm_read(fn->box, where);
	case QSIM_FN_FILLER:
		break;
	}
	return 0;
}

static u32 size_mask(int size)
{
	return size == 4 ? ~0U : (1U << (8 * size)) - 1;
}

/*
 * A foreign writer (PCM, likwid in direct mode) reprograms every enabled
 * counter behind the driver's back; it acts between any two accesses.
 */
static void foreign_write(struct qsim_fn *fn)
{
	struct qsim_box *box = fn->box;
	unsigned int i;

	if (!fn->foreign_ctl || !box || fn->kind == QSIM_FN_QPI_MM)
		return;
	for (i = 0; i < box->desc->nr_ctrs; i++)
		if ((box->ctl[i] & UNC_CTL_EN) &&
		    box->ctl[i] != (fn->foreign_ctl & box->desc->ctl_valid)) {
			box->ctl[i] = fn->foreign_ctl & box->desc->ctl_valid &
				      ~UNC_CTL_RST;
			box->cmp[i] = false;
		}
}

u32 qsim_cfg_read(struct qsim_fn *fn, int where, int size)
{
	int shift = 8 * (where & 3);

	fn->reads++;
	count_access(fn);
	if (fn->all_ones)
		return size_mask(size);
	fast_advance(fn);
	foreign_write(fn);
	return (dword_read(fn, where & ~3) >> shift) & size_mask(size);
}

static void ctl_write(struct qsim_fn *fn, unsigned int i, u32 val)
{
	struct qsim_box *box = fn->box;
	u32 valid = box->desc->ctl_valid;

	if (val & ~valid)
		fn->rsvd_writes++;
	if ((val & (UNC_CTL_INVERT | UNC_CTL_EDGE_DET)) && !ctl_thresh(val))
		fn->undef_writes++;
	if (val & UNC_CTL_RST)
		box->ctr[i] = 0;
	box->ctl[i] = val & valid & ~UNC_CTL_RST;
	box->cmp[i] = false;
}

static void box_ctl_write(struct qsim_fn *fn, u32 val)
{
	struct qsim_box *box = fn->box;
	unsigned int i;

	if (val & ~UNC_BOX_CTL_VALID)
		fn->rsvd_writes++;
	for (i = 0; i < box->desc->nr_ctrs; i++) {
		if (val & UNC_BOX_CTL_RST_CTRL) {
			box->ctl[i] = 0;
			box->cmp[i] = false;
		}
		if (val & UNC_BOX_CTL_RST_CTRS)
			box->ctr[i] = 0;
	}
	box->frz = val & UNC_BOX_CTL_FRZ;
	box->frz_en = val & UNC_BOX_CTL_FRZ_EN;
}

/* Returns false when @where is not a writable register of the box. */
static bool pmon_write(struct qsim_fn *fn, unsigned int where, u32 val)
{
	struct qsim_box *box = fn->box;
	unsigned int i;
	u32 hi_valid;

	for (i = 0; i < box->desc->nr_ctrs; i++) {
		if (where == UNC_PCI_PMON_CTL(i)) {
			ctl_write(fn, i, val);
			return true;
		}
		if (where == UNC_PCI_PMON_CTR(i)) {
			box->ctr[i] = (box->ctr[i] & ~0xffffffffULL) | val;
			return true;
		}
		if (where == UNC_PCI_PMON_CTR(i) + 4) {
			hi_valid = (u32)(ctr_mask(box) >> 32);
			if (val & ~hi_valid)
				fn->rsvd_writes++;
			box->ctr[i] = (box->ctr[i] & 0xffffffffULL) |
				      (u64)(val & hi_valid) << 32;
			return true;
		}
	}
	if (where == UNC_PCI_PMON_BOX_CTL) {
		box_ctl_write(fn, val);
		return true;
	}
	if (where == UNC_PCI_PMON_BOX_STATUS) {
		u32 valid = BIT(box->desc->nr_ctrs) - 1;

		if (val & ~valid)
			fn->rsvd_writes++;
		box->status &= ~val;
		return true;
	}
	return false;
}

static bool mm_write(struct qsim_fn *fn, int where, u32 val)
{
	struct qsim_box *box = fn->box;
	u32 *reg, valid;

	switch (where) {
	case QPI_MM_MATCH0:
		reg = &box->match[0];
		valid = QPI_MM0_VALID;
		break;
	case QPI_MM_MATCH1:
		reg = &box->match[1];
		valid = QPI_MM1_VALID;
		break;
	case QPI_MM_MASK0:
		reg = &box->mask[0];
		valid = QPI_MM0_VALID;
		break;
	case QPI_MM_MASK1:
		reg = &box->mask[1];
		valid = QPI_MM1_VALID;
		break;
	default:
		return false;
	}
	if (val & ~valid)
		fn->rsvd_writes++;
	*reg = val & valid;
	return true;
}

static void log_write(struct qsim_fn *fn, int where, int size, u32 val)
{
	struct qsim *sim = fn->sock->sim;
	struct qsim_log_entry *e = &sim->log[sim->log_seq % QSIM_LOG_SIZE];

	e->seq = sim->log_seq++;
	e->socket = fn->sock->id;
	e->bus = fn->sock->bus;
	e->devfn = fn->devfn;
	e->size = size;
	e->where = where;
	e->val = val;
}

void qsim_log_clear(struct qsim *sim)
{
	sim->log_seq = 0;
	memset(sim->log, 0, sizeof(sim->log));
}

void qsim_cfg_write(struct qsim_fn *fn, int where, int size, u32 val)
{
	int base = where & ~3;
	int shift = 8 * (where & 3);
	bool done = false;

	fn->writes++;
	count_access(fn);
	log_write(fn, where, size, val);
	if (fn->all_ones)
		return;
	fast_advance(fn);
	/* Locked PMON registers: the header still works (it is not PMON). */
	if (fn->ignore_writes && where >= 0x40) {
		fn->ignored_writes++;
		return;
	}

	/* A narrow write updates its bytes of what the dword reads back as. */
	if (size != 4)
		val = (dword_read(fn, base) & ~(size_mask(size) << shift)) |
		      (val & size_mask(size)) << shift;

	if (base < 0x40) {
		if (base == PCI_COMMAND)
			fn->command = val;
		return;
	}
	if (base >= QSIM_CAP_PTR && base < QSIM_CAP_END)
		return;
	if (fn_is_pmon(fn)) {
		done = pmon_write(fn, base, val);
		qsim_freeze_track(fn->sock);
	} else if (fn->kind == QSIM_FN_QPI_MM) {
		done = mm_write(fn, base, val);
	}
	/* Read-only and unimplemented registers: the write is a violation. */
	if (!done)
		fn->rsvd_writes++;
	foreign_write(fn);
}

/* Link layer clock: speed / 4 flits a second, two flits a cycle. */
u64 qsim_link_clock_hz(u8 rate_code)
{
	if (rate_code < 2 || rate_code > QPI_RATE_STATUS_CODE)
		return 0;
	/* (5.6 + 0.8 (code - 2)) GT/s / 8 */
	return (56 + 8 * (rate_code - 2)) * 12500000ULL;
}

static void link_clock_update(struct qsim_box *box)
{
	struct qsim *sim = box->sock->sim;

	box->clock.used = true;
	box->clock.event = QPI_EV_CLOCKTICKS;
	box->clock.per_s = sim->link_clock && !box->link_down ?
			   qsim_link_clock_hz(sim->qpi_rate) : 0;
}

/* The caller has advanced the model to now. */
void qsim_set_link_clock(struct qsim *sim, bool on)
{
	unsigned int s, i;

	sim->link_clock = on;
	for (s = 0; s < sim->nr_sockets; s++)
		for (i = 0; i < sim->sock[s].nr_ports; i++)
			link_clock_update(&sim->sock[s].qpi[i]);
}

void qsim_set_link_down(struct qsim_box *box, bool down)
{
	box->link_down = down;
	link_clock_update(box);
}

bool qsim_mm_match(const struct qsim_box *box, u32 pkt0, u32 pkt1)
{
	return !((pkt0 ^ box->match[0]) & box->mask[0] & QPI_MM0_VALID) &&
	       !((pkt1 ^ box->match[1]) & box->mask[1] & QPI_MM1_VALID);
}

/* ---- topology ---- */

static struct qsim_fn *add_fn(struct qsim_socket *sock, enum qsim_fn_kind kind,
			      u8 idx, const struct qsim_devid *id,
			      struct qsim_box *box)
{
	struct qsim_fn *fn;

	if (!id->device || sock->nr_fns >= QSIM_MAX_FNS ||
	    (sock->sim->hide & BIT(kind)))
		return NULL;
	fn = &sock->fns[sock->nr_fns++];
	fn->sock = sock;
	fn->kind = kind;
	fn->idx = idx;
	fn->devfn = id->devfn;
	fn->device = id->device;
	fn->present = true;
	fn->box = box;
	return fn;
}

static bool slot_used(const struct qsim_socket *sock, u8 slot, bool fn0)
{
	unsigned int i;

	for (i = 0; i < sock->nr_fns; i++)
		if (PCI_SLOT(sock->fns[i].devfn) == slot &&
		    (!fn0 || PCI_FUNC(sock->fns[i].devfn) == 0))
			return true;
	return false;
}

static void init_box(struct qsim_box *box, struct qsim_socket *sock,
		     enum qsim_box_type type, u8 idx)
{
	const struct qsim_platform *plat = sock->sim->plat;

	box->sock = sock;
	box->type = type;
	box->idx = idx;
	box->desc = type == QSIM_BOX_QPI ? &plat->qpi_box : &plat->r3qpi_box;
	box->rx_count_pct = 100;
}

static void init_socket(struct qsim *sim, struct qsim_socket *sock,
			const struct qsim_config *cfg, u8 id)
{
	const struct qsim_platform *plat = sim->plat;
	unsigned int i;

	sock->sim = sim;
	sock->id = id;
	sock->bus = cfg->buses[id];
	sock->node_id = cfg->node_ids[id];
	sock->nr_ports = cfg->nr_ports;
	sock->nr_links = cfg->nr_links;

	add_fn(sock, QSIM_FN_UBOX, 0, &plat->ubox, NULL);
	for (i = 0; i < cfg->nr_ports; i++) {
		init_box(&sock->qpi[i], sock, QSIM_BOX_QPI, i);
		add_fn(sock, QSIM_FN_QPI_MISC, i, &plat->qpi_misc[i], NULL);
		add_fn(sock, QSIM_FN_QPI_PMON, i, &plat->qpi[i], &sock->qpi[i]);
		add_fn(sock, QSIM_FN_QPI_MM, i, &plat->qpi_mm[i], &sock->qpi[i]);
	}
	for (i = 0; i < cfg->nr_links; i++) {
		init_box(&sock->r3qpi[i], sock, QSIM_BOX_R3QPI, i);
		add_fn(sock, QSIM_FN_R3QPI, i, &plat->r3qpi[i], &sock->r3qpi[i]);
	}
	for (i = 0; i < ARRAY_SIZE(plat->fillers); i++) {
		u8 slot = PCI_SLOT(plat->fillers[i].devfn);

		if (slot_used(sock, slot, false) && !slot_used(sock, slot, true))
			add_fn(sock, QSIM_FN_FILLER, 0, &plat->fillers[i], NULL);
	}
}

/*
 * GIDNIDMAP holds the node id of every group.  The groups beyond the sockets
 * get the unused node ids, so the map stays a permutation and no node id
 * matches two groups.
 */
static u32 make_gidnidmap(const struct qsim_config *cfg)
{
	u8 used = 0, next = 0;
	u32 map = 0;
	unsigned int g;

	for (g = 0; g < cfg->nr_sockets; g++)
		used |= BIT(cfg->node_ids[g]);
	for (g = 0; g < UBOX_MAX_GROUPS; g++) {
		u8 nid;

		if (g < cfg->nr_sockets) {
			nid = cfg->node_ids[g];
		} else {
			while (used & BIT(next))
				next++;
			nid = next++;
		}
		map |= (u32)nid << (UBOX_GIDNIDMAP_BITS * g);
	}
	return map;
}

/*
 * Real multi-socket parts put each socket's uncore on the last bus of an
 * equal share of the 256 buses: 0x7f/0xff for two sockets, 0x3f/0x7f/0xbf/0xff
 * for four.
 */
u8 qsim_default_bus(unsigned int nr_sockets, unsigned int s)
{
	unsigned int share = 256;

	while (share > 32 && 256 / share < nr_sockets)
		share /= 2;
	return share * (s + 1) - 1;
}

int qsim_init(struct qsim *sim, const struct qsim_config *cfg,
	      char *err, size_t errlen)
{
	const struct qsim_platform *plat = cfg->plat;
	u32 seen_bus[8] = { 0 };
	u8 seen_node = 0;
	unsigned int s;

	if (cfg->nr_sockets < 1 || cfg->nr_sockets > QSIM_MAX_SOCKETS) {
		snprintf(err, errlen, "sockets must be 1..%d", QSIM_MAX_SOCKETS);
		return -1;
	}
	if (cfg->nr_ports < 1 || cfg->nr_ports > plat->max_ports) {
		snprintf(err, errlen, "qpi_ports must be 1..%u on %s",
			 plat->max_ports, plat->name);
		return -1;
	}
	if (cfg->nr_links < 1 || cfg->nr_links > plat->max_links) {
		snprintf(err, errlen, "r3qpi_links must be 1..%u on %s",
			 plat->max_links, plat->name);
		return -1;
	}
	if (cfg->qpi_rate > QPI_RATE_STATUS_CODE) {
		snprintf(err, errlen, "qpi_rate must be 0..7");
		return -1;
	}
	for (s = 0; s < cfg->nr_sockets; s++) {
		u8 bus = cfg->buses[s], nid = cfg->node_ids[s];

		if (seen_bus[bus / 32] & BIT(bus % 32)) {
			snprintf(err, errlen,
				 "buses: socket %u has bus 0x%02x; buses must be distinct",
				 s, bus);
			return -1;
		}
		seen_bus[bus / 32] |= BIT(bus % 32);
		if (nid >= UBOX_MAX_GROUPS || (seen_node & BIT(nid))) {
			snprintf(err, errlen,
				 "node_ids: socket %u has node %u; node ids must be distinct and 0..7",
				 s, nid);
			return -1;
		}
		seen_node |= BIT(nid);
	}

	memset(sim, 0, sizeof(*sim));
	sim->plat = plat;
	sim->nr_sockets = cfg->nr_sockets;
	sim->qpi_rate = cfg->qpi_rate;
	sim->hide = cfg->hide;
	for (s = 0; s < cfg->nr_sockets; s++) {
		init_socket(sim, &sim->sock[s], cfg, s);
		sim->sock[s].gidnidmap = make_gidnidmap(cfg);
	}
	qsim_links_default(sim);
	return 0;
}

struct qsim_fn *qsim_find_fn(struct qsim *sim, u8 bus, u8 devfn)
{
	unsigned int s, i;

	for (s = 0; s < sim->nr_sockets; s++) {
		struct qsim_socket *sock = &sim->sock[s];

		if (sock->bus != bus)
			continue;
		for (i = 0; i < sock->nr_fns; i++)
			if (sock->fns[i].devfn == devfn && sock->fns[i].present)
				return &sock->fns[i];
	}
	return NULL;
}

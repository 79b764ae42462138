// SPDX-License-Identifier: GPL-2.0
/*
 * A box's registers as operations (reset, freeze, start, stop, read, filter,
 * status), one table per kind of box: a PCI function over cfg.c, an S-Box
 * over sbox_hw.c; and the box's lifetime.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include "qpi_uncore.h"

/*
 * Callers hold box->lock.  Once the box has been removed or stopped
 * answering like hardware (box->dead), nothing is written and reads fail.
 */
static int qpiu_box_rd(struct qpiu_box *box, unsigned int off, u32 *val)
{
	if (!box->pdev || box->dead)
		return -ENODEV;
	return qpiu_cfg_read(box->pdev, off, val);
}

static void qpiu_box_wr(struct qpiu_box *box, unsigned int off, u32 val)
{
	if (box->pdev && !box->dead)
		qpiu_cfg_write(box->pdev, off, val);
}

/* ---- a PCI function: the E5 QPI port and R3QPI link boxes ---- */

static void qpiu_pci_reset(struct qpiu_box *box)
{
	qpiu_box_wr(box, UNC_PCI_PMON_BOX_CTL, UNC_BOX_CTL_RST_CTRL |
		    UNC_BOX_CTL_RST_CTRS);
}

static void qpiu_pci_freeze(struct qpiu_box *box, bool freeze)
{
	qpiu_box_wr(box, UNC_PCI_PMON_BOX_CTL, box->box_ctl);
}

/* rst and en in one write: the counter starts from zero, in one access. */
static void qpiu_pci_enable(struct qpiu_box *box, int idx, u32 ctl)
{
	qpiu_box_wr(box, UNC_PCI_PMON_CTL(idx), ctl | UNC_CTL_EN | UNC_CTL_RST);
}

static void qpiu_pci_disable(struct qpiu_box *box, int idx, u32 ctl)
{
	qpiu_box_wr(box, UNC_PCI_PMON_CTL(idx), ctl);
}

/* Reads the dword at @off, the low or high half of a counter. */
static u32 qpiu_box_rd_dword(void *ctx, unsigned int off)
{
	u32 val;

	/* A failed access reads as a removed device does. */
	if (qpiu_box_rd(ctx, off, &val))
		return ~0U;
	return val;
}

static int qpiu_pci_read(struct qpiu_box *box, int idx, u64 *val)
{
	if (!box->pdev)
		return -ENODEV;
	return qpiu_read_counter(qpiu_box_rd_dword, box, UNC_PCI_PMON_CTR(idx),
				 box->pmu->desc->width, val);
}

static int qpiu_pci_read_ctl(struct qpiu_box *box, int idx, u32 *ctl)
{
	return qpiu_box_rd(box, UNC_PCI_PMON_CTL(idx), ctl);
}

/* The port's packet filter is a function of its own (box->mm). */
static void qpiu_pci_write_filter(struct qpiu_box *box, u64 match, u64 mask)
{
	qpiu_cfg_write(box->mm, QPI_MM_MATCH0, (u32)match);
	qpiu_cfg_write(box->mm, QPI_MM_MATCH1, match >> 32);
	qpiu_cfg_write(box->mm, QPI_MM_MASK0, (u32)mask);
	qpiu_cfg_write(box->mm, QPI_MM_MASK1, mask >> 32);
}

static void qpiu_pci_write_counter(struct qpiu_box *box, int idx, u64 val)
{
	qpiu_box_wr(box, UNC_PCI_PMON_CTR(idx), (u32)val);
	qpiu_box_wr(box, UNC_PCI_PMON_CTR(idx) + 4, val >> 32);
}

/* en without rst: the counter goes on from what was written to it */
static void qpiu_pci_start(struct qpiu_box *box, int idx, u32 ctl)
{
	qpiu_box_wr(box, UNC_PCI_PMON_CTL(idx), ctl | UNC_CTL_EN);
}

/* BOX_STATUS: one overflow bit per ov_en counter; 0 when unreadable. */
static u32 qpiu_pci_read_status(struct qpiu_box *box)
{
	u32 val;

	if (qpiu_box_rd(box, UNC_PCI_PMON_BOX_STATUS, &val))
		return 0;
	return val;
}

static void qpiu_pci_clear_status(struct qpiu_box *box, u32 bits)
{
	qpiu_box_wr(box, UNC_PCI_PMON_BOX_STATUS, bits);
}

static void qpiu_pci_detach(struct qpiu_box *box)
{
	if (box->pdev && !pci_dev_is_disconnected(box->pdev))
		qpiu_pci_reset(box);
	box->pdev = NULL;
}

const struct qpiu_box_ops qpiu_pci_box_ops = {
	.reset = qpiu_pci_reset,
	.freeze = qpiu_pci_freeze,
	.enable = qpiu_pci_enable,
	.disable = qpiu_pci_disable,
	.read = qpiu_pci_read,
	.read_ctl = qpiu_pci_read_ctl,
	.write_filter = qpiu_pci_write_filter,
	.detach = qpiu_pci_detach,
	.write_counter = qpiu_pci_write_counter,
	.start = qpiu_pci_start,
	.read_status = qpiu_pci_read_status,
	.clear_status = qpiu_pci_clear_status,
};

/* ---- a Xeon 7500 S-Box: MSRs, through sbox_hw.c ---- */

/* An S-Box access that faulted: the box is not what we think it is. */
static void qpiu_msr_result(struct qpiu_box *box, int err)
{
	if (err)
		qpiu_box_fault(box, err, "MSR access faulted");
}

static void qpiu_sbox_reset(struct qpiu_box *box)
{
	if (qpiu_sbox_init(&box->sbox))
		qpiu_box_fault(box, -EIO, "MSR write faulted");
}

static void qpiu_sbox_box_freeze(struct qpiu_box *box, bool freeze)
{
	qpiu_msr_result(box, qpiu_sbox_freeze(&box->sbox, freeze));
}

static void qpiu_sbox_enable(struct qpiu_box *box, int idx, u32 ctl)
{
	bool mm = qpiu_uses_filter(box->pmu->desc, ctl);

	qpiu_msr_result(box, qpiu_sbox_start(&box->sbox, idx, ctl, mm));
}

static void qpiu_sbox_disable(struct qpiu_box *box, int idx, u32 ctl)
{
	qpiu_msr_result(box, qpiu_sbox_stop(&box->sbox, idx, ctl));
}

static int qpiu_sbox_box_read(struct qpiu_box *box, int idx, u64 *val)
{
	return qpiu_sbox_read(&box->sbox, idx, val);
}

static int qpiu_sbox_box_read_ctl(struct qpiu_box *box, int idx, u32 *ctl)
{
	return qpiu_sbox_read_ctl(&box->sbox, idx, ctl);
}

static void qpiu_sbox_write_filter(struct qpiu_box *box, u64 match, u64 mask)
{
	qpiu_msr_result(box, qpiu_sbox_set_filter(&box->sbox, match, mask));
}

/*
 * No sampling operations: the S-Box's overflow goes to a PMI we do not
 * take and it has no BOX_STATUS; its PMUs count only (event_init says so).
 * Nothing to undo at detach: the module going resets nothing on MSRs that
 * no one else can own while we hold the PMU names.
 */
const struct qpiu_box_ops qpiu_sbox_box_ops = {
	.name = "S-Box",
	.reset = qpiu_sbox_reset,
	.freeze = qpiu_sbox_box_freeze,
	.enable = qpiu_sbox_enable,
	.disable = qpiu_sbox_disable,
	.read = qpiu_sbox_box_read,
	.read_ctl = qpiu_sbox_box_read_ctl,
	.write_filter = qpiu_sbox_write_filter,
};

/* ---- the operations the layers above call ---- */

/*
 * A missing operation is one this kind of box cannot do, and the layers
 * above never ask for it (event_init refuses sampling on such PMUs).  A
 * call anyway is a driver bug: say which, once, and do nothing.
 */
static bool qpiu_box_can(struct qpiu_box *box, const void *op,
			 const char *what)
{
	if (box->dead)
		return false;
	if (op)
		return true;
	WARN_ONCE(1, "%s: %s boxes cannot %s\n", box->pmu->name,
		  box->ops->name ?: "these", what);
	return false;
}

/*
 * Reset controls and counters.  BOX_CTL is write-only, so the shadow is the
 * only record of frz and frz_en.
 *
 * frz_en stays clear except while we freeze the box ourselves: an ov_en
 * overflow makes the UBox assert its global freeze (329468, 2.1.1.1), which
 * only boxes with frz_en obey and only the UBox global control MSR lifts.
 * Our counting events must not stop because a sampling one overflowed.
 */
void qpiu_box_init_hw(struct qpiu_box *box)
{
	box->box_ctl = 0;
	box->hold = 0;
	if (box->dead)
		return;
	box->ops->reset(box);
	/* Overflows a previous user left behind are not ours to report. */
	if (box->pmu->desc->has_ov_en)
		qpiu_box_clear_status(box, BIT(box->pmu->desc->nr_ctrs) - 1);
}

static void qpiu_box_freeze(struct qpiu_box *box, bool freeze)
{
	u32 frz = UNC_BOX_CTL_FRZ | UNC_BOX_CTL_FRZ_EN;
	u32 val = freeze ? box->box_ctl | frz : box->box_ctl & ~frz;

	if (val == box->box_ctl)
		return;
	box->box_ctl = val;
	if (!box->dead)
		box->ops->freeze(box, freeze);
}

/*
 * Freeze the box for @why (QPIU_HOLD_*), on top of any other reason it is
 * frozen for.  Every counter of the box stops, the ones of other users
 * (pinned events) included, so callers hold it only while several counters
 * must start or stop at one instant.
 */
void qpiu_box_hold(struct qpiu_box *box, u8 why)
{
	if (!box->hold)
		qpiu_box_freeze(box, true);
	box->hold |= why;
}

/* Drop reason @why; the box counts again when no reason is left. */
void qpiu_box_unhold(struct qpiu_box *box, u8 why)
{
	if (!(box->hold & why))
		return;
	box->hold &= ~why;
	if (!box->hold)
		qpiu_box_freeze(box, false);
}

void qpiu_box_enable_counter(struct qpiu_box *box, int idx, u32 ctl)
{
	if (!box->dead)
		box->ops->enable(box, idx, ctl);
}

void qpiu_box_disable_counter(struct qpiu_box *box, int idx, u32 ctl)
{
	if (!box->dead)
		box->ops->disable(box, idx, ctl);
}

int qpiu_box_read_counter(struct qpiu_box *box, int idx, u64 *val)
{
	if (box->dead)
		return -ENODEV;
	return box->ops->read(box, idx, val);
}

/*
 * Does running counter @idx, started with control @ctl, still hold what
 * the enable or start operation wrote (*@want)?  Both write en (bit 22 on
 * every kind of box, the S-Box's included).  rst, which enable sets, is
 * write-only and self-clearing (329468: "write 1 to clear this counter";
 * qpisim reads it as 0), so it is not compared.  Every other bit the
 * driver writes is one the guides document as read-write.  An unreadable
 * register, or one reading all ones (a removed or failing function, which
 * reading the counter reports), gives no verdict: true.
 */
bool qpiu_box_ctl_holds(struct qpiu_box *box, int idx, u32 ctl, u32 *want,
			u32 *found)
{
	u32 mask = ~(u32)UNC_CTL_RST;

	BUILD_BUG_ON(SBOX_CTL_EN != UNC_CTL_EN);
	*want = (ctl | UNC_CTL_EN) & mask;
	if (box->dead || !box->ops->read_ctl ||
	    box->ops->read_ctl(box, idx, found) || *found == ~0U)
		return true;
	return (*found & mask) == *want;
}

/*
 * Sampling: start counter @idx from @val instead of zero.  The counter is
 * disabled (or the box frozen) while its two dwords are written, so no carry
 * falls between them.
 */
void qpiu_box_start_counter_at(struct qpiu_box *box, int idx, u32 ctl,
			       u64 val)
{
	if (!qpiu_box_can(box, box->ops->start, "start a counter from a value"))
		return;
	box->ops->write_counter(box, idx, val);
	box->ops->start(box, idx, ctl);
}

void qpiu_box_write_counter(struct qpiu_box *box, int idx, u64 val)
{
	if (qpiu_box_can(box, box->ops->write_counter, "write a counter"))
		box->ops->write_counter(box, idx, val);
}

/* Sampling: counter @idx, disabled, goes on from the value it holds. */
void qpiu_box_start_counter(struct qpiu_box *box, int idx, u32 ctl)
{
	if (qpiu_box_can(box, box->ops->start, "start a counter from a value"))
		box->ops->start(box, idx, ctl);
}

/* One overflow bit per ov_en counter; 0 when unreadable. */
u32 qpiu_box_read_status(struct qpiu_box *box)
{
	if (!qpiu_box_can(box, box->ops->read_status, "read BOX_STATUS"))
		return 0;
	return box->ops->read_status(box) &
	       (BIT(box->pmu->desc->nr_ctrs) - 1);
}

/* Write 1 to clear; bits of counters the box lacks are reserved. */
void qpiu_box_clear_status(struct qpiu_box *box, u32 bits)
{
	bits &= BIT(box->pmu->desc->nr_ctrs) - 1;
	if (bits && qpiu_box_can(box, box->ops->clear_status,
				 "clear BOX_STATUS"))
		box->ops->clear_status(box, bits);
}

/*
 * Program the port's packet filter.  Callers guarantee no counting event
 * depends on the old value; registers already holding the value are not
 * written again.  A QPI port whose mask/match function is not there has
 * none to program.
 */
void qpiu_box_write_filter(struct qpiu_box *box, u64 match, u64 mask)
{
	if ((!box->mm && !box->msr) || box->dead)
		return;
	if (box->filter_known && box->filter_hw[0] == match &&
	    box->filter_hw[1] == mask)
		return;
	if (!qpiu_box_can(box, box->ops->write_filter, "filter packets"))
		return;
	box->ops->write_filter(box, match, mask);
	box->filter_hw[0] = match;
	box->filter_hw[1] = mask;
	box->filter_known = true;
}

/*
 * The function answered with bits no live counter has (all ones: removed
 * behind our back, or failing), or its counter moved faster than hardware
 * can.  Its values cannot be trusted any more: stop using it, keep the
 * counts gathered so far, and say so once.
 */
void qpiu_box_fault(struct qpiu_box *box, int err, const char *what)
{
	if (box->dead)
		return;
	box->dead = true;
	pr_err("%s: socket %u: %s %s; its events stop counting (err %d)\n",
	       box->pmu->name, box->socket,
	       box->ops->name ?: box->pdev ? pci_name(box->pdev) : "(removed)",
	       what, err);
}

/*
 * The function is going away: leave its counters reset for whoever drives
 * it next, then never touch it again.
 */
void qpiu_box_detach(struct qpiu_box *box)
{
	if (!box->dead && box->ops->detach)
		box->ops->detach(box);
	box->pdev = NULL;
	box->dead = true;
}

static void qpiu_box_release(struct kref *ref)
{
	struct qpiu_box *box = container_of(ref, struct qpiu_box, ref);

	kfree_rcu(box, rcu);
}

/* Boxes are freed after an RCU grace period: event_init looks them up. */
void qpiu_box_put(struct qpiu_box *box)
{
	kref_put(&box->ref, qpiu_box_release);
}

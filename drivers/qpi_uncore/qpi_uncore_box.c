// SPDX-License-Identifier: GPL-2.0
/*
 * A box's registers as operations (reset, freeze, start, stop, read, filter,
 * status) over cfg.c, or sbox_hw.c for an S-Box, and the box's lifetime.
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
	if (box->msr) {
		if (qpiu_sbox_init(&box->sbox))
			qpiu_box_fault(box, -EIO, "MSR write faulted");
		return;
	}
	qpiu_box_wr(box, UNC_PCI_PMON_BOX_CTL, UNC_BOX_CTL_RST_CTRL |
		    UNC_BOX_CTL_RST_CTRS);
	/* Overflows a previous user left behind are not ours to report. */
	if (box->pmu->desc->has_ov_en)
		qpiu_box_clear_status(box, BIT(box->pmu->desc->nr_ctrs) - 1);
}

/* An S-Box access that faulted: the box is not what we think it is. */
static void qpiu_msr_result(struct qpiu_box *box, int err)
{
	if (err)
		qpiu_box_fault(box, err, "MSR access faulted");
}

void qpiu_box_freeze(struct qpiu_box *box, bool freeze)
{
	u32 frz = UNC_BOX_CTL_FRZ | UNC_BOX_CTL_FRZ_EN;
	u32 val = freeze ? box->box_ctl | frz : box->box_ctl & ~frz;

	if (val == box->box_ctl)
		return;
	box->box_ctl = val;
	if (box->msr) {
		if (!box->dead)
			qpiu_msr_result(box, qpiu_sbox_freeze(&box->sbox, freeze));
		return;
	}
	qpiu_box_wr(box, UNC_PCI_PMON_BOX_CTL, val);
}

/* rst and en in one write: the counter starts from zero, in one access. */
void qpiu_box_enable_counter(struct qpiu_box *box, int idx, u32 ctl)
{
	if (box->msr) {
		bool mm = qpiu_uses_filter(box->pmu->desc, ctl);

		if (!box->dead)
			qpiu_msr_result(box, qpiu_sbox_start(&box->sbox, idx,
							     ctl, mm));
		return;
	}
	qpiu_box_wr(box, UNC_PCI_PMON_CTL(idx), ctl | UNC_CTL_EN | UNC_CTL_RST);
}

/*
 * Sampling: start counter @idx from @val instead of zero.  The counter is
 * disabled (or the box frozen) while its two dwords are written, so no carry
 * falls between them.
 */
void qpiu_box_start_counter_at(struct qpiu_box *box, int idx, u32 ctl,
			       u64 val)
{
	qpiu_box_write_counter(box, idx, val);
	qpiu_box_wr(box, UNC_PCI_PMON_CTL(idx), ctl | UNC_CTL_EN);
}

void qpiu_box_write_counter(struct qpiu_box *box, int idx, u64 val)
{
	qpiu_box_wr(box, UNC_PCI_PMON_CTR(idx), (u32)val);
	qpiu_box_wr(box, UNC_PCI_PMON_CTR(idx) + 4, val >> 32);
}

/* BOX_STATUS: one overflow bit per ov_en counter; 0 when unreadable. */
u32 qpiu_box_read_status(struct qpiu_box *box)
{
	u32 val;

	if (qpiu_box_rd(box, UNC_PCI_PMON_BOX_STATUS, &val))
		return 0;
	return val & (BIT(box->pmu->desc->nr_ctrs) - 1);
}

/* Write 1 to clear; bits of counters the box lacks are reserved. */
void qpiu_box_clear_status(struct qpiu_box *box, u32 bits)
{
	bits &= BIT(box->pmu->desc->nr_ctrs) - 1;
	if (bits)
		qpiu_box_wr(box, UNC_PCI_PMON_BOX_STATUS, bits);
}

void qpiu_box_disable_counter(struct qpiu_box *box, int idx, u32 ctl)
{
	if (box->msr) {
		if (!box->dead)
			qpiu_msr_result(box, qpiu_sbox_stop(&box->sbox, idx, ctl));
		return;
	}
	qpiu_box_wr(box, UNC_PCI_PMON_CTL(idx), ctl);
}

/*
 * Program the port's packet filter.  Callers guarantee no counting event
 * depends on the old value; registers already holding the value are not
 * written again.
 */
void qpiu_box_write_filter(struct qpiu_box *box, u64 match, u64 mask)
{
	if ((!box->mm && !box->msr) || box->dead)
		return;
	if (box->filter_known && box->filter_hw[0] == match &&
	    box->filter_hw[1] == mask)
		return;
	if (box->msr) {
		qpiu_msr_result(box, qpiu_sbox_set_filter(&box->sbox, match,
							  mask));
	} else {
		qpiu_cfg_write(box->mm, QPI_MM_MATCH0, (u32)match);
		qpiu_cfg_write(box->mm, QPI_MM_MATCH1, match >> 32);
		qpiu_cfg_write(box->mm, QPI_MM_MASK0, (u32)mask);
		qpiu_cfg_write(box->mm, QPI_MM_MASK1, mask >> 32);
	}
	box->filter_hw[0] = match;
	box->filter_hw[1] = mask;
	box->filter_known = true;
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

int qpiu_box_read_counter(struct qpiu_box *box, int idx, u64 *val)
{
	if (box->dead)
		return -ENODEV;
	if (box->msr)
		return qpiu_sbox_read(&box->sbox, idx, val);
	if (!box->pdev)
		return -ENODEV;
	return qpiu_read_counter(qpiu_box_rd_dword, box, UNC_PCI_PMON_CTR(idx),
				 box->pmu->desc->width, val);
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
	       box->msr ? "S-Box" :
	       box->pdev ? pci_name(box->pdev) : "(removed)", what, err);
}

/*
 * The function is going away: leave its counters reset for whoever drives
 * it next, then never touch it again.
 */
void qpiu_box_detach(struct qpiu_box *box)
{
	if (box->pdev && !pci_dev_is_disconnected(box->pdev))
		qpiu_box_wr(box, UNC_PCI_PMON_BOX_CTL, UNC_BOX_CTL_RST_CTRL |
			    UNC_BOX_CTL_RST_CTRS);
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

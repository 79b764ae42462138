// SPDX-License-Identifier: GPL-2.0
/*
 * qpi_uncore box code: every config-space access to a QPI or R3QPI PMON
 * function goes through here.  Callers hold box->lock; once the function has
 * been removed (box->pdev == NULL) or stopped answering like hardware
 * (box->dead), nothing is written and reads fail.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include "qpi_uncore.h"

int qpiu_box_rd(struct qpiu_box *box, unsigned int off, u32 *val)
{
	if (!box->pdev || box->dead)
		return -ENODEV;
	return pcibios_err_to_errno(pci_read_config_dword(box->pdev, off, val));
}

void qpiu_box_wr(struct qpiu_box *box, unsigned int off, u32 val)
{
	if (box->pdev && !box->dead)
		pci_write_config_dword(box->pdev, off, val);
}

/*
 * Reset controls and counters, and make the box honour freeze.  BOX_CTL is
 * write-only, so the shadow is the only record of frz and frz_en.
 */
void qpiu_box_init_hw(struct qpiu_box *box)
{
	box->box_ctl = UNC_BOX_CTL_FRZ_EN;
	qpiu_box_wr(box, UNC_PCI_PMON_BOX_CTL, UNC_BOX_CTL_RST_CTRL |
		    UNC_BOX_CTL_RST_CTRS | box->box_ctl);
}

void qpiu_box_freeze(struct qpiu_box *box, bool freeze)
{
	u32 val = freeze ? box->box_ctl | UNC_BOX_CTL_FRZ :
			   box->box_ctl & ~UNC_BOX_CTL_FRZ;

	if (val == box->box_ctl)
		return;
	box->box_ctl = val;
	qpiu_box_wr(box, UNC_PCI_PMON_BOX_CTL, val);
}

/* rst and en in one write: the counter starts from zero, in one access. */
void qpiu_box_enable_counter(struct qpiu_box *box, int idx, u32 ctl)
{
	qpiu_box_wr(box, UNC_PCI_PMON_CTL(idx), ctl | UNC_CTL_EN | UNC_CTL_RST);
}

void qpiu_box_disable_counter(struct qpiu_box *box, int idx, u32 ctl)
{
	qpiu_box_wr(box, UNC_PCI_PMON_CTL(idx), ctl);
}

/*
 * Program the port's packet filter.  Callers guarantee no counting event
 * depends on the old value; registers already holding the value are not
 * written again.
 */
void qpiu_box_write_filter(struct qpiu_box *box, u64 match, u64 mask)
{
	if (!box->mm || box->dead)
		return;
	if (box->filter_known && box->filter_hw[0] == match &&
	    box->filter_hw[1] == mask)
		return;
	pci_write_config_dword(box->mm, QPI_MM_MATCH0, (u32)match);
	pci_write_config_dword(box->mm, QPI_MM_MATCH1, match >> 32);
	pci_write_config_dword(box->mm, QPI_MM_MASK0, (u32)mask);
	pci_write_config_dword(box->mm, QPI_MM_MASK1, mask >> 32);
	box->filter_hw[0] = match;
	box->filter_hw[1] = mask;
	box->filter_known = true;
}

static u32 box_rd_dword(void *ctx, unsigned int off)
{
	u32 val;

	/* A failed access reads as a removed device does. */
	if (qpiu_box_rd(ctx, off, &val))
		return ~0U;
	return val;
}

int qpiu_box_read_counter(struct qpiu_box *box, int idx, u64 *val)
{
	if (!box->pdev || box->dead)
		return -ENODEV;
	return qpiu_read_counter(box_rd_dword, box, UNC_PCI_PMON_CTR(idx),
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
	       box->pdev ? pci_name(box->pdev) : "(removed)", what, err);
}

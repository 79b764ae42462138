// SPDX-License-Identifier: GPL-2.0
/*
 * Every hardware access of the driver: PCI config space (PMON, mask/match,
 * port function 0 and UBox functions) and the S-Box MSRs.
 */
#include <asm/msr.h>

#include "qpi_uncore.h"
#include "qpi_uncore_compat.h"

/*
 * Callers name the register on the line that calls in, so one grep in
 * drivers/qpi_uncore shows every register the driver reads or writes:
 *
 *  grep -nE 'qpiu_cfg_|qpiu_box_(rd|wr|rd_dword)\b|sb_(rd|wr)\(|sbox_msr\(' *.c
 *
 * qpiu_box_rd/wr (box.c, static) take a PMON offset of the box's function;
 * sb_rd/sb_wr (sbox_hw.c, static) an S-Box register, which reaches the MSR
 * ops at the end of this file through struct qpiu_msr_ops.
 */

int qpiu_cfg_read(struct pci_dev *pdev, unsigned int off, u32 *val)
{
	return pcibios_err_to_errno(pci_read_config_dword(pdev, off, val));
}

void qpiu_cfg_write(struct pci_dev *pdev, unsigned int off, u32 val)
{
	pci_write_config_dword(pdev, off, val);
}

/*
 * Function 0 of a QPI port's slot (not ours: no driver binds it) holds
 * QPI_RATE_STATUS and the link layer's registers.  Returned with a
 * reference, or NULL when the slot has no Intel function 0.
 */
struct pci_dev *qpiu_cfg_port_fn0(struct pci_dev *pdev)
{
	struct pci_dev *fn0;

	fn0 = pci_get_slot(pdev->bus, PCI_DEVFN(PCI_SLOT(pdev->devfn), 0));
	if (fn0 && fn0->vendor != PCI_VENDOR_ID_INTEL) {
		pci_dev_put(fn0);
		fn0 = NULL;
	}
	return fn0;
}

u8 qpiu_cfg_qpi_rate(struct pci_dev *fn0)
{
	u32 val = 0;

	if (fn0 && !qpiu_cfg_read(fn0, QPI_RATE_STATUS, &val) && val != ~0U)
		return val & QPI_RATE_STATUS_CODE;
	return 0;
}

/*
 * QPILS, QPILP0 and QPILP2 of a port, read at the moment: a link retrains
 * at any time and its parameters are cleared on every link-layer init.
 * All three all ones is a function that does not answer (removed, or
 * failing), not registers.
 */
int qpiu_cfg_read_lep(struct pci_dev *fn0, struct qpiu_lep *lep)
{
	if (qpiu_cfg_read(fn0, QPI_QPILS, &lep->qpils) ||
	    qpiu_cfg_read(fn0, QPI_QPILP0, &lep->qpilp0) ||
	    qpiu_cfg_read(fn0, QPI_QPILP2, &lep->qpilp2))
		return -EIO;
	if (lep->qpils == ~0U && lep->qpilp0 == ~0U && lep->qpilp2 == ~0U)
		return -EIO;
	return 0;
}

/*
 * S-Box MSRs belong to the socket: from process context they are accessed
 * on the socket's reader, in perf callbacks (interrupts off) on the CPU
 * running them, which is the reader.
 */
static int qpiu_msr_rd(void *ctx, u32 msr, u64 *val)
{
	struct qpiu_box *box = ctx;

	if (irqs_disabled())
		return qpiu_rdmsr_safe(msr, val);
	return qpiu_rdmsr_safe_on_cpu(box->cpu, msr, val);
}

static int qpiu_msr_wr(void *ctx, u32 msr, u64 val)
{
	struct qpiu_box *box = ctx;

	if (irqs_disabled())
		return qpiu_wrmsr_safe(msr, val);
	return qpiu_wrmsr_safe_on_cpu(box->cpu, msr, val);
}

/* Process context only: the S-Box probe, before any box exists. */
int qpiu_cfg_msr_read_on(int cpu, u32 msr, u64 *val)
{
	return qpiu_rdmsr_safe_on_cpu(cpu, msr, val);
}

int qpiu_cfg_msr_write_on(int cpu, u32 msr, u64 val)
{
	return qpiu_wrmsr_safe_on_cpu(cpu, msr, val);
}

const struct qpiu_msr_ops qpiu_msr_ops = {
	.rd = qpiu_msr_rd,
	.wr = qpiu_msr_wr,
};

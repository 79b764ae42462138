/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Register layout of the Intel Xeon uncore QPI link layer, R3QPI and UBox
 * PCI functions, shared by qpi_uncore, qpisim and the host unit tests.
 */
#ifndef _QPI_UNCORE_REGS_H
#define _QPI_UNCORE_REGS_H

#include "qpi_types.h"

/*
 * Sources: Intel 327043 (Xeon E5-2600 uncore guide), 329468 (E5-2600 v2),
 * and the team's reference notes (shared/reference/registers.md).  Facts the
 * guides do not state are marked "unverified" where they are defined.
 */

/* Per-box PMON registers, identical offsets in QPI ports and R3QPI links. */
#define UNC_PCI_PMON_CTR0		0xa0	/* CTRn at 0xa0 + 8n, low dword first */
#define UNC_PCI_PMON_CTL0		0xd8	/* CTLn at 0xd8 + 4n */
#define UNC_PCI_PMON_BOX_CTL		0xf4
#define UNC_PCI_PMON_BOX_STATUS		0xf8
#define UNC_PCI_PMON_CTR(i)		(UNC_PCI_PMON_CTR0 + 8 * (i))
#define UNC_PCI_PMON_CTL(i)		(UNC_PCI_PMON_CTL0 + 4 * (i))

/* BOX_CTL: all four bits are write-only; the register reads as zero. */
#define UNC_BOX_CTL_RST_CTRL		BIT(0)
#define UNC_BOX_CTL_RST_CTRS		BIT(1)
#define UNC_BOX_CTL_FRZ			BIT(8)
#define UNC_BOX_CTL_FRZ_EN		BIT(16)
#define UNC_BOX_CTL_VALID		(UNC_BOX_CTL_RST_CTRL | UNC_BOX_CTL_RST_CTRS | \
					 UNC_BOX_CTL_FRZ | UNC_BOX_CTL_FRZ_EN)

/* Counter control fields common to QPI (Table 2-86) and R3QPI (2-192). */
#define UNC_CTL_EV_SEL			GENMASK(7, 0)
#define UNC_CTL_UMASK			GENMASK(15, 8)
#define UNC_CTL_UMASK_SHIFT		8
#define UNC_CTL_RST			BIT(17)	/* write-only, self-clearing */
#define UNC_CTL_EDGE_DET		BIT(18)
#define UNC_CTL_OV_EN			BIT(20)	/* R3QPI (IVB-EP and later) */
#define UNC_CTL_EV_SEL_EXT		BIT(21)	/* QPI only */
#define UNC_CTL_EN			BIT(22)
#define UNC_CTL_INVERT			BIT(23)	/* QPI only */
#define UNC_CTL_THRESH			GENMASK(31, 24)
#define UNC_CTL_THRESH_SHIFT		24

#define UNC_QPI_NUM_CTRS		4
#define UNC_R3QPI_NUM_CTRS		3
#define UNC_MAX_CTRS			4
#define UNC_QPI_CTR_WIDTH		48
#define UNC_R3QPI_CTR_WIDTH		44	/* 48 on Broadwell-EP */

/* QPI port function 0: link speed, decoded as 5.6 + 0.8 * (code - 2) GT/s. */
#define QPI_RATE_STATUS			0xd4
#define QPI_RATE_STATUS_CODE		GENMASK(2, 0)

/*
 * QPI port function 0, the link layer's own registers (QPIAGENT_LL.h of
 * IVT_EP, IVT_EX, HSX and BDX; *unverified* on SNB-EP, which that header
 * does not list): the link's initialization state, and what the peer agent
 * sent during parameter exchange, cleared on every link-layer init.
 */
#define QPI_QPILS			0x48
#define QPI_QPILS_STATE			GENMASK(27, 24)
#define QPI_QPILS_STATE_SHIFT		24
#define QPI_LL_NORMAL			0x6	/* normal operation */
#define QPI_QPILP0			0x4c
#define QPI_QPILP0_PORT			GENMASK(4, 0)
#define QPI_QPILP0_NR_NIDS		GENMASK(7, 5)
#define QPI_QPILP0_NR_NIDS_SHIFT	5
#define QPI_QPILP0_NODE_HI		GENMASK(14, 8)	/* peer NodeID[9:3] */
#define QPI_QPILP0_NODE_HI_SHIFT	8
#define QPI_QPILP0_LLR			GENMASK(23, 16)
#define QPI_QPILP0_LLR_SHIFT		16
/*
 * One byte of agent flags per node id; the non-zero one gives the peer's
 * NID[1:0]: byte 0 is 3, byte 1 is 2, byte 2 is 1, byte 3 is 0.  The BIOS
 * takes the peer's node id as QPILP0[14:8] << 2 | NID[1:0].
 */
#define QPI_QPILP2			0x54
#define QPI_QPIPCSTS			0xc0	/* 3:0 pcode's copy of the state */
#define QPI_QPIPCSTS_STATE		GENMASK(3, 0)

/* QPI mask/match function of each port (Tables 2-88 .. 2-91). */
#define QPI_MM_MATCH0			0x228
#define QPI_MM_MATCH1			0x22c
#define QPI_MM_MASK0			0x238
#define QPI_MM_MASK1			0x23c

/* MATCH0/MASK0 fields */
#define QPI_MM0_VNW			GENMASK(4, 3)
#define QPI_MM0_VNW_SHIFT		3
#define QPI_MM0_OPC			GENMASK(8, 5)
#define QPI_MM0_OPC_SHIFT		5
#define QPI_MM0_MC			GENMASK(12, 9)
#define QPI_MM0_MC_SHIFT		9
#define QPI_MM0_DNID			GENMASK(17, 13)
#define QPI_MM0_DNID_SHIFT		13
#define QPI_MM0_RNID4			BIT(31)
#define QPI_MM0_VALID			(QPI_MM0_VNW | QPI_MM0_OPC | QPI_MM0_MC | \
					 QPI_MM0_DNID | QPI_MM0_RNID4)
/* MATCH1/MASK1 fields */
#define QPI_MM1_RNID30			GENMASK(3, 0)
#define QPI_MM1_RDS			GENMASK(19, 16)
#define QPI_MM1_RDS_SHIFT		16
#define QPI_MM1_VALID			(QPI_MM1_RNID30 | QPI_MM1_RDS)

/* UBox: which node this socket is, and the group (package) to node map. */
#define UBOX_CPUNODEID			0x40
#define UBOX_CPUNODEID_MASK		GENMASK(2, 0)
#define UBOX_GIDNIDMAP			0x54
#define UBOX_GIDNIDMAP_BITS		3
#define UBOX_MAX_GROUPS			8

/* The QPI event the mask/match filter feeds (ext 1): driver and model. */
#define QPI_EV_CTO_COUNT		0x38

#endif /* _QPI_UNCORE_REGS_H */

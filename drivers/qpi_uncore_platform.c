// SPDX-License-Identifier: GPL-2.0
/*
 * qpi_uncore platform tables: PCI IDs of the QPI, R3QPI and mask/match
 * functions, what their counters can do, and which counters each event may
 * use (the "Register Restrictions" of the uncore guides).
 */
#include "qpi_uncore.h"
#include "qpi_uncore_events.h"

enum { QPIU_SNBEP, QPIU_IVBEP, QPIU_HSWEP, QPIU_BDX };

#define QPI_CFG		(UNC_CTL_EV_SEL | UNC_CTL_UMASK | UNC_CTL_EDGE_DET | \
			 UNC_CTL_EV_SEL_EXT | UNC_CTL_INVERT | UNC_CTL_THRESH)
#define R3QPI_CFG	(UNC_CTL_EV_SEL | UNC_CTL_UMASK | UNC_CTL_EDGE_DET | \
			 UNC_CTL_THRESH)

/*
 * 327043: QPI counters "can increment by a maximum of 6b per cycle"; the
 * link layer clock stays below 4.8 GHz (9.6 GT/s).  No R3QPI event is
 * documented above 8 bits per cycle (the threshold compares 8 bits), and the
 * uncore clock stays below 3 GHz.
 */
#define QPI_MAX_INC	63
#define QPI_MAX_MHZ	4800
#define R3_MAX_INC	255
#define R3_MAX_MHZ	3000

/* SNB-EP and IVB-EP, 327043 and 329468: R3QPI Register Restrictions. */
static const struct qpiu_constraint snbep_r3qpi_constraints[] = {
	{ 0x10, 0x12, 0x3 },
	{ 0x13, 0x13, 0x1 },
	{ 0x20, 0x26, 0x3 },
	{ 0x28, 0x34, 0x3 },
	{ 0x36, 0x39, 0x3 },
	{ }
};

/*
 * HSX and BDX, from the event tables' counter lists; 0x13, 0x2a and 0x2b are
 * listed as "0-3" on a three-counter box, which the guides' counter-0-only
 * restriction explains.
 */
static const struct qpiu_constraint hswep_r3qpi_constraints[] = {
	{ 0x10, 0x12, 0x3 },
	{ 0x13, 0x13, 0x1 },
	{ 0x14, 0x15, 0x3 },
	{ 0x1f, 0x26, 0x3 },
	{ 0x28, 0x29, 0x3 },
	{ 0x2a, 0x2b, 0x1 },
	{ 0x2c, 0x34, 0x3 },
	{ 0x36, 0x39, 0x3 },
	{ }
};

static const struct qpiu_box_desc snbep_qpi = {
	.name = "qpi", .kind = QPIU_BOX_QPI, .nr_ctrs = UNC_QPI_NUM_CTRS,
	.width = UNC_QPI_CTR_WIDTH, .cfg_valid = QPI_CFG,
	.max_inc = QPI_MAX_INC, .max_mhz = QPI_MAX_MHZ,
};

static const struct qpiu_box_desc snbep_r3qpi = {
	.name = "r3qpi", .kind = QPIU_BOX_R3QPI, .nr_ctrs = UNC_R3QPI_NUM_CTRS,
	.width = UNC_R3QPI_CTR_WIDTH, .cfg_valid = R3QPI_CFG,
	.max_inc = R3_MAX_INC, .max_mhz = R3_MAX_MHZ,
	.constraints = snbep_r3qpi_constraints,
};

static const struct qpiu_box_desc hswep_r3qpi = {
	.name = "r3qpi", .kind = QPIU_BOX_R3QPI, .nr_ctrs = UNC_R3QPI_NUM_CTRS,
	.width = UNC_R3QPI_CTR_WIDTH, .cfg_valid = R3QPI_CFG,
	.max_inc = R3_MAX_INC, .max_mhz = R3_MAX_MHZ,
	.constraints = hswep_r3qpi_constraints,
};

static const struct qpiu_box_desc bdx_r3qpi = {
	.name = "r3qpi", .kind = QPIU_BOX_R3QPI, .nr_ctrs = UNC_R3QPI_NUM_CTRS,
	.width = 48, .cfg_valid = R3QPI_CFG,
	.max_inc = R3_MAX_INC, .max_mhz = R3_MAX_MHZ,
	.constraints = hswep_r3qpi_constraints,
};

const struct qpiu_platform qpiu_platforms[] = {
	[QPIU_SNBEP] = {
		.name = "snbep", .ubox_device = 0x3ce0,
		.ubox_devfn = PCI_DEVFN(0x0b, 0),
		.box = { &snbep_qpi, &snbep_r3qpi },
		.events = { qpiu_events_snbep_qpi, qpiu_events_snbep_r3qpi },
	},
	[QPIU_IVBEP] = {
		.name = "ivbep", .ubox_device = 0x0e1e,
		.ubox_devfn = PCI_DEVFN(0x0b, 0),
		.box = { &snbep_qpi, &snbep_r3qpi },
		.events = { qpiu_events_ivbep_qpi, qpiu_events_ivbep_r3qpi },
	},
	[QPIU_HSWEP] = {
		.name = "hswep", .ubox_device = 0x2f1e,
		.ubox_devfn = PCI_DEVFN(0x10, 5),
		.box = { &snbep_qpi, &hswep_r3qpi },
		.events = { qpiu_events_hswep_qpi, qpiu_events_hswep_r3qpi },
	},
	[QPIU_BDX] = {
		.name = "bdx", .ubox_device = 0x6f1e,
		.ubox_devfn = PCI_DEVFN(0x10, 5),
		.box = { &snbep_qpi, &bdx_r3qpi },
		.events = { qpiu_events_bdx_qpi, qpiu_events_bdx_r3qpi },
	},
};

const unsigned int qpiu_nr_platforms = ARRAY_SIZE(qpiu_platforms);

#define QPIU_DEV(id, plat, kind, idx) \
	{ PCI_VDEVICE(INTEL, id), QPIU_DEV_DATA(plat, kind, idx) }

const struct pci_device_id qpiu_pci_ids[] = {
	QPIU_DEV(0x3c41, QPIU_SNBEP, QPIU_FN_QPI, 0),
	QPIU_DEV(0x3c42, QPIU_SNBEP, QPIU_FN_QPI, 1),
	QPIU_DEV(0x3c44, QPIU_SNBEP, QPIU_FN_R3QPI, 0),
	QPIU_DEV(0x3c45, QPIU_SNBEP, QPIU_FN_R3QPI, 1),
	QPIU_DEV(0x3c86, QPIU_SNBEP, QPIU_FN_QPI_MM, 0),
	QPIU_DEV(0x3c96, QPIU_SNBEP, QPIU_FN_QPI_MM, 1),

	QPIU_DEV(0x0e32, QPIU_IVBEP, QPIU_FN_QPI, 0),
	QPIU_DEV(0x0e33, QPIU_IVBEP, QPIU_FN_QPI, 1),
	QPIU_DEV(0x0e3a, QPIU_IVBEP, QPIU_FN_QPI, 2),
	QPIU_DEV(0x0e36, QPIU_IVBEP, QPIU_FN_R3QPI, 0),
	QPIU_DEV(0x0e37, QPIU_IVBEP, QPIU_FN_R3QPI, 1),
	QPIU_DEV(0x0e3e, QPIU_IVBEP, QPIU_FN_R3QPI, 2),
	QPIU_DEV(0x0e86, QPIU_IVBEP, QPIU_FN_QPI_MM, 0),
	QPIU_DEV(0x0e96, QPIU_IVBEP, QPIU_FN_QPI_MM, 1),

	QPIU_DEV(0x2f32, QPIU_HSWEP, QPIU_FN_QPI, 0),
	QPIU_DEV(0x2f33, QPIU_HSWEP, QPIU_FN_QPI, 1),
	QPIU_DEV(0x2f3a, QPIU_HSWEP, QPIU_FN_QPI, 2),
	QPIU_DEV(0x2f36, QPIU_HSWEP, QPIU_FN_R3QPI, 0),
	QPIU_DEV(0x2f37, QPIU_HSWEP, QPIU_FN_R3QPI, 1),
	QPIU_DEV(0x2f3e, QPIU_HSWEP, QPIU_FN_R3QPI, 2),
	QPIU_DEV(0x2f86, QPIU_HSWEP, QPIU_FN_QPI_MM, 0),
	QPIU_DEV(0x2f96, QPIU_HSWEP, QPIU_FN_QPI_MM, 1),

	QPIU_DEV(0x6f32, QPIU_BDX, QPIU_FN_QPI, 0),
	QPIU_DEV(0x6f33, QPIU_BDX, QPIU_FN_QPI, 1),
	QPIU_DEV(0x6f3a, QPIU_BDX, QPIU_FN_QPI, 2),
	QPIU_DEV(0x6f36, QPIU_BDX, QPIU_FN_R3QPI, 0),
	QPIU_DEV(0x6f37, QPIU_BDX, QPIU_FN_R3QPI, 1),
	QPIU_DEV(0x6f3e, QPIU_BDX, QPIU_FN_R3QPI, 2),
	QPIU_DEV(0x6f86, QPIU_BDX, QPIU_FN_QPI_MM, 0),
	QPIU_DEV(0x6f96, QPIU_BDX, QPIU_FN_QPI_MM, 1),
	QPIU_DEV(0x6f46, QPIU_BDX, QPIU_FN_QPI_MM, 2),
	{ }
};
MODULE_DEVICE_TABLE(pci, qpiu_pci_ids);

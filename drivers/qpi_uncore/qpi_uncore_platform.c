// SPDX-License-Identifier: GPL-2.0
/*
 * qpi_uncore platform tables: PCI IDs of the QPI, R3QPI and mask/match
 * functions, and the UBox and event aliases of each platform.  What the
 * boxes can do is in qpi_uncore_desc.c.
 */
#include "qpi_uncore.h"
#include "qpi_uncore_events.h"

const struct qpiu_platform qpiu_platforms[] = {
	[QPIU_SNBEP] = {
		.name = "snbep", .ubox_device = 0x3ce0,
		.ubox_devfn = PCI_DEVFN(0x0b, 0), .qpi_ports = 2,
		.box = { &qpiu_box_descs[QPIU_SNBEP][QPIU_BOX_QPI],
			 &qpiu_box_descs[QPIU_SNBEP][QPIU_BOX_R3QPI] },
		.events = { qpiu_events_snbep_qpi, qpiu_events_snbep_r3qpi },
	},
	[QPIU_IVBEP] = {
		.name = "ivbep", .ubox_device = 0x0e1e,
		.ubox_devfn = PCI_DEVFN(0x0b, 0), .qpi_ports = 3,
		.box = { &qpiu_box_descs[QPIU_IVBEP][QPIU_BOX_QPI],
			 &qpiu_box_descs[QPIU_IVBEP][QPIU_BOX_R3QPI] },
		.events = { qpiu_events_ivbep_qpi, qpiu_events_ivbep_r3qpi },
	},
	[QPIU_HSWEP] = {
		.name = "hswep", .ubox_device = 0x2f1e,
		.ubox_devfn = PCI_DEVFN(0x10, 5), .qpi_ports = 3,
		.box = { &qpiu_box_descs[QPIU_HSWEP][QPIU_BOX_QPI],
			 &qpiu_box_descs[QPIU_HSWEP][QPIU_BOX_R3QPI] },
		.events = { qpiu_events_hswep_qpi, qpiu_events_hswep_r3qpi },
	},
	[QPIU_BDX] = {
		.name = "bdx", .ubox_device = 0x6f1e,
		.ubox_devfn = PCI_DEVFN(0x10, 5), .qpi_ports = 3,
		.box = { &qpiu_box_descs[QPIU_BDX][QPIU_BOX_QPI],
			 &qpiu_box_descs[QPIU_BDX][QPIU_BOX_R3QPI] },
		.events = { qpiu_events_bdx_qpi, qpiu_events_bdx_r3qpi },
	},
};

const unsigned int qpiu_nr_platforms = ARRAY_SIZE(qpiu_platforms);

static const struct qpiu_event_desc qpiu_sbox_events[] = {
	{ "to_r_prog_ev", "event=0x00" },
	{ }
};

/* Xeon 7500 (Nehalem-EX) and E7 (Westmere-EX): S-Boxes only. */
const struct qpiu_platform qpiu_sbox_platform = {
	.name = "nhmex",
	.box = { [QPIU_BOX_SBOX] = &qpiu_sbox_desc },
	.events = { [QPIU_BOX_SBOX] = qpiu_sbox_events },
};

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

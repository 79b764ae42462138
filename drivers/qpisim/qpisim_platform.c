// SPDX-License-Identifier: GPL-2.0
/*
 * qpisim platform tables: which PCI functions each Xeon generation exposes
 * per socket, and how its QPI and R3QPI counters behave.
 */
#include "qpisim_model.h"

#ifdef __KERNEL__
#include <linux/string.h>
#else
#include <string.h>
#endif

/*
 * PMON, mask/match and UBox device IDs are the ones the Intel uncore guides
 * and perf use.  Slot numbers of IVB-EP QPI port 2 and R3QPI link 2, and the
 * IDs of the "filler" function 0 devices (which only exist so that the PCI
 * scan looks at the other functions of a slot), are not in our sources and
 * are marked unverified in Documentation/qpisim.rst.  Drivers must match by
 * device ID and never depend on them.
 */

#define QPI_CTL_COMMON	(UNC_CTL_EV_SEL | UNC_CTL_UMASK | UNC_CTL_RST | \
			 UNC_CTL_EDGE_DET | UNC_CTL_EV_SEL_EXT | UNC_CTL_EN | \
			 UNC_CTL_INVERT | UNC_CTL_THRESH)
#define R3QPI_CTL_COMMON (UNC_CTL_EV_SEL | UNC_CTL_UMASK | UNC_CTL_RST | \
			  UNC_CTL_EDGE_DET | UNC_CTL_EN | UNC_CTL_THRESH)

#define DEV(id, slot, fn)	{ .device = (id), .devfn = PCI_DEVFN(slot, fn) }

const struct qsim_platform qsim_platforms[] = {
	{
		.name = "snbep",
		.cpu = "SandyBridge,model=45",
		.ubox = DEV(0x3ce0, 0x0b, 0),
		.qpi = { DEV(0x3c41, 0x08, 2), DEV(0x3c42, 0x09, 2) },
		.qpi_mm = { DEV(0x3c86, 0x08, 6), DEV(0x3c96, 0x09, 6) },
		.qpi_misc = { DEV(0x3c80, 0x08, 0), DEV(0x3c90, 0x09, 0) },
		.r3qpi = { DEV(0x3c44, 0x13, 5), DEV(0x3c45, 0x13, 6) },
		.fillers = { DEV(0x3ce4, 0x13, 0) },
		.max_ports = 2,
		.max_links = 2,
		/* 327043: bit 20 of the QPI and R3QPI controls is reserved. */
		.qpi_box = { 4, UNC_QPI_CTR_WIDTH, false, QPI_CTL_COMMON,
			     QPI_EV_CLOCKTICKS },
		.r3qpi_box = { 3, UNC_R3QPI_CTR_WIDTH, false, R3QPI_CTL_COMMON,
			       R3QPI_EV_CLOCKTICKS },
	},
	{
		.name = "ivbep",
		.cpu = "IvyBridge,model=62",
		.ubox = DEV(0x0e1e, 0x0b, 0),
		.qpi = { DEV(0x0e32, 0x08, 2), DEV(0x0e33, 0x09, 2),
			 DEV(0x0e3a, 0x18, 2) },
		.qpi_mm = { DEV(0x0e86, 0x08, 6), DEV(0x0e96, 0x09, 6) },
		.qpi_misc = { DEV(0x0e80, 0x08, 0), DEV(0x0e90, 0x09, 0),
			      DEV(0x0e40, 0x18, 0) },
		.r3qpi = { DEV(0x0e36, 0x13, 5), DEV(0x0e37, 0x13, 6),
			   DEV(0x0e3e, 0x12, 5) },
		.fillers = { DEV(0x0e1d, 0x13, 0), DEV(0x0e1c, 0x12, 0) },
		.max_ports = 3,
		.max_links = 3,
		.qpi_box = { 4, UNC_QPI_CTR_WIDTH, true,
			     QPI_CTL_COMMON | UNC_CTL_OV_EN, QPI_EV_CLOCKTICKS },
		.r3qpi_box = { 3, UNC_R3QPI_CTR_WIDTH, true,
			       R3QPI_CTL_COMMON | UNC_CTL_OV_EN,
			       R3QPI_EV_CLOCKTICKS },
	},
	{
		.name = "hswep",
		.cpu = "Haswell-noTSX,model=63",
		.ubox = DEV(0x2f1e, 0x10, 5),
		.qpi = { DEV(0x2f32, 0x08, 2), DEV(0x2f33, 0x09, 2),
			 DEV(0x2f3a, 0x0a, 2) },
		.qpi_mm = { DEV(0x2f86, 0x08, 6), DEV(0x2f96, 0x09, 6) },
		.qpi_misc = { DEV(0x2f80, 0x08, 0), DEV(0x2f90, 0x09, 0),
			      DEV(0x2f40, 0x0a, 0) },
		.r3qpi = { DEV(0x2f36, 0x0b, 1), DEV(0x2f37, 0x0b, 2),
			   DEV(0x2f3e, 0x0b, 5) },
		.fillers = { DEV(0x2f81, 0x0b, 0), DEV(0x2f1d, 0x10, 0) },
		.max_ports = 3,
		.max_links = 3,
		.qpi_box = { 4, UNC_QPI_CTR_WIDTH, true,
			     QPI_CTL_COMMON | UNC_CTL_OV_EN, QPI_EV_CLOCKTICKS },
		.r3qpi_box = { 3, UNC_R3QPI_CTR_WIDTH, true,
			       R3QPI_CTL_COMMON | UNC_CTL_OV_EN,
			       R3QPI_EV_CLOCKTICKS },
	},
	{
		.name = "bdx",
		.cpu = "Broadwell-noTSX,model=79",
		.ubox = DEV(0x6f1e, 0x10, 5),
		.qpi = { DEV(0x6f32, 0x08, 2), DEV(0x6f33, 0x09, 2),
			 DEV(0x6f3a, 0x0a, 2) },
		.qpi_mm = { DEV(0x6f86, 0x08, 6), DEV(0x6f96, 0x09, 6),
			    DEV(0x6f46, 0x0a, 6) },
		.qpi_misc = { DEV(0x6f80, 0x08, 0), DEV(0x6f90, 0x09, 0),
			      DEV(0x6f40, 0x0a, 0) },
		.r3qpi = { DEV(0x6f36, 0x0b, 1), DEV(0x6f37, 0x0b, 2),
			   DEV(0x6f3e, 0x0b, 5) },
		.fillers = { DEV(0x6f81, 0x0b, 0), DEV(0x6f1d, 0x10, 0) },
		.max_ports = 3,
		.max_links = 3,
		.qpi_box = { 4, UNC_QPI_CTR_WIDTH, true,
			     QPI_CTL_COMMON | UNC_CTL_OV_EN, QPI_EV_CLOCKTICKS },
		.r3qpi_box = { 3, 48, true, R3QPI_CTL_COMMON | UNC_CTL_OV_EN,
			       R3QPI_EV_CLOCKTICKS },
	},
};

const unsigned int qsim_nr_platforms = ARRAY_SIZE(qsim_platforms);

const struct qsim_platform *qsim_platform_find(const char *name)
{
	unsigned int i;

	for (i = 0; i < qsim_nr_platforms; i++)
		if (!strcmp(qsim_platforms[i].name, name))
			return &qsim_platforms[i];
	return NULL;
}

/* SPDX-License-Identifier: GPL-2.0 */
/*
 * qpisim's pure model: register semantics, counting, traffic injection and
 * traffic at a rate (model.c, traffic.c, platform.c), with no kernel
 * dependencies: time is what the glue passes to qsim_advance().
 */
#ifndef _QPISIM_MODEL_H
#define _QPISIM_MODEL_H

#include "qpi_uncore_regs.h"

#ifdef __KERNEL__
#include <linux/pci.h>
#else
/* The few PCI definitions the model needs, for the host unit tests. */
#define PCI_DEVFN(slot, func)	((((slot) & 0x1f) << 3) | ((func) & 0x07))
#define PCI_SLOT(devfn)		(((devfn) >> 3) & 0x1f)
#define PCI_FUNC(devfn)		((devfn) & 0x07)
#define PCI_VENDOR_ID		0x00
#define PCI_COMMAND		0x04
#define PCI_CLASS_REVISION	0x08
#define PCI_CACHE_LINE_SIZE	0x0c
#define PCI_HEADER_TYPE		0x0e
#define PCI_SUBSYSTEM_VENDOR_ID	0x2c
#define PCI_CAPABILITY_LIST	0x34
#define PCI_STATUS_CAP_LIST	0x10
#define PCI_CAP_ID_EXP		0x10
#define PCI_EXP_TYPE_RC_END	0x9
#endif

#define QPI_PCI_VENDOR_INTEL	0x8086

/* QPI message classes as encoded in the MC field of MATCH0/MASK0. */
#define QPI_MC_HOM_REQ		0x0
#define QPI_MC_HOM_RESP		0x1
#define QPI_MC_NDR		0x2
#define QPI_MC_SNP		0x3
#define QPI_MC_NCS		0x4
#define QPI_MC_NCB		0xc
#define QPI_MC_DRS		0xe

/* Response data state (RDS) Modified, valid for DRS opcodes 0-2. */
#define QPI_RDS_M		0x8

/* QPI events whose counts the model derives from injected packets. */
#define QPI_EV_TXL_FLITS_G0	0x00	/* ext 0 */
#define QPI_EV_RXL_FLITS_G0	0x01	/* ext 0 */
#define QPI_EV_TXL_FLITS_G1	0x00	/* ext 1 */
#define QPI_EV_RXL_FLITS_G1	0x02	/* ext 1 */
#define QPI_EV_TXL_FLITS_G2	0x01	/* ext 1 */
#define QPI_EV_RXL_FLITS_G2	0x03	/* ext 1 */
#define QPI_EV_CLOCKTICKS	0x14	/* ext 0 */
/* ... and from the ports' L0p and L1 residency knobs (all ext 0, umask 0) */
#define QPI_EV_TXL0P_POWER_CYCLES	0x0d
#define QPI_EV_RXL0P_POWER_CYCLES	0x10
#define QPI_EV_L1_POWER_CYCLES		0x12
#define R3QPI_EV_CLOCKTICKS	0x01

/* Their umasks: the flit classes of each group. */
#define QPI_G0_DATA		0x02
#define QPI_G0_NON_DATA		0x04
#define QPI_G1_SNP		0x01
#define QPI_G1_HOM_REQ		0x02
#define QPI_G1_HOM_NONREQ	0x04
#define QPI_G1_DRS_DATA		0x08
#define QPI_G1_DRS_NONDATA	0x10
#define QPI_G2_NDR_AD		0x01
#define QPI_G2_NDR_AK		0x02
#define QPI_G2_NCB_DATA		0x04
#define QPI_G2_NCB_NONDATA	0x08
#define QPI_G2_NCS		0x10

#define QSIM_MAX_SOCKETS	8
#define QSIM_MAX_PORTS		3
#define QSIM_MAX_LINKS		3
#define QSIM_MAX_FNS		24
#define QSIM_LOG_SIZE		1024
#define QSIM_MAX_FLITS		16
#define QSIM_MAX_PER_CYCLE	64
#define QSIM_ERR_LEN		128
#define QSIM_MAX_STREAMS	4
#define QSIM_MAX_RATE		4000000000ULL	/* events per second */
#define QSIM_NS_PER_S		1000000000ULL
#define QSIM_WIN_HIST		32	/* the last bucket: that many or more */
#define QSIM_MAX_PCT		100	/* residency knobs: a share of cycles */
/*
 * What a port's QPILP0/QPILP2 hold of its peer besides the port and node
 * id (*unverified* values: the driver reads neither): one node id a
 * socket, a 128-entry retry buffer, agent flags 0x0f in the node's byte.
 */
#define QSIM_LP0_NR_NIDS	1
#define QSIM_LP0_LLR		0x80
#define QSIM_LP2_FLAGS		0x0f
/* QPILS states qpisim uses */
#define QSIM_LL_WAIT_PHY	0x0	/* no link: waiting for physical layer */
#define QSIM_LL_ABORT		0x8	/* "S.P down": link abort */

/* The power states a QPI port reports, as a share of its clockticks. */
enum qsim_residency {
	QSIM_RES_L0P_TX,
	QSIM_RES_L0P_RX,
	QSIM_RES_L1,
	QSIM_NR_RES
};

enum qsim_fn_kind {
	QSIM_FN_UBOX,
	QSIM_FN_QPI_MISC,	/* function 0 of a port: QPI_RATE_STATUS */
	QSIM_FN_QPI_PMON,
	QSIM_FN_QPI_MM,
	QSIM_FN_R3QPI,
	QSIM_FN_FILLER,		/* function 0 that only makes the slot visible */
};

enum qsim_box_type {
	QSIM_BOX_QPI,
	QSIM_BOX_R3QPI,
};

struct qsim_box_desc {
	u8 nr_ctrs;
	u8 width;
	bool has_ov;		/* ctl bit 20 is ov_en */
	u32 ctl_valid;		/* bits software may set, including rst */
	u8 clockticks;		/* event code of this box's clockticks */
};

struct qsim_devid {
	u16 device;		/* 0: absent on this platform */
	u8 devfn;
};

struct qsim_platform {
	const char *name;
	const char *cpu;	/* QEMU -cpu model that matches */
	struct qsim_devid ubox;
	struct qsim_devid qpi[QSIM_MAX_PORTS];
	struct qsim_devid qpi_mm[QSIM_MAX_PORTS];
	struct qsim_devid qpi_misc[QSIM_MAX_PORTS];
	struct qsim_devid r3qpi[QSIM_MAX_LINKS];
	struct qsim_devid fillers[4];	/* function 0 of slots with no model */
	u8 max_ports;
	u8 max_links;
	struct qsim_box_desc qpi_box;
	struct qsim_box_desc r3qpi_box;
};

extern const struct qsim_platform qsim_platforms[];
extern const unsigned int qsim_nr_platforms;
const struct qsim_platform *qsim_platform_find(const char *name);

struct qsim_socket;

/*
 * Traffic that arrives at a rate: @per_s events a second of one event, fed
 * to the box's counters as time passes (qsim_advance()).  @frac carries the
 * fraction of the next event, in units of 10^-9 event, so that the events
 * of any split of a span of time add up to those of the whole span.
 */
struct qsim_stream {
	bool used;
	u8 event;
	u8 umask;
	bool ext;
	u64 per_s;
	u64 frac;
	/*
	 * Rx flit events scaled by rx_count_pct: the hundredths of an event
	 * carried, so that the scaled events of any split add up to those of
	 * the whole; a Tx flit stream's carry is for its link's far end.
	 */
	u32 pct_frac;
	u64 arrived;			/* since the stats were last reset */
	u64 lost;			/* ... of which while the box was frozen */
};

/* How long, how often and how busily a box was frozen. */
struct qsim_frozen {
	u64 ns;				/* time frozen */
	u64 windows;			/* unfrozen -> frozen transitions */
	u64 accesses;			/* config accesses that met it frozen */
	u64 max_accesses;		/* most accesses in one window */
	u64 max_ns;			/* longest window */
	u64 hist[QSIM_WIN_HIST];	/* closed windows by their accesses */
};

struct qsim_box {
	const struct qsim_box_desc *desc;
	struct qsim_socket *sock;
	enum qsim_box_type type;
	u8 idx;
	bool frz;
	bool frz_en;
	u8 status;			/* BOX_STATUS overflow bits */
	u32 ctl[UNC_MAX_CTRS];
	u64 ctr[UNC_MAX_CTRS];
	bool cmp[UNC_MAX_CTRS];		/* threshold comparator, last cycle */
	u32 match[2];			/* QPI: MATCH0/1 of the port */
	u32 mask[2];			/* QPI: MASK0/1 of the port */
	u64 overflows;			/* carries out of the top bit, all ctrs */
	/* for the glue: when @overflows last changed (local_clock() ns) */
	u64 overflows_seen;
	u64 last_overflow_ns;
	struct qsim_stream streams[QSIM_MAX_STREAMS];
	struct qsim_stream clock;	/* QPI: the link clock (link_clock) */
	bool link_down;			/* QPI: the port's link is not trained */
	/*
	 * QPI fault: the Rx flit events (G0-G2) of this port see this
	 * percentage of the packets injected with dir=rx (100: exact), as an
	 * Rx event that over- or under-counts would
	 */
	u32 rx_count_pct;
	/*
	 * QPI: the far end of the port's link (NULL: not wired).  Packets and
	 * Tx flit streams sent here arrive there (qpisim_links.c).
	 */
	struct qsim_box *peer;
	/*
	 * QPI: the link left normal operation (links file "S.P down"), at
	 * both ends; wiring, unwiring and "S.P up" retrain it.
	 */
	bool ll_down;
	/*
	 * QPI fault (links file "S.P names T.Q"): the port whose parameters
	 * this port's QPILP0/QPILP2 hold instead of its peer's, as after an
	 * exchange that went wrong; NULL: the peer's.
	 */
	struct qsim_box *names;
	/*
	 * QPI: the share (0..100 %) of the port's clockticks spent in Tx L0p,
	 * Rx L0p and L1, indexed by enum qsim_residency, and the hundredths
	 * of a cycle each carries to the next clockticks the box gets.
	 */
	u32 res_pct[QSIM_NR_RES];
	u32 res_frac[QSIM_NR_RES];
	struct qsim_frozen frozen;
	/*
	 * Per counter, of the traffic at a rate its control selects: what
	 * arrived, and what it missed, disabled (en clear) or frozen.  Since
	 * the stats were last reset; a counter whose control is 0 selects
	 * nothing.
	 */
	u64 ctr_arrived[UNC_MAX_CTRS];
	u64 ctr_lost[UNC_MAX_CTRS];
	bool was_frozen;		/* state the stats last saw */
	u64 win_start;			/* the current window's start (ns) */
	u64 win_accesses;		/* and its accesses so far */
};

struct qsim_fn {
	struct qsim_socket *sock;
	enum qsim_fn_kind kind;
	u8 idx;				/* port or link number */
	u8 devfn;
	u16 device;
	bool present;			/* false after a hot removal */
	bool all_ones;			/* fault: reads return ~0, writes dropped */
	bool ignore_writes;		/* fault: writes dropped, reads normal */
	u32 foreign_ctl;		/* fault: enabled ctls become this */
	u64 ignored_writes;
	u16 command;
	struct qsim_box *box;		/* PMON and mask/match functions */
	u64 reads;
	u64 writes;
	u64 rsvd_writes;		/* writes that set a reserved bit */
	u64 undef_writes;		/* invert/edge enabled with thresh 0 */
};

struct qsim_socket {
	struct qsim *sim;
	u8 id;				/* physical package id */
	u8 bus;
	u8 node_id;
	u32 gidnidmap;
	bool freeze;			/* the UBox freeze signal */
	bool freeze_on_ov;		/* assert freeze on an ov_en overflow */
	bool ov_pending;		/* an ov_en overflow in the current batch */
	u32 ubox_ov;			/* overflow messages: QPI p bit p, R3QPI l bit 8+l */
	u8 nr_ports;
	u8 nr_links;
	struct qsim_box qpi[QSIM_MAX_PORTS];
	struct qsim_box r3qpi[QSIM_MAX_LINKS];
	struct qsim_fn fns[QSIM_MAX_FNS];
	u8 nr_fns;
};

struct qsim_log_entry {
	u64 seq;
	u8 socket;
	u8 bus;
	u8 devfn;
	u8 size;
	u16 where;
	u32 val;
};

struct qsim_config {
	const struct qsim_platform *plat;
	u8 nr_sockets;
	u8 nr_ports;
	u8 nr_links;
	u8 buses[QSIM_MAX_SOCKETS];	/* see qsim_default_bus() */
	u8 node_ids[QSIM_MAX_SOCKETS];	/* distinct, 0..7 */
	u8 qpi_rate;
	u32 hide;			/* BIT(enum qsim_fn_kind): not created */
};

struct qsim {
	const struct qsim_platform *plat;
	u8 nr_sockets;
	u8 qpi_rate;
	u32 fast_count;			/* added to counting ctrs on each access */
	bool link_clock;		/* QPI clockticks run at the link speed */
	u32 hide;			/* BIT(enum qsim_fn_kind): not created */
	u64 now;			/* time of the last qsim_advance() (ns) */
	struct qsim_socket sock[QSIM_MAX_SOCKETS];
	struct qsim_log_entry log[QSIM_LOG_SIZE];
	u64 log_seq;			/* number of writes logged since clear */
};

/* One run of per-cycle increments: pattern[0..len-1] repeated @repeat times. */
struct qsim_seg {
	const u8 *pattern;
	u32 len;
	u64 repeat;
};

/*
 * Kernel-free so that the host unit tests exercise exactly the code that
 * runs in the guest.  The glue (qpisim_main.c, qpisim_debugfs.c,
 * qpisim_bus.c) serialises every entry point with one lock.
 */
u8 qsim_default_bus(unsigned int nr_sockets, unsigned int s);
int qsim_init(struct qsim *sim, const struct qsim_config *cfg,
	      char *err, size_t errlen);
struct qsim_fn *qsim_find_fn(struct qsim *sim, u8 bus, u8 devfn);
u32 qsim_cfg_read(struct qsim_fn *fn, int where, int size);
void qsim_cfg_write(struct qsim_fn *fn, int where, int size, u32 val);

bool qsim_ctr_counting(const struct qsim_box *box, unsigned int i);
void qsim_ctr_add(struct qsim_box *box, unsigned int i, u64 v);
void qsim_batch_end(struct qsim_socket *sock);
u64 qsim_eval(u32 ctl, const struct qsim_seg *segs, unsigned int nsegs,
	      bool *cmp);
bool qsim_mm_match(const struct qsim_box *box, u32 pkt0, u32 pkt1);
bool qsim_rx_flit_event(u8 event, bool ext);
u64 qsim_scale_pct(u32 *frac, u64 n, u32 pct);
int qsim_residency_of(const struct qsim_box *box, u32 ctl);
void qsim_residency(struct qsim_box *box, u64 cycles, u64 *res);

bool qsim_box_frozen(const struct qsim_box *box);
u64 qsim_accrue(struct qsim_stream *st, u64 dt);
void qsim_advance(struct qsim *sim, u64 now);
void qsim_freeze_track(struct qsim_socket *sock);
void qsim_frozen_reset(struct qsim_box *box);

u64 qsim_link_clock_hz(u8 rate_code);
void qsim_set_link_clock(struct qsim *sim, bool on);
void qsim_set_link_down(struct qsim_box *box, bool down);

int qsim_exec(struct qsim *sim, char *line, char *err, size_t errlen);

void qsim_links_default(struct qsim *sim);
int qsim_links_write(struct qsim *sim, const char *buf, char *err,
		     size_t errlen);
size_t qsim_links_show(const struct qsim *sim, char *buf, size_t len);
u8 qsim_link_state(const struct qsim_box *box);
u32 qsim_link_reg(const struct qsim_box *box, unsigned int where);
void qsim_log_clear(struct qsim *sim);

#endif /* _QPISIM_MODEL_H */

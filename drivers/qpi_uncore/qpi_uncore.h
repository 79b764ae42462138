/* SPDX-License-Identifier: GPL-2.0 */
/*
 * qpi_uncore's internal interfaces: the box and PMU structures, and the
 * entry points of each file, grouped by file, lowest layer first.
 * qpi_uncore_compat.h, below every layer, maps the kernel APIs that differ
 * between kernels (build-time feature tests, see conftest.sh).
 */
#ifndef _QPI_UNCORE_H
#define _QPI_UNCORE_H

#include <linux/cpumask.h>
#include <linux/hrtimer.h>
#include <linux/kref.h>
#include <linux/pci.h>
#include <linux/perf_event.h>
#include <linux/rcupdate.h>
#include <linux/spinlock.h>
#include <linux/timer.h>
#include <linux/workqueue.h>

#include "qpi_uncore_logic.h"
#include "qpi_uncore_peer.h"
#include "qpi_uncore_sbox.h"

#define QPIU_MAX_SOCKETS	64
#define QPIU_MAX_BOXES		4	/* ports or links per socket */

/* What a PCI function of ours is. */
enum qpiu_fn_kind {
	QPIU_FN_QPI,		/* QPI port PMON */
	QPIU_FN_R3QPI,		/* R3QPI link PMON */
	QPIU_FN_QPI_MM,		/* QPI port mask/match */
};

/* pci_device_id.driver_data: platform, function kind and box index. */
#define QPIU_DEV_DATA(plat, kind, idx)	((plat) << 16 | (kind) << 8 | (idx))
#define QPIU_DEV_PLAT(data)		(((data) >> 16) & 0xff)
#define QPIU_DEV_KIND(data)		(((data) >> 8) & 0xff)
#define QPIU_DEV_IDX(data)		((data) & 0xff)

/*
 * A sysfs events/ alias: name and the perf config string it stands for,
 * and where a reading in other units is natural, perf's scale and unit.
 */
struct qpiu_event_desc {
	const char *name;
	const char *config;
	const char *scale;
	const char *unit;
};

struct qpiu_platform {
	const char *name;
	u16 ubox_device;
	u8 ubox_devfn;
	u8 qpi_ports;		/* QPI ports a socket can have: peer ports */
	const struct qpiu_box_desc *box[QPIU_NR_BOX_KINDS];
	const struct qpiu_event_desc *events[QPIU_NR_BOX_KINDS];
};

extern const struct qpiu_platform qpiu_platforms[];
extern const struct qpiu_platform qpiu_sbox_platform;
extern const unsigned int qpiu_nr_platforms;
extern const struct pci_device_id qpiu_pci_ids[];

struct qpiu_box;

/*
 * What one kind of box does with its registers (qpi_uncore_box.c): a PCI
 * function, or a Xeon 7500 S-Box over MSRs.  Called under box->lock, never
 * on a dead box.  A NULL operation is one the kind cannot do: the S-Box
 * has none of the sampling ones, so its PMUs count only.
 */
struct qpiu_box_ops {
	const char *name;	/* in messages; NULL: the PCI function's */
	void (*reset)(struct qpiu_box *box);
	void (*freeze)(struct qpiu_box *box, bool freeze);
	void (*enable)(struct qpiu_box *box, int idx, u32 ctl);
	void (*disable)(struct qpiu_box *box, int idx, u32 ctl);
	int (*read)(struct qpiu_box *box, int idx, u64 *val);
	/* counter @idx's control as the hardware holds it */
	int (*read_ctl)(struct qpiu_box *box, int idx, u32 *ctl);
	void (*write_filter)(struct qpiu_box *box, u64 match, u64 mask);
	void (*detach)(struct qpiu_box *box);
	/* sampling */
	void (*write_counter)(struct qpiu_box *box, int idx, u64 val);
	void (*start)(struct qpiu_box *box, int idx, u32 ctl);
	u32 (*read_status)(struct qpiu_box *box);
	void (*clear_status)(struct qpiu_box *box, u32 bits);
};

/*
 * One PMON box: a QPI port or R3QPI link of one socket, i.e. one PCI
 * function.  Perf callbacks run on the socket's reader CPU with interrupts
 * off; @lock orders them against the fold timer's and removal.  The box
 * lives until the device is gone and no event refers to it.
 */
struct qpiu_box {
	struct kref ref;
	struct rcu_head rcu;
	struct qpiu_pmu *pmu;
	const struct qpiu_box_ops *ops;
	unsigned int socket;
	raw_spinlock_t lock;
	struct pci_dev *pdev;		/* NULL once removed, or MSR based */
	bool msr;			/* an S-Box: @sbox does the accesses */
	struct qpiu_sbox sbox;
	struct pci_dev *mm;		/* QPI: the port's mask/match function */
	/*
	 * QPI: one MATCH/MASK set per port.  @filter_ref scheduled events use
	 * @filter; @filter_hw is what the registers hold, if @filter_known.
	 */
	u8 rate_code;			/* QPI: QPI_RATE_STATUS, 0 unknown */
	struct pci_dev *fn0;		/* QPI: the port's function 0, held */
	unsigned int filter_ref;
	u64 filter[2];
	u64 filter_hw[2];
	bool filter_known;
	int cpu;			/* reader CPU, -1 when none */
	bool dead;			/* removed, or not answering as hardware */
	u32 box_ctl;			/* shadow: BOX_CTL reads as zero */
	/*
	 * Why the box is frozen (QPIU_HOLD_*), none most of the time: only
	 * while several counters must start or stop at one instant
	 * (qpi_uncore_event.c, "When the box freezes").
	 */
	u8 hold;
	u8 txn;				/* perf's transaction: PERF_PMU_TXN_* */
	int txn_cpu;			/* ... begun on this CPU */
	unsigned int n_active;
	unsigned int n_sampling;	/* of @n_active, sampling events */
	struct perf_event *events[UNC_MAX_CTRS];
	struct hrtimer hrtimer;
	u64 fold_ns;
	u64 fold_next;			/* ktime of the next fold of counts */
	/*
	 * Sampling (qpi_uncore_look.c): when the box was last looked at,
	 * the interval that look chose, and each counter's event and
	 * hw.period_left as that look left them, for the rate of each.
	 */
	u64 look_ns;
	u64 look_gap;
	struct perf_event *look_ev[UNC_MAX_CTRS];
	s64 look_left[UNC_MAX_CTRS];
	bool carried;			/* whole periods left for the next look */
	bool cpu_full;			/* ... by the CPU's bound (QPIU_CALL_SAMPLES) */
	struct timer_list tick_timer;	/* a tick of the idle reader CPU */
	/* counters whose paced samples wait until it runs */
	u32 tick_wait;
	bool tick_timer_ready;
	bool warned_status;		/* BOX_STATUS disagreed once */
	/*
	 * Foreign writers (qpi_uncore_foreign.c): when the counter controls
	 * are next read back, and whether the last read-back found one that
	 * is not what we wrote (an episode, counted and logged once).
	 */
	u64 check_next;
	bool foreign;
	u64 foreign_episodes;		/* of this box: foreign_writes events */
	unsigned int nr_events;		/* past event_init, not destroyed */
};

/* Reasons to freeze a box (box->hold). */
#define QPIU_HOLD_TXN	BIT(0)	/* a group's members added in one transaction */
#define QPIU_HOLD_OUT	BIT(1)	/* a group's members removed one by one */
#define QPIU_HOLD_MOVE	BIT(2)	/* running events moved to other counters */

/* One PMU: box @idx of one kind, on every socket that has it. */
struct qpiu_pmu {
	struct pmu pmu;
	char name[32];
	const struct qpiu_platform *plat;
	const struct qpiu_box_desc *desc;
	const struct qpiu_box_ops *box_ops;	/* of every box of this PMU */
	unsigned int idx;
	bool registered;
	atomic_t nr_events;		/* initialised and not yet destroyed */
	atomic_long_t foreign_writes;	/* episodes, over its boxes: sysfs */
	/*
	 * Sockets whose events a foreign writer marked, for the work that
	 * makes perf schedule them again (qpi_uncore_foreign.c).
	 */
	DECLARE_BITMAP(resched, QPIU_MAX_SOCKETS);
	struct work_struct resched_work;
	/*
	 * Events past event_init that perf may not have installed in a CPU
	 * context yet (qpi_uncore_opening.c): a reader change waits for them,
	 * so that none is left on the old reader.
	 */
	spinlock_t opening_lock;
	struct list_head opening;
	/*
	 * The registry's, called by the event layer when @nr_events drops
	 * to zero: a boxless PMU may retire.  A call up, so a pointer.
	 */
	void (*idle)(struct qpiu_pmu *qpmu);
	cpumask_t cpumask;		/* readers of sockets with this box */
	struct qpiu_box __rcu *boxes[QPIU_MAX_SOCKETS];
	const struct attribute_group *groups[7];
	struct attribute_group events_group;
	struct attribute **event_attrs;
	struct perf_pmu_events_attr *event_descs;
	char **event_names;		/* allocated .scale/.unit names */
	unsigned int nr_event_attrs;
	/*
	 * QPI: die<D> and link/die<D> of every die (qpi_uncore_link.c),
	 * the die number in each attribute's var.
	 */
	struct attribute_group die_group;
	struct attribute_group link_group;
	struct dev_ext_attribute *die_attrs;	/* die<D>, then link/die<D> */
	struct attribute **die_attr_list;	/* both groups', NULL ended */
	char **die_names;
	unsigned int nr_dies;
};

static inline struct qpiu_pmu *to_qpmu(struct pmu *pmu)
{
	return container_of(pmu, struct qpiu_pmu, pmu);
}

/*
 * The files, each using only the ones listed after it (Documentation/
 * testing.rst, "Source layout"); the declarations below go bottom up:
 *   main      module init/exit, PCI probe/remove
 *   sbox      the Xeon 7500 S-Box PMUs: detection, two boxes per socket
 *   registry  PMUs and boxes: creation, removal, readers, mask/match
 *   sysfs     format/, events/, cpumask, link_speed, die<D>, link/
 *   link      each QPI port's peer and link state, read live
 *   event     perf callbacks, sampling checks
 *   look      the box timer: folds, read-backs, sampling looks and pacing
 *   opening   events between event_init and their reader's context
 *   foreign   reading counter controls back: foreign writers, their
 *             foreign_writes event, and perf's schedule that shows the mark
 *   sample    handing perf a sample
 *   sched     counter assignment and group validation
 *   counter   one counter: fold, arm, start, stop
 *   reject    the rate-limited refusal message
 *   test      test builds only: knobs that widen race windows
 *   topology  sockets and reader CPUs (calls up: struct qpiu_topology_ops)
 *   box       a box's registers as operations, and its lifetime
 *   sbox_hw   the S-Box's registers, over struct qpiu_msr_ops
 *   cfg       every config space and MSR access
 *   platform  PCI IDs and event aliases of each platform
 *   desc, logic, peer   pure tables and rules, shared with the host tests
 */

/* qpi_uncore_cfg.c */
int qpiu_cfg_read(struct pci_dev *pdev, unsigned int off, u32 *val);
void qpiu_cfg_write(struct pci_dev *pdev, unsigned int off, u32 val);
struct pci_dev *qpiu_cfg_port_fn0(struct pci_dev *pdev);
u8 qpiu_cfg_qpi_rate(struct pci_dev *fn0);
int qpiu_cfg_read_lep(struct pci_dev *fn0, struct qpiu_lep *lep);
int qpiu_cfg_msr_read_on(int cpu, u32 msr, u64 *val);
int qpiu_cfg_msr_write_on(int cpu, u32 msr, u64 val);
extern const struct qpiu_msr_ops qpiu_msr_ops;

/* qpi_uncore_box.c */
extern const struct qpiu_box_ops qpiu_pci_box_ops;
extern const struct qpiu_box_ops qpiu_sbox_box_ops;
void qpiu_box_init_hw(struct qpiu_box *box);
void qpiu_box_hold(struct qpiu_box *box, u8 why);
void qpiu_box_unhold(struct qpiu_box *box, u8 why);
void qpiu_box_enable_counter(struct qpiu_box *box, int idx, u32 ctl);
void qpiu_box_disable_counter(struct qpiu_box *box, int idx, u32 ctl);
int qpiu_box_read_counter(struct qpiu_box *box, int idx, u64 *val);
bool qpiu_box_ctl_holds(struct qpiu_box *box, int idx, u32 ctl, u32 *want,
			u32 *found);
void qpiu_box_fault(struct qpiu_box *box, int err, const char *what);
void qpiu_box_write_filter(struct qpiu_box *box, u64 match, u64 mask);
void qpiu_box_start_counter_at(struct qpiu_box *box, int idx, u32 ctl,
			       u64 val);
void qpiu_box_write_counter(struct qpiu_box *box, int idx, u64 val);
void qpiu_box_start_counter(struct qpiu_box *box, int idx, u32 ctl);
u32 qpiu_box_read_status(struct qpiu_box *box);
void qpiu_box_clear_status(struct qpiu_box *box, u32 bits);
void qpiu_box_detach(struct qpiu_box *box);
void qpiu_box_put(struct qpiu_box *box);

/* qpi_uncore_topology.c */
/*
 * What topology tells the layer above it, under qpiu_mutex: socket @socket
 * is now read by @new_cpu (-1: none) instead of @old_cpu.
 */
struct qpiu_topology_ops {
	void (*reader_changed)(unsigned int socket, int old_cpu, int new_cpu);
};

extern struct mutex qpiu_mutex;
int qpiu_bus_socket(struct pci_dev *pdev, const struct qpiu_platform *plat,
		    u32 *gidnidmap);
int qpiu_socket_reader(unsigned int socket);
unsigned int qpiu_socket_die(unsigned int socket);
int qpiu_die_socket(unsigned int die);
unsigned int qpiu_cpu_socket(unsigned int cpu);
int qpiu_hotplug_init(const struct qpiu_topology_ops *ops);
void qpiu_hotplug_exit(void);

/* qpi_uncore_test.c: test builds only (make QPIU_TEST_HOOKS=1) */
#ifdef QPIU_TEST_HOOKS
void qpiu_test_destroy_delay(void);
void qpiu_test_retire_delay(void);
void qpiu_test_open_delay(struct qpiu_box *box, int cpu);
void qpiu_test_reader_delay(void);
void qpiu_test_resched_asked(int n);
void qpiu_test_read(const struct perf_event *event);
void qpiu_test_deliver_window(void);
void qpiu_test_deliver_done(void);
void qpiu_test_offered(bool last, unsigned int n);
void qpiu_test_foreign_checked(void);
void qpiu_test_offered_sync(void);
bool qpiu_test_looks_held(void);
u32 qpiu_test_elsewhere_take(void);
bool qpiu_test_elsewhere_drop_take(void);
u64 qpiu_test_elsewhere_events(void);
void qpiu_test_elsewhere_ran(bool hit);
#else
static inline void qpiu_test_destroy_delay(void) { }
static inline void qpiu_test_retire_delay(void) { }
static inline void qpiu_test_open_delay(struct qpiu_box *box, int cpu) { }
static inline void qpiu_test_reader_delay(void) { }
static inline void qpiu_test_resched_asked(int n) { }
static inline void qpiu_test_read(const struct perf_event *event) { }
static inline void qpiu_test_deliver_window(void) { }
static inline void qpiu_test_deliver_done(void) { }
static inline void qpiu_test_offered(bool last, unsigned int n) { }
static inline void qpiu_test_foreign_checked(void) { }
static inline void qpiu_test_offered_sync(void) { }
static inline bool qpiu_test_looks_held(void) { return false; }
#endif

/* qpi_uncore_reject.c */
__printf(3, 4) int qpiu_reject(const struct qpiu_pmu *qpmu, int err,
			       const char *fmt, ...);
/*
 * A writable unsigned module parameter with a range: module_param_cb()
 * with qpiu_uint_param_ops and one of these as its argument.
 */
struct qpiu_uint_param {
	unsigned int *val;
	unsigned int min, max;
	bool zero_off;		/* 0 is accepted too: off */
};

extern const struct kernel_param_ops qpiu_uint_param_ops;

/* qpi_uncore_counter.c */
/*
 * hw.state: a sampling event stopped with whole periods in hw.period_left
 * that are not sampled yet (PERF_HES_ARCH is the PMU's own bit).
 */
#define QPIU_HES_DUE		PERF_HES_ARCH
/*
 * hw.flags (the PMU's own bits, beside QPIU_HWF_FOREIGN), under box->lock:
 * the event is being handed to perf (qpiu_sample_emit()), which has its
 * hw.period_left for the call and adds to its count without a lock.
 */
#define QPIU_HWF_DELIVER	BIT(1)
void qpiu_event_update(struct qpiu_box *box, struct perf_event *event);
u64 qpiu_event_arm(struct qpiu_box *box, struct perf_event *event);
void qpiu_event_start_locked(struct qpiu_box *box, struct perf_event *event);
void qpiu_event_stop_locked(struct qpiu_box *box, struct perf_event *event,
			    int flags);

/* qpi_uncore_sched.c */
bool qpiu_event_filtered(const struct qpiu_box *box,
			 const struct perf_event *event);
int qpiu_box_place(struct qpiu_box *box, struct perf_event *event);
int qpiu_validate_group(const struct qpiu_pmu *qpmu, struct perf_event *event);

/* qpi_uncore_sample.c */
extern const char *const qpiu_sample_route;
bool qpiu_sample_throttled(const struct perf_event *event);
unsigned int qpiu_sample_emit(struct perf_event *event, u64 period, u64 n);
/*
 * Whether perf checks the first sample of a call against its limit of a
 * tick, and perf's count of @event's samples in the current tick of this
 * CPU, where the route can know it (false: unknown).
 */
bool qpiu_sample_first_checked(void);
bool qpiu_sample_tick_count(const struct perf_event *event, u64 *count);
void qpiu_sample_prepare(void);
void qpiu_sample_exit(void);

/* qpi_uncore_foreign.c */
/*
 * hw.flags (the PMU's own bits, PERF_EVENT_FLAG_ARCH): a foreign writer
 * reprogrammed the event's counter while it counted; the next pmu->add
 * refuses the event once, so perf shows it ran less than it was enabled.
 */
#define QPIU_HWF_FOREIGN	BIT(0)

/*
 * Whether perf schedules @event as pinned: a group is pinned or flexible
 * as its leader is (get_event_type() in kernel/events/core.c).  A pinned
 * group that fails to schedule goes to error state for good, so none of
 * its events may be refused.
 */
static inline bool qpiu_group_pinned(const struct perf_event *event)
{
	return READ_ONCE(event->group_leader)->attr.pinned;
}

u64 qpiu_foreign_interval_ns(void);
void qpiu_foreign_box_unused(struct qpiu_box *box);
bool qpiu_foreign_check(struct qpiu_box *box);
bool qpiu_foreign_look(struct qpiu_box *box, int idx);
void qpiu_foreign_resched(struct qpiu_box *box);
void qpiu_foreign_pmu_init(struct qpiu_pmu *qpmu);
void qpiu_foreign_pmu_exit(struct qpiu_pmu *qpmu);
/* the foreign_writes driver event: no counter, the box's episodes */
static inline bool qpiu_is_driver_event(const struct perf_event *event)
{
	return event->attr.config & QPIU_CFG_DRIVER;
}

void qpiu_foreign_ev_start(struct qpiu_box *box, struct perf_event *event);
void qpiu_foreign_ev_stop(struct qpiu_box *box, struct perf_event *event);
void qpiu_foreign_ev_read(struct qpiu_box *box, struct perf_event *event);

/* qpi_uncore_event.c */
void qpiu_pmu_set_callbacks(struct pmu *pmu);

/* qpi_uncore_look.c */
/* A sampling event that completed @n periods of @period events. */
struct qpiu_due {
	struct perf_event *event;
	u64 period;
	u64 n;
};

static inline bool qpiu_running(const struct perf_event *event)
{
	return event && !(event->hw.state & PERF_HES_STOPPED);
}

bool qpiu_take_due(struct perf_event *event, struct qpiu_due *due, u64 max);
bool qpiu_take_due_last(struct perf_event *event, struct qpiu_due *due,
			bool keep);
u64 qpiu_box_first_ns(const struct qpiu_box *box);
void qpiu_look_read_limit(void);
void qpiu_look_sampling_started(struct qpiu_box *box);
void qpiu_look_sampling_gone(struct qpiu_box *box);
enum hrtimer_restart qpiu_box_timer(struct hrtimer *hrtimer);

/* qpi_uncore_opening.c */
int qpiu_opening_add(struct qpiu_pmu *qpmu, struct perf_event *event);
void qpiu_opening_set_cpu(struct qpiu_pmu *qpmu, struct perf_event *event,
			  int cpu);
void qpiu_opening_del(struct qpiu_pmu *qpmu, struct perf_event *event);
bool qpiu_pmu_settle_reader(struct qpiu_pmu *qpmu, int old_cpu);

/* qpi_uncore_link.c: what sysfs shows of a QPI port's link */
struct qpiu_link_status {
	u8 state;			/* QPILS link_initialization_status */
	enum qpiu_peer_why why;		/* QPIU_PEER_OK: the peer below */
	unsigned int peer_port;
	unsigned int peer_die;
};

void qpiu_link_port_set(unsigned int socket, unsigned int port,
			struct pci_dev *fn0, u32 gidnidmap);
int qpiu_link_status(const struct qpiu_platform *plat, unsigned int die,
		     unsigned int port, struct qpiu_link_status *st);

/* qpi_uncore_sysfs.c */
int qpiu_sysfs_init(struct qpiu_pmu *qpmu, enum qpiu_box_kind kind);
void qpiu_sysfs_free(struct qpiu_pmu *qpmu);

/* qpi_uncore_registry.c: callers hold qpiu_reg_mutex */
extern struct mutex qpiu_reg_mutex;
int qpiu_pmu_name_check(const struct qpiu_platform *plat,
			enum qpiu_box_kind kind, unsigned int idx);
struct qpiu_pmu *qpiu_pmu_get(const struct qpiu_platform *plat,
			      enum qpiu_box_kind kind, unsigned int idx);
struct qpiu_box *qpiu_pmu_add_box(struct qpiu_pmu *qpmu, struct pci_dev *pdev,
				  unsigned int socket, u32 gidnidmap);
struct qpiu_box *qpiu_pmu_add_msr_box(struct qpiu_pmu *qpmu,
				      unsigned int socket);
void qpiu_pmu_remove_box(struct qpiu_box *box);
int qpiu_pmu_set_mm(unsigned int port, unsigned int socket,
		    struct pci_dev *mm);
void qpiu_pmus_destroy(void);
extern const struct qpiu_topology_ops qpiu_pmus_topology_ops;
const char *qpiu_pmus_platform_name(void);

/* qpi_uncore_sbox.c: the Xeon 7500 S-Box PMUs */
int qpiu_sbox_probe(void);
void qpiu_sbox_remove(void);

#endif /* _QPI_UNCORE_H */

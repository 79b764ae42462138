// SPDX-License-Identifier: GPL-2.0
/*
 * qpi_uncore PMU core: one perf PMU per QPI port and R3QPI link index, each
 * covering that box on every socket.  perf opens an event on one CPU per
 * socket (the PMU's cpumask); the event counts that socket's box.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/module.h>
#include <linux/namei.h>
#include <linux/ratelimit.h>
#include <linux/slab.h>

#include "qpi_uncore.h"

/*
 * Serialises PMU registration, boxes coming and going, and reader changes;
 * perf callbacks never take it.
 */
DEFINE_MUTEX(qpiu_mutex);
static struct qpiu_pmu *qpiu_pmus[QPIU_NR_BOX_KINDS][QPIU_MAX_BOXES];
/* Mask/match functions by socket and port, whichever is probed first. */
static struct pci_dev *qpiu_mm_devs[QPIU_MAX_SOCKETS][QPIU_MAX_BOXES];

/* One budget for every refusal, so bad input cannot flood the log. */
static DEFINE_RATELIMIT_STATE(qpiu_reject_rs, DEFAULT_RATELIMIT_INTERVAL,
			      DEFAULT_RATELIMIT_BURST);

static __printf(3, 4) int qpiu_reject(const struct qpiu_pmu *qpmu, int err,
				      const char *fmt, ...)
{
	struct va_format vaf;
	va_list args;

	if (__ratelimit(&qpiu_reject_rs)) {
		va_start(args, fmt);
		vaf.fmt = fmt;
		vaf.va = &args;
		pr_info("%s: %pV\n", qpmu->name, &vaf);
		va_end(args);
	}
	return err;
}

static struct qpiu_pmu *to_qpmu(struct pmu *pmu)
{
	return container_of(pmu, struct qpiu_pmu, pmu);
}

/*
 * Overflows are looked for from the box timer, so a sample is taken at most
 * this long after the counter carried out of its top bit.
 */
#define QPIU_POLL_US_MIN	100
#define QPIU_POLL_US_MAX	100000
static unsigned int qpiu_poll_us = 1000;

static int qpiu_poll_us_set(const char *val, const struct kernel_param *kp)
{
	unsigned int us;
	int ret;

	ret = kstrtouint(val, 0, &us);
	if (ret)
		return ret;
	if (us < QPIU_POLL_US_MIN || us > QPIU_POLL_US_MAX) {
		pr_err("sample_poll_us=%u: must be %u..%u\n", us,
		       QPIU_POLL_US_MIN, QPIU_POLL_US_MAX);
		return -EINVAL;
	}
	WRITE_ONCE(qpiu_poll_us, us);
	return 0;
}

static const struct kernel_param_ops qpiu_poll_us_ops = {
	.set = qpiu_poll_us_set,
	.get = param_get_uint,
};
module_param_cb(sample_poll_us, &qpiu_poll_us_ops, &qpiu_poll_us, 0644);
MODULE_PARM_DESC(sample_poll_us,
		 "Sampling: how often (us, 100..100000) each box is checked for overflows; the longest delay from overflow to sample");

static bool qpiu_use_ov_en = true;
module_param_named(ov_en, qpiu_use_ov_en, bool, 0444);
MODULE_PARM_DESC(ov_en,
		 "Sampling: set ov_en on counters that have it, so BOX_STATUS and the UBox see each overflow (default on)");

static u64 qpiu_box_interval(const struct qpiu_box *box)
{
	u64 poll = (u64)READ_ONCE(qpiu_poll_us) * NSEC_PER_USEC;

	return box->n_sampling ? min(box->fold_ns, poll) : box->fold_ns;
}

/* ---- counting ---- */

static void qpiu_event_update(struct qpiu_box *box, struct perf_event *event)
{
	struct hw_perf_event *hwc = &event->hw;
	u64 now, prev, delta;
	int ret;

	if (hwc->idx < 0 || box->dead)
		return;
	ret = qpiu_box_read_counter(box, hwc->idx, &now);
	if (ret) {
		if (ret != -ENODEV)
			qpiu_box_fault(box, ret, ret == -EIO ?
				       "reads bits no counter has (all ones?)" :
				       "counter moves faster than hardware can");
		return;
	}
	prev = local64_xchg(&hwc->prev_count, now);
	delta = qpiu_delta(prev, now, box->pmu->desc->width);
	local64_add(delta, &event->count);
	if (is_sampling_event(event))
		local64_sub(delta, &hwc->period_left);
}

/*
 * Sampling: the counter starts at 2^width - left, so it carries out of its
 * top bit on the event that completes the period, as the guides describe.
 * hw.period_left counts the events left, as on x86, so perf's frequency
 * code (which resets it to 0 and reloads) works unchanged.
 */
static u64 qpiu_event_arm(struct qpiu_box *box, struct perf_event *event)
{
	struct hw_perf_event *hwc = &event->hw;
	s64 max = BIT_ULL(box->pmu->desc->width) - 1;
	s64 period = min_t(u64, hwc->sample_period, max);
	s64 left = local64_read(&hwc->period_left);

	if (left <= -period) {
		left = period;
		hwc->last_period = period;
	} else if (left <= 0) {
		left += period;
		hwc->last_period = period;
	}
	left = min(left, max);
	local64_set(&hwc->period_left, left);
	return (max + 1 - left) & max;
}

static void qpiu_event_start_locked(struct qpiu_box *box,
				    struct perf_event *event)
{
	struct hw_perf_event *hwc = &event->hw;
	u64 start;

	if (!(hwc->state & PERF_HES_STOPPED))
		return;
	if (is_sampling_event(event)) {
		start = qpiu_event_arm(box, event);
		local64_set(&hwc->prev_count, start);
		qpiu_box_start_counter_at(box, hwc->idx, hwc->config, start);
	} else {
		local64_set(&hwc->prev_count, 0);
		qpiu_box_enable_counter(box, hwc->idx, hwc->config);
	}
	hwc->state = 0;
}

static void qpiu_event_stop_locked(struct qpiu_box *box,
				   struct perf_event *event, int flags)
{
	struct hw_perf_event *hwc = &event->hw;

	if (!(hwc->state & PERF_HES_STOPPED)) {
		qpiu_box_disable_counter(box, hwc->idx, hwc->config);
		hwc->state |= PERF_HES_STOPPED;
	}
	if ((flags & PERF_EF_UPDATE) && !(hwc->state & PERF_HES_UPTODATE)) {
		qpiu_event_update(box, event);
		hwc->state |= PERF_HES_UPTODATE;
	}
}

static bool qpiu_event_filtered(const struct qpiu_box *box,
				const struct perf_event *event)
{
	return qpiu_uses_filter(box->pmu->desc, event->hw.config);
}

static bool qpiu_same_filter(const struct qpiu_box *box,
			     const struct perf_event *event)
{
	return box->filter[0] == event->attr.config1 &&
	       box->filter[1] == event->attr.config2;
}

/*
 * Give @event a counter.  Events already counting keep theirs when possible;
 * when the new event's restrictions need a counter that is taken, the others
 * are moved (stopped, their counts folded, and restarted), which happens
 * inside pmu_disable(), with the box frozen.
 */
static int qpiu_box_place(struct qpiu_box *box, struct perf_event *event)
{
	const struct qpiu_box_desc *desc = box->pmu->desc;
	bool filtered = qpiu_event_filtered(box, event);
	struct perf_event *list[UNC_MAX_CTRS + 1];
	u8 masks[UNC_MAX_CTRS + 1];
	s8 prefer[UNC_MAX_CTRS + 1], out[UNC_MAX_CTRS + 1];
	bool running[UNC_MAX_CTRS + 1];
	unsigned int n = 0, i;

	for (i = 0; i < desc->nr_ctrs; i++) {
		if (!box->events[i])
			continue;
		list[n] = box->events[i];
		masks[n] = qpiu_counter_mask(desc, list[n]->hw.config);
		prefer[n++] = i;
	}
	list[n] = event;
	masks[n] = qpiu_counter_mask(desc, event->hw.config);
	prefer[n++] = -1;
	/* One filter per port: a different one waits for its turn. */
	if (filtered && box->filter_ref && !qpiu_same_filter(box, event))
		return -EAGAIN;
	if (qpiu_assign(masks, n, desc->nr_ctrs, prefer, out))
		return -EAGAIN;
	if (filtered && box->filter_ref++ == 0) {
		box->filter[0] = event->attr.config1;
		box->filter[1] = event->attr.config2;
		qpiu_box_write_filter(box, box->filter[0], box->filter[1]);
	}

	for (i = 0; i + 1 < n; i++) {
		if (out[i] == prefer[i])
			continue;
		running[i] = !(list[i]->hw.state & PERF_HES_STOPPED);
		qpiu_event_stop_locked(box, list[i], PERF_EF_UPDATE);
		box->events[prefer[i]] = NULL;
	}
	for (i = 0; i < n; i++) {
		if (out[i] == prefer[i])
			continue;
		box->events[out[i]] = list[i];
		list[i]->hw.idx = out[i];
		if (i + 1 < n && running[i])
			qpiu_event_start_locked(box, list[i]);
	}
	return 0;
}

/* A sampling event that completed @n periods of @period events. */
struct qpiu_due {
	struct perf_event *event;
	u64 count;
	u64 period;
	u64 n;
};

static bool qpiu_running(const struct perf_event *event)
{
	return event && !(event->hw.state & PERF_HES_STOPPED);
}

/*
 * Look for sampling events that completed a period.  When one has, freeze
 * the box and bring every count up to date, so that all the values the
 * samples carry (group members' included) are of one instant; the box stays
 * frozen until qpiu_box_rearm().  Returns the number of entries in @due.
 */
static unsigned int qpiu_box_collect(struct qpiu_box *box,
				     struct qpiu_due *due)
{
	const struct qpiu_box_desc *desc = box->pmu->desc;
	unsigned int i, nr = 0;
	u32 status = 0, armed = 0, over = 0;
	bool any = false;

	for (i = 0; i < desc->nr_ctrs; i++) {
		struct perf_event *event = box->events[i];

		if (!qpiu_running(event) || !is_sampling_event(event))
			continue;
		qpiu_event_update(box, event);
		any |= local64_read(&event->hw.period_left) <= 0;
	}
	if (!any || box->dead)
		return 0;

	qpiu_box_freeze(box, true);
	for (i = 0; i < desc->nr_ctrs; i++) {
		struct perf_event *event = box->events[i];

		if (qpiu_running(event))
			qpiu_event_update(box, event);
		if (qpiu_running(event) && (event->hw.config & UNC_CTL_OV_EN))
			armed |= BIT(i);
	}
	if (armed)
		status = qpiu_box_read_status(box);

	for (i = 0; i < desc->nr_ctrs; i++) {
		struct perf_event *event = box->events[i];
		struct hw_perf_event *hwc;
		s64 left;
		u64 period;

		if (!qpiu_running(event) || !is_sampling_event(event))
			continue;
		hwc = &event->hw;
		left = local64_read(&hwc->period_left);
		if (left > 0)
			continue;
		over |= BIT(i);
		/* perf writes a sample on the event's own CPU only */
		if (event->oncpu != smp_processor_id())
			continue;
		/*
		 * n whole periods of the one armed; what came after the last
		 * of them starts the next period, as on x86, where
		 * period_left <= 0 means "overflowed by that much".
		 */
		period = hwc->last_period;
		due[nr].event = event;
		due[nr].count = local64_read(&event->count);
		due[nr].period = period;
		due[nr].n = 1 + (u64)-left / period;
		local64_set(&hwc->period_left, -(s64)((u64)-left % period));
		nr++;
	}

	/*
	 * The counter is the record; BOX_STATUS must agree with it.  A box
	 * that disagrees is not behaving as the guide says: say so once.
	 */
	if ((status ^ over) & armed && !box->warned_status) {
		box->warned_status = true;
		pr_warn("%s: socket %u: BOX_STATUS 0x%x, but counters 0x%x completed their period\n",
			box->pmu->name, box->socket, status & armed,
			over & armed);
	}
	qpiu_box_clear_status(box, status & armed);
	return nr;
}

/* Start the next periods of the events in @due; unfreeze the box. */
static void qpiu_box_rearm(struct qpiu_box *box, struct qpiu_due *due,
			   unsigned int nr)
{
	unsigned int i;

	for (i = 0; i < nr; i++) {
		struct perf_event *event = due[i].event;
		struct hw_perf_event *hwc = &event->hw;
		u64 start;

		/* perf may have stopped or moved it while sampling */
		if (!qpiu_running(event) || hwc->idx < 0 ||
		    box->events[hwc->idx] != event)
			continue;
		start = qpiu_event_arm(box, event);
		local64_set(&hwc->prev_count, start);
		qpiu_box_write_counter(box, hwc->idx, start);
	}
	qpiu_box_freeze(box, false);
}

static void qpiu_box_fold(struct qpiu_box *box)
{
	unsigned int i;

	for (i = 0; i < box->pmu->desc->nr_ctrs; i++)
		if (qpiu_running(box->events[i]))
			qpiu_event_update(box, box->events[i]);
}

static enum hrtimer_restart qpiu_fold(struct hrtimer *hrtimer)
{
	struct qpiu_box *box = container_of(hrtimer, struct qpiu_box, hrtimer);
	struct qpiu_due due[UNC_MAX_CTRS];
	unsigned int nr = 0, i;
	unsigned long flags;
	u64 now = ktime_get_ns();

	raw_spin_lock_irqsave(&box->lock, flags);
	if (!box->n_active || box->dead) {
		raw_spin_unlock_irqrestore(&box->lock, flags);
		return HRTIMER_NORESTART;
	}
	if (box->n_sampling) {
		nr = qpiu_box_collect(box, due);
		if (!nr)
			qpiu_box_freeze(box, false);
	}
	if (now >= box->fold_next) {
		qpiu_box_fold(box);
		box->fold_next = now + box->fold_ns;
	}
	raw_spin_unlock_irqrestore(&box->lock, flags);

	if (nr) {
		/* unlocked: perf reads group members through pmu->read() */
		for (i = 0; i < nr; i++)
			qpiu_sample_emit(due[i].event, due[i].count,
					 due[i].period, due[i].n);
		raw_spin_lock_irqsave(&box->lock, flags);
		qpiu_box_rearm(box, due, nr);
		raw_spin_unlock_irqrestore(&box->lock, flags);
	}
	hrtimer_forward_now(hrtimer, ns_to_ktime(qpiu_box_interval(box)));
	return HRTIMER_RESTART;
}

static int qpiu_event_add(struct perf_event *event, int flags)
{
	struct qpiu_box *box = event->pmu_private;
	struct hw_perf_event *hwc = &event->hw;
	unsigned long irqflags;
	int ret;

	raw_spin_lock_irqsave(&box->lock, irqflags);
	/*
	 * An event of a box that is gone, or whose filter went with its
	 * mask/match function, stays scheduled with its count frozen: failing
	 * here would block every event queued behind it, and counting
	 * unfiltered would be wrong.
	 */
	if (box->dead || (qpiu_event_filtered(box, event) && !box->mm &&
			  !box->msr &&
			  (event->attr.config1 || event->attr.config2))) {
		hwc->state = PERF_HES_STOPPED | PERF_HES_UPTODATE;
		hwc->idx = -1;
		raw_spin_unlock_irqrestore(&box->lock, irqflags);
		return 0;
	}
	ret = qpiu_box_place(box, event);
	if (!ret) {
		bool first = box->n_active++ == 0;

		hwc->state = PERF_HES_STOPPED | PERF_HES_UPTODATE;
		if (flags & PERF_EF_START)
			qpiu_event_start_locked(box, event);
		if (first)
			box->fold_next = ktime_get_ns() + box->fold_ns;
		/* the first sampling event shortens the timer's interval */
		if (is_sampling_event(event) && box->n_sampling++ == 0)
			first = true;
		if (first)
			hrtimer_start(&box->hrtimer,
				      ns_to_ktime(qpiu_box_interval(box)),
				      HRTIMER_MODE_REL_PINNED_HARD);
	}
	raw_spin_unlock_irqrestore(&box->lock, irqflags);
	return ret;
}

static void qpiu_event_del(struct perf_event *event, int flags)
{
	struct qpiu_box *box = event->pmu_private;
	struct hw_perf_event *hwc = &event->hw;
	unsigned long irqflags;

	raw_spin_lock_irqsave(&box->lock, irqflags);
	qpiu_event_stop_locked(box, event, PERF_EF_UPDATE);
	if (hwc->idx >= 0) {
		box->events[hwc->idx] = NULL;
		hwc->idx = -1;
		if (qpiu_event_filtered(box, event))
			box->filter_ref--;
		if (is_sampling_event(event))
			box->n_sampling--;
		/* The fold timer stops itself if it is running elsewhere. */
		if (--box->n_active == 0)
			hrtimer_try_to_cancel(&box->hrtimer);
	}
	raw_spin_unlock_irqrestore(&box->lock, irqflags);
}

static void qpiu_event_start(struct perf_event *event, int flags)
{
	struct qpiu_box *box = event->pmu_private;
	unsigned long irqflags;

	raw_spin_lock_irqsave(&box->lock, irqflags);
	if (event->hw.idx >= 0)
		qpiu_event_start_locked(box, event);
	raw_spin_unlock_irqrestore(&box->lock, irqflags);
}

static void qpiu_event_stop(struct perf_event *event, int flags)
{
	struct qpiu_box *box = event->pmu_private;
	unsigned long irqflags;

	raw_spin_lock_irqsave(&box->lock, irqflags);
	if (event->hw.idx >= 0)
		qpiu_event_stop_locked(box, event, flags);
	raw_spin_unlock_irqrestore(&box->lock, irqflags);
}

static void qpiu_event_read(struct perf_event *event)
{
	struct qpiu_box *box = event->pmu_private;
	unsigned long irqflags;

	raw_spin_lock_irqsave(&box->lock, irqflags);
	if (!(event->hw.state & PERF_HES_STOPPED))
		qpiu_event_update(box, event);
	raw_spin_unlock_irqrestore(&box->lock, irqflags);
}

/*
 * perf brackets group scheduling with pmu_disable/pmu_enable on the CPU
 * doing it: freeze the box this CPU reads, so a group starts and stops at
 * one instant.  Other CPUs of the socket must not touch it.
 */
static void qpiu_pmu_freeze(struct pmu *pmu, bool freeze)
{
	struct qpiu_pmu *qpmu = to_qpmu(pmu);
	unsigned int cpu = smp_processor_id();
	unsigned int socket = qpiu_cpu_socket(cpu);
	struct qpiu_box *box;
	unsigned long flags;

	if (socket >= QPIU_MAX_SOCKETS)
		return;
	rcu_read_lock();
	box = rcu_dereference(qpmu->boxes[socket]);
	if (box) {
		raw_spin_lock_irqsave(&box->lock, flags);
		if (box->cpu == cpu && (!freeze || box->n_active))
			qpiu_box_freeze(box, freeze);
		raw_spin_unlock_irqrestore(&box->lock, flags);
	}
	rcu_read_unlock();
}

static void qpiu_pmu_enable(struct pmu *pmu)
{
	qpiu_pmu_freeze(pmu, false);
}

static void qpiu_pmu_disable(struct pmu *pmu)
{
	qpiu_pmu_freeze(pmu, true);
}

/* ---- event_init ---- */

static void qpiu_box_release(struct kref *ref)
{
	struct qpiu_box *box = container_of(ref, struct qpiu_box, ref);

	kfree_rcu(box, rcu);
}

static void qpiu_event_destroy(struct perf_event *event)
{
	struct qpiu_box *box = event->pmu_private;

	atomic_dec(&box->pmu->nr_events);
	kref_put(&box->ref, qpiu_box_release);
}

struct qpiu_group {
	u8 masks[QPIU_MAX_GROUP];
	unsigned int n;
	const struct perf_event *filtered;	/* first cto_count member */
};

static int qpiu_group_member(const struct qpiu_pmu *qpmu,
			     struct perf_event *member, struct qpiu_group *g)
{
	if (member->pmu != &qpmu->pmu) {
		if (is_software_event(member))
			return 0;
		return qpiu_reject(qpmu, -EINVAL,
				   "group: cannot mix with events of PMU type %u; add only software events",
				   member->attr.type);
	}
	if (g->n >= qpmu->desc->nr_ctrs)
		return qpiu_reject(qpmu, -EINVAL,
				   "group: more than %u events; the box has %u counters",
				   qpmu->desc->nr_ctrs, qpmu->desc->nr_ctrs);
	if (qpiu_uses_filter(qpmu->desc, member->hw.config)) {
		if (g->filtered &&
		    (g->filtered->attr.config1 != member->attr.config1 ||
		     g->filtered->attr.config2 != member->attr.config2))
			return qpiu_reject(qpmu, -EINVAL,
					   "group: cto_count events with different config1/config2 cannot count together (one packet filter per port)");
		g->filtered = member;
	}
	g->masks[g->n++] = qpiu_counter_mask(qpmu->desc, member->hw.config);
	return 0;
}

/*
 * A group must fit the box at once.  This runs before the group leader's
 * context is locked, so the sibling list is read the way perf's own group
 * validation does; add() enforces the same rule again at schedule time.
 */
static int qpiu_validate_group(const struct qpiu_pmu *qpmu,
			       struct perf_event *event)
{
	struct perf_event *leader = event->group_leader, *sibling;
	struct qpiu_group g = { };
	s8 out[QPIU_MAX_GROUP];
	int ret;

	if (leader != event) {
		ret = qpiu_group_member(qpmu, leader, &g);
		if (ret)
			return ret;
		list_for_each_entry(sibling, &leader->sibling_list,
				    sibling_list) {
			ret = qpiu_group_member(qpmu, sibling, &g);
			if (ret)
				return ret;
		}
	}
	ret = qpiu_group_member(qpmu, event, &g);
	if (ret)
		return ret;
	if (qpiu_assign(g.masks, g.n, qpmu->desc->nr_ctrs, NULL, out))
		return qpiu_reject(qpmu, -EINVAL,
				   "group: these %u events cannot count together (counter restrictions of event 0x%llx)",
				   g.n, event->attr.config & 0xffff);
	return 0;
}

/*
 * What a sample of an uncore counter can hold.  IP, TID and CGROUP are of
 * whatever the reader CPU was running when the sample was taken.
 */
#define QPIU_SAMPLE_TYPES	(PERF_SAMPLE_IP | PERF_SAMPLE_TID | \
				 PERF_SAMPLE_TIME | PERF_SAMPLE_READ | \
				 PERF_SAMPLE_ID | PERF_SAMPLE_CPU | \
				 PERF_SAMPLE_PERIOD | PERF_SAMPLE_STREAM_ID | \
				 PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_CGROUP)

static const char *const qpiu_sample_bit_names[] = {
	"IP", "TID", "TIME", "ADDR", "READ", "CALLCHAIN", "ID", "CPU",
	"PERIOD", "STREAM_ID", "RAW", "BRANCH_STACK", "REGS_USER",
	"STACK_USER", "WEIGHT", "DATA_SRC", "IDENTIFIER", "TRANSACTION",
	"REGS_INTR", "PHYS_ADDR", "AUX", "CGROUP", "DATA_PAGE_SIZE",
	"CODE_PAGE_SIZE", "WEIGHT_STRUCT",
};

static int qpiu_check_sampling(const struct qpiu_pmu *qpmu,
			       struct perf_event *event)
{
	const struct perf_event_attr *attr = &event->attr;
	u64 bad = attr->sample_type & ~(u64)QPIU_SAMPLE_TYPES;
	u64 max = BIT_ULL(qpmu->desc->width) - 1;

	if (!qpiu_sample_route)
		return qpiu_reject(qpmu, -EOPNOTSUPP,
				   "sample_period/sample_freq: counting only; this kernel exports neither perf_event_overflow nor perf_tp_event to modules, so a module cannot deliver samples");
	if (qpmu->desc->kind == QPIU_BOX_SBOX)
		return qpiu_reject(qpmu, -EOPNOTSUPP,
				   "sample_period/sample_freq: the S-Box PMUs count only");
	if (bad) {
		unsigned int bit = __ffs64(bad);

		return qpiu_reject(qpmu, -EINVAL,
				   "sample_type bit %u (PERF_SAMPLE_%s): an uncore counter has no such data; allowed: IP TID TIME READ ID CPU PERIOD STREAM_ID IDENTIFIER CGROUP",
				   bit, bit < ARRAY_SIZE(qpiu_sample_bit_names) ?
				   qpiu_sample_bit_names[bit] : "?");
	}
	/*
	 * perf adjusts a frequency event's period from the time between its
	 * samples and from the reader CPU's tick.  Uncore overflows arrive in
	 * batches from the box timer, mostly while the reader CPU idles with
	 * its tick stopped: the estimate would be wrong and stay wrong.
	 */
	if (attr->freq)
		return qpiu_reject(qpmu, -EINVAL,
				   "sample_freq=%llu: frequency mode (perf record -F, perf's default) is not supported on uncore counters; give a fixed period: perf record -c N",
				   attr->sample_freq);
	if (attr->precise_ip)
		return qpiu_reject(qpmu, -EINVAL,
				   "precise_ip=%u: uncore counters have no precise sampling; use 0",
				   attr->precise_ip);
	if (attr->sample_period > max)
		return qpiu_reject(qpmu, -EINVAL,
				   "sample_period=%llu: at most %llu (2^%u-1, the counter width)",
				   attr->sample_period, max, qpmu->desc->width);
	return 0;
}

/* PERF_EVENT_IOC_PERIOD: the same rule as at open. */
static int qpiu_check_period(struct perf_event *event, u64 value)
{
	struct qpiu_pmu *qpmu = to_qpmu(event->pmu);
	u64 max = BIT_ULL(qpmu->desc->width) - 1;

	if (value > max)
		return qpiu_reject(qpmu, -EINVAL,
				   "period %llu: at most %llu (2^%u-1, the counter width)",
				   value, max, qpmu->desc->width);
	return 0;
}

static int qpiu_event_init(struct perf_event *event)
{
	struct qpiu_pmu *qpmu = to_qpmu(event->pmu);
	struct perf_event_attr *attr = &event->attr;
	char msg[QPIU_MSG_LEN];
	unsigned int socket;
	bool has_mm;
	struct qpiu_box *box;
	int ret;

	if (attr->type != event->pmu->type)
		return -ENOENT;

	if (is_sampling_event(event)) {
		ret = qpiu_check_sampling(qpmu, event);
		if (ret)
			return ret;
	}
	if (event->cpu < 0)
		return qpiu_reject(qpmu, -EINVAL,
				   "cpu=-1: uncore events count per socket; open them system-wide (perf -a), not per task");
	if (attr->exclude_user || attr->exclude_kernel || attr->exclude_hv ||
	    attr->exclude_idle || attr->exclude_host || attr->exclude_guest)
		return qpiu_reject(qpmu, -EINVAL,
				   "exclude_*: uncore counters count at every privilege level and cannot exclude one");
	if (!cpumask_test_cpu(event->cpu, &qpmu->cpumask))
		return qpiu_reject(qpmu, -EINVAL,
				   "cpu=%d: not in cpumask %*pbl; each socket is read from one CPU",
				   event->cpu, cpumask_pr_args(&qpmu->cpumask));
	ret = qpiu_check_config(qpmu->desc, attr->config, attr->config1,
				attr->config2, msg, sizeof(msg));
	if (ret)
		return qpiu_reject(qpmu, ret, "%s", msg);

	event->hw.config = qpiu_ctl_bits(qpmu->desc, attr->config);
	if (is_sampling_event(event) && qpmu->desc->has_ov_en &&
	    qpiu_use_ov_en)
		event->hw.config |= UNC_CTL_OV_EN;
	event->hw.idx = -1;
	ret = qpiu_validate_group(qpmu, event);
	if (ret)
		return ret;

	/*
	 * No driver mutex here: perf may hold context mutexes around
	 * event_init, and qpiu_mutex is held around perf_pmu_register().
	 * Boxes are freed after an RCU grace period.
	 */
	socket = qpiu_cpu_socket(event->cpu);
	/*
	 * Counted before the box is looked up, so that qpiu_pmu_remove_box()
	 * either sees this event or this lookup sees no box (both sides
	 * order their store before their load).
	 */
	atomic_inc(&qpmu->nr_events);
	/* pairs with smp_mb() in qpiu_pmu_retire_if_unused() */
	smp_mb__after_atomic();
	rcu_read_lock();
	box = socket < QPIU_MAX_SOCKETS ?
	      rcu_dereference(qpmu->boxes[socket]) : NULL;
	if (box && (READ_ONCE(box->dead) || !kref_get_unless_zero(&box->ref)))
		box = NULL;
	has_mm = box && (READ_ONCE(box->mm) || box->msr);
	rcu_read_unlock();
	if (!box) {
		atomic_dec(&qpmu->nr_events);
		return qpiu_reject(qpmu, -ENODEV,
				   "socket %u: the box is gone (removed or failed)",
				   socket);
	}
	if (!has_mm && (attr->config1 || attr->config2)) {
		kref_put(&box->ref, qpiu_box_release);
		atomic_dec(&qpmu->nr_events);
		return qpiu_reject(qpmu, -ENODEV,
				   "config1/config2: socket %u has no mask/match function for port %u, so cto_count cannot be filtered there",
				   socket, qpmu->idx);
	}

	event->pmu_private = box;
	event->destroy = qpiu_event_destroy;
	return 0;
}

/* ---- sysfs ---- */

static ssize_t qpiu_format_show(struct device *dev,
				struct device_attribute *attr, char *buf)
{
	struct dev_ext_attribute *ea = container_of(attr, typeof(*ea), attr);

	return sysfs_emit(buf, "%s\n", (const char *)ea->var);
}

#define QPIU_FORMAT(_var, _name, _fmt)					\
	static struct dev_ext_attribute _var = {			\
		__ATTR(_name, 0444, qpiu_format_show, NULL), (void *)(_fmt) \
	}

/* Bit 8 of perf's event code (ExtSel in perf's tables) is ev_sel_ext. */
QPIU_FORMAT(qpiu_fmt_qpi_event, event, "config:0-7,21");
QPIU_FORMAT(qpiu_fmt_r3qpi_event, event, "config:0-7");	/* and S-Box */
QPIU_FORMAT(qpiu_fmt_umask, umask, "config:8-15");
QPIU_FORMAT(qpiu_fmt_edge, edge, "config:18");
QPIU_FORMAT(qpiu_fmt_inv, inv, "config:23");
QPIU_FORMAT(qpiu_fmt_thresh, thresh, "config:24-31");

/*
 * The packet filter, named as existing tools name it: config1 is
 * MATCH1:MATCH0, config2 is MASK1:MASK0 (Tables 2-88 to 2-91).
 */
QPIU_FORMAT(qpiu_fmt_match_rds, match_rds, "config1:48-51");
QPIU_FORMAT(qpiu_fmt_match_rnid30, match_rnid30, "config1:32-35");
QPIU_FORMAT(qpiu_fmt_match_rnid4, match_rnid4, "config1:31");
QPIU_FORMAT(qpiu_fmt_match_dnid, match_dnid, "config1:13-17");
QPIU_FORMAT(qpiu_fmt_match_mc, match_mc, "config1:9-12");
QPIU_FORMAT(qpiu_fmt_match_opc, match_opc, "config1:5-8");
QPIU_FORMAT(qpiu_fmt_match_vnw, match_vnw, "config1:3-4");
QPIU_FORMAT(qpiu_fmt_match0, match0, "config1:0-31");
QPIU_FORMAT(qpiu_fmt_match1, match1, "config1:32-63");
QPIU_FORMAT(qpiu_fmt_mask_rds, mask_rds, "config2:48-51");
QPIU_FORMAT(qpiu_fmt_mask_rnid30, mask_rnid30, "config2:32-35");
QPIU_FORMAT(qpiu_fmt_mask_rnid4, mask_rnid4, "config2:31");
QPIU_FORMAT(qpiu_fmt_mask_dnid, mask_dnid, "config2:13-17");
QPIU_FORMAT(qpiu_fmt_mask_mc, mask_mc, "config2:9-12");
QPIU_FORMAT(qpiu_fmt_mask_opc, mask_opc, "config2:5-8");
QPIU_FORMAT(qpiu_fmt_mask_vnw, mask_vnw, "config2:3-4");
QPIU_FORMAT(qpiu_fmt_mask0, mask0, "config2:0-31");
QPIU_FORMAT(qpiu_fmt_mask1, mask1, "config2:32-63");

static struct attribute *qpiu_qpi_format_attrs[] = {
	&qpiu_fmt_qpi_event.attr.attr,
	&qpiu_fmt_umask.attr.attr,
	&qpiu_fmt_edge.attr.attr,
	&qpiu_fmt_inv.attr.attr,
	&qpiu_fmt_thresh.attr.attr,
	&qpiu_fmt_match_rds.attr.attr,
	&qpiu_fmt_match_rnid30.attr.attr,
	&qpiu_fmt_match_rnid4.attr.attr,
	&qpiu_fmt_match_dnid.attr.attr,
	&qpiu_fmt_match_mc.attr.attr,
	&qpiu_fmt_match_opc.attr.attr,
	&qpiu_fmt_match_vnw.attr.attr,
	&qpiu_fmt_match0.attr.attr,
	&qpiu_fmt_match1.attr.attr,
	&qpiu_fmt_mask_rds.attr.attr,
	&qpiu_fmt_mask_rnid30.attr.attr,
	&qpiu_fmt_mask_rnid4.attr.attr,
	&qpiu_fmt_mask_dnid.attr.attr,
	&qpiu_fmt_mask_mc.attr.attr,
	&qpiu_fmt_mask_opc.attr.attr,
	&qpiu_fmt_mask_vnw.attr.attr,
	&qpiu_fmt_mask0.attr.attr,
	&qpiu_fmt_mask1.attr.attr,
	NULL,
};

static struct attribute *qpiu_r3qpi_format_attrs[] = {
	&qpiu_fmt_r3qpi_event.attr.attr,
	&qpiu_fmt_umask.attr.attr,
	&qpiu_fmt_edge.attr.attr,
	&qpiu_fmt_thresh.attr.attr,
	NULL,
};

/* S-Box: the MATCH/MASK layout is not ours to name; 64 bits each. */
QPIU_FORMAT(qpiu_fmt_sbox_match, match, "config1:0-63");
QPIU_FORMAT(qpiu_fmt_sbox_mask, mask, "config2:0-63");

static struct attribute *qpiu_sbox_format_attrs[] = {
	&qpiu_fmt_r3qpi_event.attr.attr,
	&qpiu_fmt_umask.attr.attr,
	&qpiu_fmt_edge.attr.attr,
	&qpiu_fmt_inv.attr.attr,
	&qpiu_fmt_thresh.attr.attr,
	&qpiu_fmt_sbox_match.attr.attr,
	&qpiu_fmt_sbox_mask.attr.attr,
	NULL,
};

static const struct attribute_group qpiu_format_groups[QPIU_NR_BOX_KINDS] = {
	[QPIU_BOX_QPI] = { .name = "format", .attrs = qpiu_qpi_format_attrs },
	[QPIU_BOX_R3QPI] = { .name = "format",
			     .attrs = qpiu_r3qpi_format_attrs },
	[QPIU_BOX_SBOX] = { .name = "format", .attrs = qpiu_sbox_format_attrs },
};

static ssize_t cpumask_show(struct device *dev, struct device_attribute *attr,
			    char *buf)
{
	struct qpiu_pmu *qpmu = to_qpmu(dev_get_drvdata(dev));

	/* A snapshot; no driver lock, see qpiu_event_init(). */
	return cpumap_print_to_pagebuf(true, buf, &qpmu->cpumask);
}
static DEVICE_ATTR_RO(cpumask);

/*
 * QPI link speed of each socket's port, from QPI_RATE_STATUS of the port's
 * function 0: "<socket> <GT/s>" a line, "unknown" for codes 0 and 1.
 */
static ssize_t link_speed_show(struct device *dev,
			       struct device_attribute *attr, char *buf)
{
	struct qpiu_pmu *qpmu = to_qpmu(dev_get_drvdata(dev));
	unsigned int s, len = 0;

	rcu_read_lock();
	for (s = 0; s < QPIU_MAX_SOCKETS; s++) {
		struct qpiu_box *box = rcu_dereference(qpmu->boxes[s]);

		if (!box)
			continue;
		if (box->rate_code < 2)
			len += sysfs_emit_at(buf, len, "%u unknown\n", s);
		else
			len += sysfs_emit_at(buf, len, "%u %u.%u\n", s,
					     (56 + 8 * (box->rate_code - 2)) / 10,
					     (56 + 8 * (box->rate_code - 2)) % 10);
	}
	rcu_read_unlock();
	return len;
}
static DEVICE_ATTR_RO(link_speed);

static struct attribute *qpiu_cpumask_attrs[] = {
	&dev_attr_cpumask.attr,
	&dev_attr_link_speed.attr,
	NULL,
};

static umode_t qpiu_attr_visible(struct kobject *kobj, struct attribute *attr,
				 int n)
{
	struct qpiu_pmu *qpmu = to_qpmu(dev_get_drvdata(kobj_to_dev(kobj)));

	if (attr == &dev_attr_link_speed.attr &&
	    qpmu->desc->kind != QPIU_BOX_QPI)
		return 0;
	return attr->mode;
}

static const struct attribute_group qpiu_cpumask_group = {
	.attrs = qpiu_cpumask_attrs,
	.is_visible = qpiu_attr_visible,
};

/* Names the in-tree driver gave these events; scripts use them. */
static const struct qpiu_event_desc qpiu_compat_qpi_events[] = {
	{ "drs_data", "event=0x102,umask=0x08" },
	{ "ncb_data", "event=0x103,umask=0x04" },
	{ "txl_flits_active", "event=0x00,umask=0x06" },
	{ }
};

static int qpiu_add_event_attr(struct qpiu_pmu *qpmu, unsigned int *n,
			       const char *name, const char *suffix,
			       const char *str)
{
	struct perf_pmu_events_attr *pa = &qpmu->event_descs[*n];

	sysfs_attr_init(&pa->attr.attr);
	if (suffix) {
		/* perf reads <event>.scale and <event>.unit beside the event */
		qpmu->event_names[*n] = kasprintf(GFP_KERNEL, "%s.%s", name,
						  suffix);
		if (!qpmu->event_names[*n])
			return -ENOMEM;
		name = qpmu->event_names[*n];
	}
	pa->attr.attr.name = name;
	pa->attr.attr.mode = 0444;
	pa->attr.show = perf_event_sysfs_show;
	pa->event_str = str;
	qpmu->event_attrs[(*n)++] = &pa->attr.attr;
	return 0;
}

static int qpiu_build_events(struct qpiu_pmu *qpmu, enum qpiu_box_kind kind)
{
	const struct qpiu_event_desc *tables[] = {
		qpmu->plat->events[kind],
		kind == QPIU_BOX_QPI ? qpiu_compat_qpi_events : NULL,
	};
	unsigned int n = 0, i, t;
	int ret = 0;

	for (t = 0; t < ARRAY_SIZE(tables); t++)
		for (i = 0; tables[t] && tables[t][i].name; i++)
			n += tables[t][i].scale ? 3 : 1;
	qpmu->event_descs = kcalloc(n, sizeof(*qpmu->event_descs), GFP_KERNEL);
	qpmu->event_names = kcalloc(n, sizeof(*qpmu->event_names), GFP_KERNEL);
	qpmu->event_attrs = kcalloc(n + 1, sizeof(*qpmu->event_attrs),
				    GFP_KERNEL);
	if (!qpmu->event_descs || !qpmu->event_names || !qpmu->event_attrs)
		return -ENOMEM;
	qpmu->nr_event_attrs = n;

	n = 0;
	for (t = 0; t < ARRAY_SIZE(tables); t++) {
		for (i = 0; !ret && tables[t] && tables[t][i].name; i++) {
			const struct qpiu_event_desc *d = &tables[t][i];

			ret = qpiu_add_event_attr(qpmu, &n, d->name, NULL,
						  d->config);
			if (!ret && d->scale)
				ret = qpiu_add_event_attr(qpmu, &n, d->name,
							  "scale", d->scale) ?:
				      qpiu_add_event_attr(qpmu, &n, d->name,
							  "unit", d->unit);
		}
	}
	qpmu->events_group.name = "events";
	qpmu->events_group.attrs = qpmu->event_attrs;
	return ret;
}

static void qpiu_pmu_free(struct qpiu_pmu *qpmu)
{
	unsigned int i;

	for (i = 0; qpmu->event_names && i < qpmu->nr_event_attrs; i++)
		kfree(qpmu->event_names[i]);
	kfree(qpmu->event_names);
	kfree(qpmu->event_attrs);
	kfree(qpmu->event_descs);
	kfree(qpmu);
}

/*
 * intel_uncore registers PMUs of the same names.  perf_pmu_register() would
 * fail on the duplicate sysfs name with a stack dump; say what is wrong
 * instead.
 */
static bool qpiu_pmu_name_taken(const char *name)
{
	char path[64];
	struct path p;

	snprintf(path, sizeof(path), "/sys/bus/event_source/devices/%s", name);
	if (kern_path(path, 0, &p))
		return false;
	path_put(&p);
	return true;
}

/* The PMU for box @idx of @kind, registered on first use. */
struct qpiu_pmu *qpiu_pmu_get(const struct qpiu_platform *plat,
			      enum qpiu_box_kind kind, unsigned int idx)
{
	struct qpiu_pmu *qpmu;
	int ret;

	lockdep_assert_held(&qpiu_mutex);
	if (idx >= QPIU_MAX_BOXES)
		return ERR_PTR(-ERANGE);
	qpmu = qpiu_pmus[kind][idx];
	if (qpmu)
		return qpmu->plat == plat ? qpmu : ERR_PTR(-EXDEV);

	qpmu = kzalloc(sizeof(*qpmu), GFP_KERNEL);
	if (!qpmu)
		return ERR_PTR(-ENOMEM);
	qpmu->plat = plat;
	qpmu->desc = plat->box[kind];
	qpmu->idx = idx;
	snprintf(qpmu->name, sizeof(qpmu->name), "uncore_%s_%u",
		 qpmu->desc->name, idx);
	ret = qpiu_build_events(qpmu, kind);
	if (ret)
		goto err;
	qpmu->groups[0] = &qpiu_format_groups[kind];
	qpmu->groups[1] = &qpmu->events_group;
	qpmu->groups[2] = &qpiu_cpumask_group;

	if (qpiu_pmu_name_taken(qpmu->name)) {
		pr_err("%s: a PMU of that name exists already, most likely from intel_uncore; unload it (rmmod intel_uncore) or blacklist it, then load qpi_uncore again\n",
		       qpmu->name);
		ret = -EBUSY;
		goto err;
	}

	qpmu->pmu = (struct pmu) {
		.module		= THIS_MODULE,
		.task_ctx_nr	= perf_invalid_context,
		.attr_groups	= qpmu->groups,
		.event_init	= qpiu_event_init,
		.add		= qpiu_event_add,
		.del		= qpiu_event_del,
		.start		= qpiu_event_start,
		.stop		= qpiu_event_stop,
		.read		= qpiu_event_read,
		.pmu_enable	= qpiu_pmu_enable,
		.pmu_disable	= qpiu_pmu_disable,
		.check_period	= qpiu_check_period,
	};
	ret = perf_pmu_register(&qpmu->pmu, qpmu->name, -1);
	if (ret) {
		pr_err("%s: perf_pmu_register failed: %d\n", qpmu->name, ret);
		goto err;
	}
	qpmu->registered = true;
	qpiu_pmus[kind][idx] = qpmu;
	return qpmu;
err:
	qpiu_pmu_free(qpmu);
	return ERR_PTR(ret);
}

/* QPI_RATE_STATUS lives on function 0 of the port's slot (not ours). */
static u8 qpiu_qpi_rate(struct pci_dev *pdev)
{
	struct pci_dev *fn0;
	u32 val = 0;

	fn0 = pci_get_slot(pdev->bus, PCI_DEVFN(PCI_SLOT(pdev->devfn), 0));
	if (fn0 && fn0->vendor == PCI_VENDOR_ID_INTEL &&
	    !pci_read_config_dword(fn0, QPI_RATE_STATUS, &val) && val != ~0U)
		val &= QPI_RATE_STATUS_CODE;
	else
		val = 0;
	pci_dev_put(fn0);
	return val;
}

static struct qpiu_box *qpiu_box_new(struct qpiu_pmu *qpmu,
				     struct pci_dev *pdev, unsigned int socket,
				     const struct qpiu_msr_ops *msr)
{
	struct qpiu_box *box;

	lockdep_assert_held(&qpiu_mutex);
	if (socket >= QPIU_MAX_SOCKETS)
		return ERR_PTR(-ERANGE);
	if (rcu_access_pointer(qpmu->boxes[socket]))
		return ERR_PTR(-EEXIST);

	box = kzalloc(sizeof(*box), GFP_KERNEL);
	if (!box)
		return ERR_PTR(-ENOMEM);
	kref_init(&box->ref);
	raw_spin_lock_init(&box->lock);
	box->pmu = qpmu;
	box->socket = socket;
	box->pdev = pdev;
	box->cpu = qpiu_socket_reader(socket);
	box->fold_ns = qpiu_fold_interval_ns(qpmu->desc);
	if (msr) {
		box->msr = true;
		box->sbox = (struct qpiu_sbox){ .ops = msr, .ctx = box,
						.idx = qpmu->idx };
	}
	if (pdev && qpmu->desc->has_filter)
		box->mm = qpiu_mm_devs[socket][qpmu->idx];
	if (pdev && qpmu->desc->kind == QPIU_BOX_QPI)
		box->rate_code = qpiu_qpi_rate(pdev);
	hrtimer_init(&box->hrtimer, CLOCK_MONOTONIC, HRTIMER_MODE_REL_HARD);
	box->hrtimer.function = qpiu_fold;
	qpiu_box_init_hw(box);

	rcu_assign_pointer(qpmu->boxes[socket], box);
	if (box->cpu >= 0)
		cpumask_set_cpu(box->cpu, &qpmu->cpumask);
	return box;
}

struct qpiu_box *qpiu_pmu_add_box(struct qpiu_pmu *qpmu, struct pci_dev *pdev,
				  unsigned int socket)
{
	return qpiu_box_new(qpmu, pdev, socket, NULL);
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
		return rdmsrl_safe(msr, val);
	return rdmsrl_safe_on_cpu(box->cpu, msr, val);
}

static int qpiu_msr_wr(void *ctx, u32 msr, u64 val)
{
	struct qpiu_box *box = ctx;

	if (irqs_disabled())
		return wrmsrl_safe(msr, val);
	return wrmsrl_safe_on_cpu(box->cpu, msr, val);
}

static const struct qpiu_msr_ops qpiu_msr_ops = {
	.rd = qpiu_msr_rd,
	.wr = qpiu_msr_wr,
};

struct qpiu_box *qpiu_pmu_add_msr_box(struct qpiu_pmu *qpmu,
				      unsigned int socket)
{
	return qpiu_box_new(qpmu, NULL, socket, &qpiu_msr_ops);
}

/*
 * A PMU lives while it has boxes or events.  When the last box of an unused
 * PMU goes (its functions unbound, e.g. handed back to intel_uncore), the
 * name is freed for whoever drives those functions next.  With events still
 * open the PMU stays, boxless, until the module goes: perf cannot take a PMU
 * away under live events.
 */
static void qpiu_pmu_retire_if_unused(struct qpiu_pmu *qpmu)
{
	unsigned int s;

	lockdep_assert_held(&qpiu_mutex);
	for (s = 0; s < QPIU_MAX_SOCKETS; s++)
		if (rcu_access_pointer(qpmu->boxes[s]))
			return;
	/* pairs with smp_mb__after_atomic() in qpiu_event_init() */
	smp_mb();
	if (atomic_read(&qpmu->nr_events))
		return;
	perf_pmu_unregister(&qpmu->pmu);
	qpiu_pmus[qpmu->desc->kind][qpmu->idx] = NULL;
	qpiu_pmu_free(qpmu);
}

/*
 * The function is going away.  Events that still refer to the box keep their
 * counts and stop counting; the box is freed with the last of them.
 */
void qpiu_pmu_remove_box(struct qpiu_box *box)
{
	struct qpiu_pmu *qpmu = box->pmu;
	unsigned long flags;

	lockdep_assert_held(&qpiu_mutex);
	RCU_INIT_POINTER(qpmu->boxes[box->socket], NULL);
	if (box->cpu >= 0)
		cpumask_clear_cpu(box->cpu, &qpmu->cpumask);

	raw_spin_lock_irqsave(&box->lock, flags);
	if (box->pdev && !box->dead && !pci_dev_is_disconnected(box->pdev))
		qpiu_box_wr(box, UNC_PCI_PMON_BOX_CTL, UNC_BOX_CTL_RST_CTRL |
			    UNC_BOX_CTL_RST_CTRS);
	box->pdev = NULL;
	box->dead = true;
	raw_spin_unlock_irqrestore(&box->lock, flags);
	hrtimer_cancel(&box->hrtimer);
	kref_put(&box->ref, qpiu_box_release);
	qpiu_pmu_retire_if_unused(qpmu);
}

/*
 * The mask/match function of QPI port @port of @socket arrived (@mm) or
 * left (NULL).  Its registers are unknown until we write them.
 */
int qpiu_pmu_set_mm(unsigned int port, unsigned int socket,
		    struct pci_dev *mm)
{
	struct qpiu_pmu *qpmu;
	struct qpiu_box *box;
	unsigned long flags;

	lockdep_assert_held(&qpiu_mutex);
	if (socket >= QPIU_MAX_SOCKETS || port >= QPIU_MAX_BOXES)
		return -ERANGE;
	if (mm && qpiu_mm_devs[socket][port])
		return -EEXIST;
	qpiu_mm_devs[socket][port] = mm;
	qpmu = qpiu_pmus[QPIU_BOX_QPI][port];
	box = qpmu ? rcu_dereference_protected(qpmu->boxes[socket], true) : NULL;
	if (box) {
		raw_spin_lock_irqsave(&box->lock, flags);
		box->mm = mm;
		box->filter_known = false;
		if (mm && box->filter_ref)
			qpiu_box_write_filter(box, box->filter[0],
					      box->filter[1]);
		raw_spin_unlock_irqrestore(&box->lock, flags);
	}
	return 0;
}

/* Socket @socket is now read by @new_cpu (-1: none) instead of @old_cpu. */
void qpiu_pmus_set_reader(unsigned int socket, int old_cpu, int new_cpu)
{
	unsigned int k, i;

	lockdep_assert_held(&qpiu_mutex);
	for (k = 0; k < QPIU_NR_BOX_KINDS; k++) {
		for (i = 0; i < QPIU_MAX_BOXES; i++) {
			struct qpiu_pmu *qpmu = qpiu_pmus[k][i];
			struct qpiu_box *box;
			unsigned long flags;

			if (!qpmu)
				continue;
			box = rcu_dereference_protected(qpmu->boxes[socket],
							true);
			if (!box)
				continue;
			raw_spin_lock_irqsave(&box->lock, flags);
			box->cpu = new_cpu;
			raw_spin_unlock_irqrestore(&box->lock, flags);
			if (old_cpu >= 0)
				cpumask_clear_cpu(old_cpu, &qpmu->cpumask);
			if (new_cpu >= 0)
				cpumask_set_cpu(new_cpu, &qpmu->cpumask);
			if (old_cpu >= 0 && new_cpu >= 0)
				perf_pmu_migrate_context(&qpmu->pmu, old_cpu,
							 new_cpu);
		}
	}
}

const char *qpiu_pmus_platform_name(void)
{
	unsigned int k, i;

	lockdep_assert_held(&qpiu_mutex);
	for (k = 0; k < QPIU_NR_BOX_KINDS; k++)
		for (i = 0; i < QPIU_MAX_BOXES; i++)
			if (qpiu_pmus[k][i])
				return qpiu_pmus[k][i]->plat->name;
	return "none";
}

void qpiu_pmus_destroy(void)
{
	unsigned int k, i;

	mutex_lock(&qpiu_mutex);
	for (k = 0; k < QPIU_NR_BOX_KINDS; k++) {
		for (i = 0; i < QPIU_MAX_BOXES; i++) {
			struct qpiu_pmu *qpmu = qpiu_pmus[k][i];

			if (!qpmu)
				continue;
			perf_pmu_unregister(&qpmu->pmu);
			qpiu_pmus[k][i] = NULL;
			qpiu_pmu_free(qpmu);
		}
	}
	mutex_unlock(&qpiu_mutex);
}

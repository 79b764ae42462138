// SPDX-License-Identifier: GPL-2.0
/*
 * The perf side of an event: event_init, add/del/start/stop/read, and
 * when the box freezes (perf's transactions).  What the box timer does
 * between them is the look engine's (qpi_uncore_look.c).
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/module.h>

#include "qpi_uncore.h"

static bool qpiu_use_ov_en = true;
module_param_named(ov_en, qpiu_use_ov_en, bool, 0444);
MODULE_PARM_DESC(ov_en,
		 "Sampling: set ov_en on counters that have it, so BOX_STATUS and the UBox see each overflow (default on)");

/*
 * When the box freezes.  Freezing stops every counter of the box, pinned
 * events of other users included, so the box is frozen only while several
 * counters must start or stop at one instant:
 *  - perf adds a group's members in one transaction (start_txn() with
 *    PERF_PMU_TXN_ADD, then add() for each, then commit_txn() or
 *    cancel_txn()): frozen from the first add() of a group with more than
 *    one counter until the commit, so the members start together;
 *  - perf removes a group's members one by one (group_sched_out()): frozen
 *    from the first del() while another member still counts until the
 *    last one stopped, so the members stop together;
 *  - qpiu_box_place() moves running events to other counters.
 * A lone event's add() and del() touch only its own counter.  So perf's
 * rotation of flexible events (every perf_event_mux_interval_ms, between
 * pmu_disable() and pmu_enable()) stops nothing else, and a pinned event
 * beside lone flexible ones counts everything.  pmu_enable() ends a
 * freeze for removal still held (a member closed while the rest of its
 * group counts), so none outlasts perf's bracket: perf wraps every del()
 * in pmu_disable()/pmu_enable() (event_sched_out(), 5.10 to 7.3), and
 * every transaction too.
 *
 * Only the reader CPU of a socket schedules the socket's events; perf
 * may call the transaction callbacks on another CPU of the package too
 * (a group read, PERF_EV_CAP_READ_ACTIVE_PKG), which must leave the
 * reader's transaction alone.
 */
enum qpiu_txn_step { QPIU_TXN_START, QPIU_TXN_END, QPIU_PMU_ENABLE };

static void qpiu_txn_step_locked(struct qpiu_box *box,
				 enum qpiu_txn_step step,
				 unsigned int txn_flags, int cpu)
{
	switch (step) {
	case QPIU_TXN_START:
		if (box->cpu != cpu)
			break;
		box->txn = txn_flags;
		box->txn_cpu = cpu;
		break;
	case QPIU_TXN_END:
		/* the reader's, even if the socket's reader changed since */
		if (!box->txn || box->txn_cpu != cpu)
			break;
		box->txn = 0;
		qpiu_box_unhold(box, QPIU_HOLD_TXN);
		break;
	case QPIU_PMU_ENABLE:
		if (box->cpu != cpu)
			break;
		/* a transaction's own freeze waits for its commit */
		qpiu_box_unhold(box, box->txn ? QPIU_HOLD_OUT :
				QPIU_HOLD_TXN | QPIU_HOLD_OUT);
		break;
	}
}

static void qpiu_txn_step(struct pmu *pmu, enum qpiu_txn_step step,
			  unsigned int txn_flags)
{
	int cpu = smp_processor_id();
	unsigned int socket = qpiu_cpu_socket(cpu);
	struct qpiu_box *box;
	unsigned long flags;

	if (socket >= QPIU_MAX_SOCKETS)
		return;
	rcu_read_lock();
	box = rcu_dereference(to_qpmu(pmu)->boxes[socket]);
	if (box) {
		raw_spin_lock_irqsave(&box->lock, flags);
		qpiu_txn_step_locked(box, step, txn_flags, cpu);
		raw_spin_unlock_irqrestore(&box->lock, flags);
	}
	rcu_read_unlock();
}

static void qpiu_start_txn(struct pmu *pmu, unsigned int txn_flags)
{
	qpiu_txn_step(pmu, QPIU_TXN_START, txn_flags);
}

/*
 * add() refuses a member that does not fit now, and perf's
 * group_sched_in() then takes the group's members off and cancels: the
 * commit has nothing left to check.  Committed or cancelled, the members
 * count from here.
 */
static int qpiu_commit_txn(struct pmu *pmu)
{
	qpiu_txn_step(pmu, QPIU_TXN_END, 0);
	return 0;
}

static void qpiu_cancel_txn(struct pmu *pmu)
{
	qpiu_txn_step(pmu, QPIU_TXN_END, 0);
}

static void qpiu_pmu_enable(struct pmu *pmu)
{
	qpiu_txn_step(pmu, QPIU_PMU_ENABLE, 0);
}

/* The freeze waits until a group needs it (above). */
static void qpiu_pmu_disable(struct pmu *pmu)
{
}

/* Does @event share a counter group with another event of its box? */
static bool qpiu_in_counter_group(const struct perf_event *event)
{
	struct perf_event *leader = event->group_leader, *sibling;
	unsigned int n = 0;

	if (leader->pmu == event->pmu && !qpiu_is_driver_event(leader))
		n++;
	list_for_each_entry(sibling, &leader->sibling_list, sibling_list)
		if (sibling->pmu == event->pmu &&
		    !qpiu_is_driver_event(sibling))
			n++;
	return n > 1;
}

/* Does another event of @event's group still count on @box? */
static bool qpiu_group_counting(const struct qpiu_box *box,
				const struct perf_event *event)
{
	unsigned int i;

	for (i = 0; i < box->pmu->desc->nr_ctrs; i++)
		if (box->events[i] != event && qpiu_running(box->events[i]) &&
		    box->events[i]->group_leader == event->group_leader)
			return true;
	return false;
}

static int qpiu_event_add(struct perf_event *event, int flags)
{
	struct qpiu_box *box = event->pmu_private;
	struct hw_perf_event *hwc = &event->hw;
	unsigned long irqflags;
	int ret;

	raw_spin_lock_irqsave(&box->lock, irqflags);
	/* foreign_writes: no counter, so no box timer either */
	if (qpiu_is_driver_event(event)) {
		hwc->idx = -1;
		hwc->state = PERF_HES_STOPPED | PERF_HES_UPTODATE;
		if (flags & PERF_EF_START)
			qpiu_foreign_ev_start(box, event);
		raw_spin_unlock_irqrestore(&box->lock, irqflags);
		return 0;
	}
	/*
	 * A foreign writer reprogrammed its counter while it counted: refused
	 * once, so perf keeps it inactive until its next rotation (an
	 * interval of perf_event_mux_interval_ms) and the time it ran falls
	 * behind the time it was enabled, which perf stat shows as a
	 * percentage and read_format as time_running < time_enabled.  The
	 * foreign layer has perf schedule the event again soon after the
	 * mark (qpiu_foreign_resched()), so this comes within a read-back
	 * interval.  perf takes a refusal as a full PMU: events after it in
	 * the same pass wait for that rotation too.  The events of a pinned
	 * group (its leader's attr.pinned, not the event's own) are never
	 * refused: perf would put the whole group, and every pinned group
	 * after it, in error state for good.  Their mark is dropped here.
	 */
	if (hwc->flags & QPIU_HWF_FOREIGN) {
		hwc->flags &= ~QPIU_HWF_FOREIGN;
		if (!qpiu_group_pinned(event)) {
			raw_spin_unlock_irqrestore(&box->lock, irqflags);
			return -EAGAIN;
		}
	}
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
	/* a group's members start together: frozen until the commit */
	if ((box->txn & PERF_PMU_TXN_ADD) && qpiu_in_counter_group(event))
		qpiu_box_hold(box, QPIU_HOLD_TXN);
	ret = qpiu_box_place(box, event);
	if (!ret) {
		bool first = box->n_active++ == 0;

		hwc->state = PERF_HES_STOPPED | PERF_HES_UPTODATE;
		if (flags & PERF_EF_START)
			qpiu_event_start_locked(box, event);
		if (first) {
			u64 now = ktime_get_ns();

			box->fold_next = now + box->fold_ns;
			box->check_next = now + qpiu_foreign_interval_ns();
		}
		/* the first sampling event shortens the timer's interval */
		if (is_sampling_event(event) && box->n_sampling++ == 0) {
			first = true;
			qpiu_look_sampling_started(box);
		}
		if (first)
			hrtimer_start(&box->hrtimer,
				      ns_to_ktime(qpiu_box_first_ns(box)),
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
	struct qpiu_due due;
	bool was_running, emit;

	raw_spin_lock_irqsave(&box->lock, irqflags);
	if (qpiu_is_driver_event(event)) {
		qpiu_foreign_ev_stop(box, event);
		raw_spin_unlock_irqrestore(&box->lock, irqflags);
		return;
	}
	was_running = qpiu_running(event);
	/*
	 * A group's members stop together: frozen while the first of them
	 * stops, and until the last has (or pmu_enable()).
	 */
	if (was_running && qpiu_group_counting(box, event))
		qpiu_box_hold(box, QPIU_HOLD_OUT);
	qpiu_event_stop_locked(box, event, PERF_EF_UPDATE);
	if (!qpiu_group_counting(box, event))
		qpiu_box_unhold(box, QPIU_HOLD_OUT);
	/* not after a stop(0): perf stopped it at its refresh limit */
	emit = qpiu_take_due_last(event, &due, was_running);
	if (hwc->idx >= 0) {
		box->events[hwc->idx] = NULL;
		/* the counter's next event does not wait for this one's tick */
		box->tick_wait &= ~BIT(hwc->idx);
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
	/*
	 * Periods completed since the timer last looked (disable, close,
	 * multiplexing rotation): their samples, before perf marks the event
	 * inactive.
	 */
	if (emit)
		qpiu_test_offered(true, qpiu_sample_emit(event, due.period,
							 due.n));
}

static void qpiu_event_start(struct perf_event *event, int flags)
{
	struct qpiu_box *box = event->pmu_private;
	unsigned long irqflags;

	raw_spin_lock_irqsave(&box->lock, irqflags);
	if (qpiu_is_driver_event(event))
		qpiu_foreign_ev_start(box, event);
	else if (event->hw.idx >= 0)
		qpiu_event_start_locked(box, event);
	raw_spin_unlock_irqrestore(&box->lock, irqflags);
}

static void qpiu_event_stop(struct perf_event *event, int flags)
{
	struct qpiu_box *box = event->pmu_private;
	unsigned long irqflags;
	struct qpiu_due due;
	bool was_running, emit;

	/*
	 * Newer kernels (7.x: perf_event_throttle_group()) throttle by
	 * stopping every member of the group, counters and all, until a
	 * tick of the reader CPU, which an idle NO_HZ CPU may not take for
	 * long; older ones only drop the samples.  Keep counting on every
	 * kernel: perf drops a throttled event's samples itself, and its
	 * start(event, 0) at unthrottle finds the event running.
	 */
	if (!flags && qpiu_sample_throttled(event))
		return;

	raw_spin_lock_irqsave(&box->lock, irqflags);
	if (qpiu_is_driver_event(event)) {
		qpiu_foreign_ev_stop(box, event);
		raw_spin_unlock_irqrestore(&box->lock, irqflags);
		return;
	}
	was_running = qpiu_running(event);
	if (event->hw.idx >= 0)
		qpiu_event_stop_locked(box, event, flags);
	/* PERF_EVENT_IOC_PERIOD: the periods completed at the old period */
	emit = (flags & PERF_EF_UPDATE) && was_running &&
	       qpiu_take_due_last(event, &due, true);
	raw_spin_unlock_irqrestore(&box->lock, irqflags);
	if (emit)
		qpiu_test_offered(true, qpiu_sample_emit(event, due.period,
							 due.n));
}

static void qpiu_event_read(struct perf_event *event)
{
	struct qpiu_box *box = event->pmu_private;
	unsigned long irqflags;

	/* test builds: what a sample's delivery waits for */
	qpiu_test_read(event);
	raw_spin_lock_irqsave(&box->lock, irqflags);
	if (qpiu_is_driver_event(event))
		qpiu_foreign_ev_read(box, event);
	else if (!(event->hw.state & PERF_HES_STOPPED))
		qpiu_event_update(box, event);
	raw_spin_unlock_irqrestore(&box->lock, irqflags);
}

static void qpiu_pmu_put_event(struct qpiu_pmu *qpmu)
{
	if (atomic_dec_and_test(&qpmu->nr_events))
		qpmu->idle(qpmu);
}

static void qpiu_event_destroy(struct perf_event *event)
{
	struct qpiu_box *box = event->pmu_private;
	struct qpiu_pmu *qpmu = box->pmu;
	unsigned long flags;

	qpiu_opening_del(qpmu, event);
	raw_spin_lock_irqsave(&box->lock, flags);
	if (--box->nr_events == 0)
		qpiu_foreign_box_unused(box);
	raw_spin_unlock_irqrestore(&box->lock, flags);

	if (is_sampling_event(event))
		qpiu_look_sampling_gone(box);
	qpiu_box_put(box);
	qpiu_pmu_put_event(qpmu);
	/* test builds: widen the window before perf's last use of the PMU */
	qpiu_test_destroy_delay();
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
	if (!qpmu->box_ops->start)
		return qpiu_reject(qpmu, -EOPNOTSUPP,
				   "sample_period/sample_freq: the %s PMUs count only",
				   qpmu->box_ops->name);
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
	unsigned long flags;
	bool has_mm;
	struct qpiu_box *box;
	int ret, cpu;

	if (attr->type != event->pmu->type)
		return -ENOENT;
	/*
	 * perf sets exclude_guest on every event it opens and, on EINVAL,
	 * opens it again without: expected, so silent.  perf core would
	 * refuse it after us anyway (PERF_PMU_CAP_NO_EXCLUDE).
	 */
	if (attr->exclude_host || attr->exclude_guest)
		return -EINVAL;

	if (qpiu_is_driver_event(event) && is_sampling_event(event))
		return qpiu_reject(qpmu, -EINVAL,
				   "foreign_writes: counts in the driver, with no counter to overflow; count it (perf stat), do not sample it");
	if (is_sampling_event(event)) {
		ret = qpiu_check_sampling(qpmu, event);
		if (ret)
			return ret;
	}
	if (event->cpu < 0)
		return qpiu_reject(qpmu, -EINVAL,
				   "cpu=-1: uncore events count per socket; open them system-wide (perf -a), not per task");
	if (attr->exclude_user || attr->exclude_kernel || attr->exclude_hv ||
	    attr->exclude_idle)
		return qpiu_reject(qpmu, -EINVAL,
				   "exclude_*: uncore counters count at every privilege level and cannot exclude one");
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
	 * No driver mutex here: perf may hold context mutexes and pmus_srcu
	 * around event_init, and qpiu_reg_mutex is held around
	 * perf_pmu_register() and perf_pmu_unregister().
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
		qpiu_pmu_put_event(qpmu);
		return qpiu_reject(qpmu, -ENODEV,
				   "cpu=%d: socket %u has no such box, or it is gone (removed or failed)",
				   event->cpu, socket);
	}
	if (!has_mm && (attr->config1 || attr->config2)) {
		qpiu_box_put(box);
		qpiu_pmu_put_event(qpmu);
		return qpiu_reject(qpmu, -ENODEV,
				   "config1/config2: socket %u has no mask/match function for port %u, so cto_count cannot be filtered there",
				   socket, qpmu->idx);
	}
	/*
	 * Any CPU of the socket names it, as with intel_uncore; the event
	 * lives on the socket's reader, and a read from any CPU of the
	 * package is done there.  Listed before box->cpu is read, both under
	 * locks a reader change takes in the other order: it either sees
	 * this event or this reads the new reader.
	 */
	ret = qpiu_opening_add(qpmu, event);
	if (ret) {
		qpiu_box_put(box);
		qpiu_pmu_put_event(qpmu);
		return ret;
	}
	raw_spin_lock_irqsave(&box->lock, flags);
	cpu = box->cpu;
	/* undone in qpiu_event_destroy() */
	if (cpu >= 0)
		box->nr_events++;
	raw_spin_unlock_irqrestore(&box->lock, flags);
	if (cpu < 0) {
		qpiu_opening_del(qpmu, event);
		qpiu_box_put(box);
		qpiu_pmu_put_event(qpmu);
		return qpiu_reject(qpmu, -ENODEV,
				   "cpu=%d: socket %u has no online CPU to read it",
				   event->cpu, socket);
	}
	qpiu_opening_set_cpu(qpmu, event, cpu);
	/* test builds: hold the window between this choice and install */
	qpiu_test_open_delay(box, cpu);

	/*
	 * perf's limit of a tick, which pacing keeps below: read here, with
	 * no perf lock held (task events, which perf may open holding a
	 * context's mutex, were refused above), once nothing can fail
	 */
	if (is_sampling_event(event))
		qpiu_look_read_limit();
	event->cpu = cpu;
	event->event_caps |= PERF_EV_CAP_READ_ACTIVE_PKG;
	event->pmu_private = box;
	event->destroy = qpiu_event_destroy;
	return 0;
}

void qpiu_pmu_set_callbacks(struct pmu *pmu)
{
	pmu->event_init = qpiu_event_init;
	pmu->add = qpiu_event_add;
	pmu->del = qpiu_event_del;
	pmu->start = qpiu_event_start;
	pmu->stop = qpiu_event_stop;
	pmu->read = qpiu_event_read;
	pmu->pmu_enable = qpiu_pmu_enable;
	pmu->pmu_disable = qpiu_pmu_disable;
	pmu->start_txn = qpiu_start_txn;
	pmu->commit_txn = qpiu_commit_txn;
	pmu->cancel_txn = qpiu_cancel_txn;
	pmu->check_period = qpiu_check_period;
	pmu->capabilities |= PERF_PMU_CAP_NO_EXCLUDE;
}

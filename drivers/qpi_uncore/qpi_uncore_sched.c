// SPDX-License-Identifier: GPL-2.0
/*
 * Counter assignment: which counter of a box each event gets, moving
 * running events when a new one's restrictions need it, the port's one
 * packet filter, and whether a group can ever fit the box.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include "qpi_uncore.h"

bool qpiu_event_filtered(const struct qpiu_box *box,
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
 * are moved (stopped, their counts folded, and restarted) with the box
 * frozen, so that a moved event misses nothing the others count.  The
 * box is frozen only when a running event moves.
 */
int qpiu_box_place(struct qpiu_box *box, struct perf_event *event)
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
		if (running[i])
			qpiu_box_hold(box, QPIU_HOLD_MOVE);
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
	qpiu_box_unhold(box, QPIU_HOLD_MOVE);
	return 0;
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
	/* foreign_writes takes no counter */
	if (qpiu_is_driver_event(member))
		return 0;
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
int qpiu_validate_group(const struct qpiu_pmu *qpmu, struct perf_event *event)
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


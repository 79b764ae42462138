// SPDX-License-Identifier: GPL-2.0
/*
 * The sysfs side of a PMU: format/ (the config fields), events/ (the
 * aliases of the platform's tables), cpumask, link_speed,
 * foreign_writes, and a QPI port's die<D> and link/die<D>.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/slab.h>
#include <linux/topology.h>

#include "qpi_uncore.h"

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
/* Events the driver counts, no counter: foreign_writes (1). */
QPIU_FORMAT(qpiu_fmt_driver_event, driver_event, "config:56-63");

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
	&qpiu_fmt_driver_event.attr.attr,
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
	&qpiu_fmt_driver_event.attr.attr,
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
	&qpiu_fmt_driver_event.attr.attr,
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
	return sysfs_emit(buf, "%*pbl\n", cpumask_pr_args(&qpmu->cpumask));
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

/*
 * Foreign writers (qpi_uncore_foreign.c): how many times a read-back of a
 * box of this PMU began to find counter controls that another tool
 * reprogrammed; decimal, over every socket, since the PMU was created.
 */
static ssize_t foreign_writes_show(struct device *dev,
				   struct device_attribute *attr, char *buf)
{
	struct qpiu_pmu *qpmu = to_qpmu(dev_get_drvdata(dev));

	return sysfs_emit(buf, "%ld\n", atomic_long_read(&qpmu->foreign_writes));
}
static DEVICE_ATTR_RO(foreign_writes);

static struct attribute *qpiu_foreign_attrs[] = {
	&dev_attr_foreign_writes.attr,
	NULL,
};

static const struct attribute_group qpiu_foreign_group = {
	.attrs = qpiu_foreign_attrs,
};

/*
 * die<D>: the peer of this port of die D, as the kernel's UPI mapping
 * (Documentation/ABI/testing/sysfs-devices-mapping): "qpi_<port>,die_<die>".
 * A port without a validated peer has no mapping: -ENODATA.
 */
static ssize_t qpiu_die_show(struct device *dev, struct device_attribute *attr,
			     char *buf)
{
	struct qpiu_pmu *qpmu = to_qpmu(dev_get_drvdata(dev));
	struct dev_ext_attribute *ea = container_of(attr, typeof(*ea), attr);
	struct qpiu_link_status st;
	int ret;

	ret = qpiu_link_status(qpmu->plat, (uintptr_t)ea->var, qpmu->idx, &st);
	if (ret == -EIO)
		return ret;
	if (ret || st.why != QPIU_PEER_OK)
		return -ENODATA;
	return qpiu_mapping_line(buf, PAGE_SIZE, st.peer_port, st.peer_die);
}

/*
 * link/die<D>: the QPILS state's name, and when the port has no peer, why
 * (qpi_uncore_peer.c).
 */
static ssize_t qpiu_link_show(struct device *dev,
			      struct device_attribute *attr, char *buf)
{
	struct qpiu_pmu *qpmu = to_qpmu(dev_get_drvdata(dev));
	struct dev_ext_attribute *ea = container_of(attr, typeof(*ea), attr);
	struct qpiu_link_status st;
	int ret;

	ret = qpiu_link_status(qpmu->plat, (uintptr_t)ea->var, qpmu->idx, &st);
	if (ret)
		return ret;
	return qpiu_link_line(buf, PAGE_SIZE, st.state, st.why);
}

/*
 * One die<D> and one link/die<D> for each die the kernel counts (one die
 * a package on these parts); a die without this port reads -ENODATA and
 * -ENODEV.
 */
static int qpiu_build_dies(struct qpiu_pmu *qpmu)
{
	unsigned int n = min_t(unsigned int, topology_max_packages(),
			       QPIU_MAX_SOCKETS);
	unsigned int d;

	qpmu->die_attrs = kcalloc(2 * n, sizeof(*qpmu->die_attrs), GFP_KERNEL);
	qpmu->die_attr_list = kcalloc(2 * n + 2,
				      sizeof(*qpmu->die_attr_list), GFP_KERNEL);
	qpmu->die_names = kcalloc(n, sizeof(*qpmu->die_names), GFP_KERNEL);
	if (!qpmu->die_attrs || !qpmu->die_attr_list || !qpmu->die_names)
		return -ENOMEM;
	qpmu->nr_dies = n;
	for (d = 0; d < n; d++) {
		struct dev_ext_attribute *die = &qpmu->die_attrs[d];
		struct dev_ext_attribute *link = &qpmu->die_attrs[n + d];

		qpmu->die_names[d] = kasprintf(GFP_KERNEL, "die%u", d);
		if (!qpmu->die_names[d])
			return -ENOMEM;
		sysfs_attr_init(&die->attr.attr);
		die->attr.attr.name = qpmu->die_names[d];
		die->attr.attr.mode = 0444;
		die->attr.show = qpiu_die_show;
		die->var = (void *)(uintptr_t)d;
		*link = *die;
		sysfs_attr_init(&link->attr.attr);
		link->attr.show = qpiu_link_show;
		qpmu->die_attr_list[d] = &die->attr.attr;
		/* after the first list's NULL */
		qpmu->die_attr_list[n + 1 + d] = &link->attr.attr;
	}
	qpmu->die_group.attrs = qpmu->die_attr_list;
	qpmu->link_group.name = "link";
	qpmu->link_group.attrs = &qpmu->die_attr_list[n + 1];
	return 0;
}

/* Names the in-tree driver gave these events; scripts use them. */
static const struct qpiu_event_desc qpiu_compat_qpi_events[] = {
	{ "drs_data", "event=0x102,umask=0x08" },
	{ "ncb_data", "event=0x103,umask=0x04" },
	{ "txl_flits_active", "event=0x00,umask=0x06" },
	{ }
};

/* Every PMU has it: the box's foreign writer episodes while it runs. */
static const struct qpiu_event_desc qpiu_driver_events[] = {
	{ "foreign_writes", "driver_event=1" },
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
		qpiu_driver_events,
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

/* Fill @qpmu's attribute groups for a box of @kind. */
int qpiu_sysfs_init(struct qpiu_pmu *qpmu, enum qpiu_box_kind kind)
{
	int ret = qpiu_build_events(qpmu, kind);

	if (ret)
		return ret;
	qpmu->groups[0] = &qpiu_format_groups[kind];
	qpmu->groups[1] = &qpmu->events_group;
	qpmu->groups[2] = &qpiu_cpumask_group;
	qpmu->groups[3] = &qpiu_foreign_group;
	if (kind != QPIU_BOX_QPI)
		return 0;
	ret = qpiu_build_dies(qpmu);
	if (ret)
		return ret;
	qpmu->groups[4] = &qpmu->die_group;
	qpmu->groups[5] = &qpmu->link_group;
	return 0;
}

void qpiu_sysfs_free(struct qpiu_pmu *qpmu)
{
	unsigned int i;

	for (i = 0; qpmu->event_names && i < qpmu->nr_event_attrs; i++)
		kfree(qpmu->event_names[i]);
	kfree(qpmu->event_names);
	kfree(qpmu->event_attrs);
	kfree(qpmu->event_descs);
	for (i = 0; qpmu->die_names && i < qpmu->nr_dies; i++)
		kfree(qpmu->die_names[i]);
	kfree(qpmu->die_names);
	kfree(qpmu->die_attr_list);
	kfree(qpmu->die_attrs);
}

// SPDX-License-Identifier: GPL-2.0
/*
 * qpisim debugfs: traffic injection, observability and fault knobs.
 * The layout and command language are documented in Documentation/qpisim.rst;
 * tests depend on it, so treat it as an ABI.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/debugfs.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/uaccess.h>

#include "qpisim.h"

#define QPISIM_INJECT_MAX	4096

static struct qpisim *qs_of(struct qsim_fn *fn)
{
	return container_of(fn->sock->sim, struct qpisim, model);
}

static struct qpisim *qs_of_sock(struct qsim_socket *sock)
{
	return container_of(sock->sim, struct qpisim, model);
}

/* ---- inject ---- */

/* A command file's write, NUL-terminated; at most QPISIM_INJECT_MAX - 1. */
static char *dup_command(const char __user *ubuf, size_t count)
{
	if (count >= QPISIM_INJECT_MAX)
		return ERR_PTR(-E2BIG);
	return memdup_user_nul(ubuf, count);
}

static ssize_t inject_write(struct file *file, const char __user *ubuf,
			    size_t count, loff_t *ppos)
{
	struct qpisim *qs = file->private_data;
	char err[QSIM_ERR_LEN];
	unsigned long flags;
	char *buf, *line, *next;
	int ret = 0;

	buf = dup_command(ubuf, count);
	if (IS_ERR(buf))
		return PTR_ERR(buf);

	/*
	 * One command per line, all under one lock hold: a write is one batch
	 * that no config access can observe half done.  The first command
	 * that fails ends it; the ones before it stay applied.
	 */
	raw_spin_lock_irqsave(&qs->lock, flags);
	qpisim_advance(qs);
	for (next = buf; (line = strsep(&next, "\n")) != NULL;) {
		if (!*strim(line))
			continue;
		ret = qsim_exec(&qs->model, line, err, sizeof(err));
		if (ret)
			break;
	}
	qpisim_stamp_overflows(&qs->model);
	raw_spin_unlock_irqrestore(&qs->lock, flags);
	if (ret) {
		pr_warn_ratelimited("inject: %s\n", err);
		ret = -EINVAL;
	}
	kfree(buf);
	return ret ? ret : count;
}

static const struct file_operations inject_fops = {
	.owner = THIS_MODULE,
	.open = simple_open,
	.write = inject_write,
};

/* ---- log of config writes ---- */

static int log_show(struct seq_file *m, void *unused)
{
	struct qpisim *qs = m->private;
	struct qsim_log_entry *snap;
	unsigned long flags;
	u64 first, seq, end;

	snap = kvmalloc_array(QSIM_LOG_SIZE, sizeof(*snap), GFP_KERNEL);
	if (!snap)
		return -ENOMEM;
	raw_spin_lock_irqsave(&qs->lock, flags);
	memcpy(snap, qs->model.log, sizeof(qs->model.log));
	end = qs->model.log_seq;
	raw_spin_unlock_irqrestore(&qs->lock, flags);

	first = end > QSIM_LOG_SIZE ? end - QSIM_LOG_SIZE : 0;
	for (seq = first; seq < end; seq++) {
		struct qsim_log_entry *e = &snap[seq % QSIM_LOG_SIZE];

		seq_printf(m, "%llu socket=%u %02x:%02x.%u where=0x%03x size=%u val=0x%08x\n",
			   e->seq, e->socket, e->bus, PCI_SLOT(e->devfn),
			   PCI_FUNC(e->devfn), e->where, e->size, e->val);
	}
	kvfree(snap);
	return 0;
}

static int log_open(struct inode *inode, struct file *file)
{
	return single_open(file, log_show, inode->i_private);
}

/* Any write clears the log. */
static ssize_t log_write(struct file *file, const char __user *ubuf,
			 size_t count, loff_t *ppos)
{
	struct qpisim *qs = ((struct seq_file *)file->private_data)->private;
	unsigned long flags;

	raw_spin_lock_irqsave(&qs->lock, flags);
	qsim_log_clear(&qs->model);
	raw_spin_unlock_irqrestore(&qs->lock, flags);
	return count;
}

static const struct file_operations log_fops = {
	.owner = THIS_MODULE,
	.open = log_open,
	.read = seq_read,
	.write = log_write,
	.llseek = seq_lseek,
	.release = single_release,
};

/* ---- link map ---- */

/* Enough for every link of QSIM_MAX_SOCKETS sockets, "S.P T.Q\n" each. */
#define QPISIM_LINKS_TEXT	(QSIM_MAX_SOCKETS * QSIM_MAX_PORTS * 8 + 1)

static int links_show(struct seq_file *m, void *unused)
{
	struct qpisim *qs = m->private;
	char text[QPISIM_LINKS_TEXT];
	unsigned long flags;

	raw_spin_lock_irqsave(&qs->lock, flags);
	qsim_links_show(&qs->model, text, sizeof(text));
	raw_spin_unlock_irqrestore(&qs->lock, flags);
	seq_puts(m, text);
	return 0;
}

static int links_open(struct inode *inode, struct file *file)
{
	return single_open(file, links_show, inode->i_private);
}

/*
 * One command a line (qsim_links_write()); the whole write applies or,
 * on the first bad line, nothing of it.
 */
static ssize_t links_write(struct file *file, const char __user *ubuf,
			   size_t count, loff_t *ppos)
{
	struct qpisim *qs = ((struct seq_file *)file->private_data)->private;
	char err[QSIM_ERR_LEN];
	unsigned long flags;
	char *buf;
	int ret;

	buf = dup_command(ubuf, count);
	if (IS_ERR(buf))
		return PTR_ERR(buf);
	/* traffic at a rate so far arrived over the old links */
	raw_spin_lock_irqsave(&qs->lock, flags);
	qpisim_advance(qs);
	ret = qsim_links_write(&qs->model, buf, err, sizeof(err));
	raw_spin_unlock_irqrestore(&qs->lock, flags);
	kfree(buf);
	if (ret) {
		pr_warn_ratelimited("%s\n", err);
		return -EINVAL;
	}
	return count;
}

static const struct file_operations links_fops = {
	.owner = THIS_MODULE,
	.open = links_open,
	.read = seq_read,
	.write = links_write,
	.llseek = seq_lseek,
	.release = single_release,
};

/* ---- per-socket knobs ---- */

static int sock_ubox_status_get(void *data, u64 *val)
{
	struct qsim_socket *sock = data;

	*val = READ_ONCE(sock->ubox_ov);
	return 0;
}

/* Write-one-to-clear, like U_MSR_PMON_GLOBAL_STATUS. */
static int sock_ubox_status_set(void *data, u64 val)
{
	struct qsim_socket *sock = data;
	struct qpisim *qs = qs_of_sock(sock);
	unsigned long flags;

	raw_spin_lock_irqsave(&qs->lock, flags);
	sock->ubox_ov &= ~val;
	raw_spin_unlock_irqrestore(&qs->lock, flags);
	return 0;
}
DEFINE_DEBUGFS_ATTRIBUTE(sock_ubox_status_fops, sock_ubox_status_get,
			 sock_ubox_status_set, "0x%llx\n");

/*
 * debugfs_create_bool() ignores values it cannot parse; our knobs refuse
 * anything but 0 and 1 so a typo in a test is an error, not a no-op.
 */
static int knob_get(void *data, u64 *val)
{
	*val = READ_ONCE(*(bool *)data);
	return 0;
}

static int knob_set(void *data, u64 val)
{
	if (val > 1)
		return -EINVAL;
	WRITE_ONCE(*(bool *)data, val);
	return 0;
}
DEFINE_DEBUGFS_ATTRIBUTE(knob_fops, knob_get, knob_set, "%llu\n");

/* The UBox freeze signal: a change opens or closes frozen windows. */
static int sock_freeze_set(void *data, u64 val)
{
	struct qsim_socket *sock = data;
	struct qpisim *qs = qs_of_sock(sock);
	unsigned long flags;

	if (val > 1)
		return -EINVAL;
	raw_spin_lock_irqsave(&qs->lock, flags);
	qpisim_advance(qs);
	sock->freeze = val;
	qsim_freeze_track(sock);
	raw_spin_unlock_irqrestore(&qs->lock, flags);
	return 0;
}

static int sock_freeze_get(void *data, u64 *val)
{
	*val = READ_ONCE(((struct qsim_socket *)data)->freeze);
	return 0;
}
DEFINE_DEBUGFS_ATTRIBUTE(sock_freeze_fops, sock_freeze_get, sock_freeze_set,
			 "%llu\n");

/* ---- per-function statistics and faults ---- */

/* Knobs that change what counts: the model must be brought up to now. */
static int link_clock_set(void *data, u64 val)
{
	struct qpisim *qs = data;
	unsigned long flags;

	if (val > 1)
		return -EINVAL;
	raw_spin_lock_irqsave(&qs->lock, flags);
	qpisim_advance(qs);
	qsim_set_link_clock(&qs->model, val);
	raw_spin_unlock_irqrestore(&qs->lock, flags);
	return 0;
}

static int link_clock_get(void *data, u64 *val)
{
	*val = READ_ONCE(((struct qpisim *)data)->model.link_clock);
	return 0;
}
DEFINE_DEBUGFS_ATTRIBUTE(link_clock_fops, link_clock_get, link_clock_set,
			 "%llu\n");

static int link_down_set(void *data, u64 val)
{
	struct qsim_fn *fn = data;
	struct qpisim *qs = qs_of(fn);
	unsigned long flags;

	if (val > 1)
		return -EINVAL;
	raw_spin_lock_irqsave(&qs->lock, flags);
	qpisim_advance(qs);
	qsim_set_link_down(&fn->sock->qpi[fn->idx], val);
	raw_spin_unlock_irqrestore(&qs->lock, flags);
	return 0;
}

static int link_down_get(void *data, u64 *val)
{
	struct qsim_fn *fn = data;

	*val = READ_ONCE(fn->sock->qpi[fn->idx].link_down);
	return 0;
}
DEFINE_DEBUGFS_ATTRIBUTE(link_down_fops, link_down_get, link_down_set,
			 "%llu\n");

static int foreign_ctl_set(void *data, u64 val)
{
	struct qsim_fn *fn = data;
	struct qpisim *qs = qs_of(fn);
	unsigned long flags;

	if (val > U32_MAX)
		return -EINVAL;
	raw_spin_lock_irqsave(&qs->lock, flags);
	qpisim_advance(qs);
	fn->foreign_ctl = val;
	raw_spin_unlock_irqrestore(&qs->lock, flags);
	return 0;
}

static int foreign_ctl_get(void *data, u64 *val)
{
	*val = READ_ONCE(((struct qsim_fn *)data)->foreign_ctl);
	return 0;
}
DEFINE_DEBUGFS_ATTRIBUTE(foreign_ctl_fops, foreign_ctl_get, foreign_ctl_set,
			 "0x%llx\n");

/*
 * Percentage knobs of a QPI port: the box is brought up to now first, as
 * they change what the traffic still to arrive counts.
 */
static int pct_set(struct qsim_fn *fn, const char *name, u32 *knob,
		   u64 val, u64 max)
{
	struct qpisim *qs = qs_of(fn);
	unsigned long flags;

	if (val > max) {
		pr_warn_ratelimited("%s: %llu is above %llu\n", name, val, max);
		return -EINVAL;
	}
	raw_spin_lock_irqsave(&qs->lock, flags);
	qpisim_advance(qs);
	*knob = val;
	raw_spin_unlock_irqrestore(&qs->lock, flags);
	return 0;
}

/* up to twice what arrived: enough to play any miscount */
static int rx_count_pct_set(void *data, u64 val)
{
	struct qsim_fn *fn = data;

	return pct_set(fn, "rx_count_pct", &fn->box->rx_count_pct, val, 200);
}

static int rx_count_pct_get(void *data, u64 *val)
{
	*val = READ_ONCE(((struct qsim_fn *)data)->box->rx_count_pct);
	return 0;
}
DEFINE_DEBUGFS_ATTRIBUTE(rx_count_pct_fops, rx_count_pct_get,
			 rx_count_pct_set, "%llu\n");

/* Residency knobs: a share of the port's clockticks, 0..100. */
static const char *const res_knob_names[QSIM_NR_RES] = {
	[QSIM_RES_L0P_TX] = "l0p_tx_pct",
	[QSIM_RES_L0P_RX] = "l0p_rx_pct",
	[QSIM_RES_L1] = "l1_pct",
};

static int res_knob_set(void *data, u64 val)
{
	struct qpisim_res_knob *knob = data;

	return pct_set(knob->fn, res_knob_names[knob->k],
		       &knob->fn->box->res_pct[knob->k], val, QSIM_MAX_PCT);
}

static int res_knob_get(void *data, u64 *val)
{
	struct qpisim_res_knob *knob = data;

	*val = READ_ONCE(knob->fn->box->res_pct[knob->k]);
	return 0;
}
DEFINE_DEBUGFS_ATTRIBUTE(res_knob_fops, res_knob_get, res_knob_set, "%llu\n");

static int fn_present_get(void *data, u64 *val)
{
	struct qsim_fn *fn = data;

	*val = READ_ONCE(fn->present);
	return 0;
}

static int fn_present_set(void *data, u64 val)
{
	struct qsim_fn *fn = data;

	if (val > 1)
		return -EINVAL;
	return qpisim_set_present(qs_of(fn), fn, val);
}
DEFINE_DEBUGFS_ATTRIBUTE(fn_present_fops, fn_present_get, fn_present_set,
			 "%llu\n");

/* Register state as key=value lines, for tests and for people. */
static int regs_show(struct seq_file *m, void *unused)
{
	struct qsim_fn *fn = m->private;
	struct qpisim *qs = qs_of(fn);
	struct qsim_socket *sock = fn->sock;
	struct qsim_box box;
	unsigned long flags;
	unsigned int i;

	raw_spin_lock_irqsave(&qs->lock, flags);
	qpisim_advance(qs);
	if (fn->box)
		box = *fn->box;
	raw_spin_unlock_irqrestore(&qs->lock, flags);

	seq_printf(m, "device=%04x:%04x\nlocation=0000:%02x:%02x.%u\n",
		   QPI_PCI_VENDOR_INTEL, fn->device, sock->bus,
		   PCI_SLOT(fn->devfn), PCI_FUNC(fn->devfn));
	switch (fn->kind) {
	case QSIM_FN_UBOX:
		seq_printf(m, "node_id=%u\ngidnidmap=0x%06x\n", sock->node_id,
			   sock->gidnidmap);
		break;
	case QSIM_FN_QPI_MISC:
		seq_printf(m, "qpi_rate=%u\n", sock->sim->qpi_rate);
		break;
	case QSIM_FN_QPI_MM:
		seq_printf(m, "match0=0x%08x\nmatch1=0x%08x\nmask0=0x%08x\nmask1=0x%08x\n",
			   box.match[0], box.match[1], box.mask[0],
			   box.mask[1]);
		break;
	case QSIM_FN_QPI_PMON:
	case QSIM_FN_R3QPI:
		seq_printf(m, "width=%u\nfrz=%d\nfrz_en=%d\nstatus=0x%x\noverflows=%llu\n",
			   box.desc->width, box.frz, box.frz_en, box.status,
			   box.overflows);
		for (i = 0; i < box.desc->nr_ctrs; i++)
			seq_printf(m, "ctl%u=0x%08x\nctr%u=0x%012llx\n", i,
				   box.ctl[i], i, box.ctr[i]);
		break;
	case QSIM_FN_FILLER:
		break;
	}
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(regs);

/*
 * The box's frozen time and the traffic that arrived at a rate, up to now;
 * writing 0 resets them (Documentation/qpisim.rst).
 */
static int frozen_show(struct seq_file *m, void *unused)
{
	struct qsim_fn *fn = m->private;
	struct qpisim *qs = qs_of(fn);
	struct qsim_frozen f;
	struct qsim_stream st[QSIM_MAX_STREAMS];
	u64 arrived[UNC_MAX_CTRS], ctr_lost[UNC_MAX_CTRS];
	unsigned int k, nr_ctrs = fn->box->desc->nr_ctrs;
	unsigned long flags;
	u64 lost = 0;

	raw_spin_lock_irqsave(&qs->lock, flags);
	qpisim_advance(qs);
	f = fn->box->frozen;
	memcpy(st, fn->box->streams, sizeof(st));
	memcpy(arrived, fn->box->ctr_arrived, sizeof(arrived));
	memcpy(ctr_lost, fn->box->ctr_lost, sizeof(ctr_lost));
	raw_spin_unlock_irqrestore(&qs->lock, flags);

	for (k = 0; k < QSIM_MAX_STREAMS; k++)
		lost += st[k].used ? st[k].lost : 0;
	seq_printf(m, "frozen_ns=%llu\nwindows=%llu\naccesses=%llu\nmax_window_accesses=%llu\nmax_window_ns=%llu\nlost=%llu\nwindow_accesses=",
		   f.ns, f.windows, f.accesses, f.max_accesses, f.max_ns, lost);
	for (k = 0; k < QSIM_WIN_HIST; k++)
		if (f.hist[k])
			seq_printf(m, " %u%s:%llu", k,
				   k == QSIM_WIN_HIST - 1 ? "+" : "", f.hist[k]);
	seq_putc(m, '\n');
	for (k = 0; k < QSIM_MAX_STREAMS; k++)
		if (st[k].used)
			seq_printf(m, "stream event=0x%02x umask=0x%02x ext=%d per_s=%llu arrived=%llu lost=%llu\n",
				   st[k].event, st[k].umask, st[k].ext,
				   st[k].per_s, st[k].arrived, st[k].lost);
	for (k = 0; k < nr_ctrs; k++)
		if (arrived[k])
			seq_printf(m, "ctr%u arrived=%llu lost=%llu\n", k,
				   arrived[k], ctr_lost[k]);
	return 0;
}

static int frozen_open(struct inode *inode, struct file *file)
{
	return single_open(file, frozen_show, inode->i_private);
}

static ssize_t frozen_write(struct file *file, const char __user *ubuf,
			    size_t count, loff_t *ppos)
{
	struct qsim_fn *fn = ((struct seq_file *)file->private_data)->private;
	struct qpisim *qs = qs_of(fn);
	unsigned long flags;
	u64 val;
	int ret;

	ret = kstrtou64_from_user(ubuf, count, 0, &val);
	if (ret)
		return ret;
	if (val) {
		pr_warn_ratelimited("frozen: write 0 to reset the statistics, not %llu\n",
				    val);
		return -EINVAL;
	}
	raw_spin_lock_irqsave(&qs->lock, flags);
	qpisim_advance(qs);
	qsim_frozen_reset(fn->box);
	raw_spin_unlock_irqrestore(&qs->lock, flags);
	return count;
}

static const struct file_operations frozen_fops = {
	.owner = THIS_MODULE,
	.open = frozen_open,
	.read = seq_read,
	.write = frozen_write,
	.llseek = seq_lseek,
	.release = single_release,
};

static void fn_dir_name(const struct qsim_fn *fn, char *buf, size_t len)
{
	switch (fn->kind) {
	case QSIM_FN_UBOX:
		snprintf(buf, len, "ubox");
		break;
	case QSIM_FN_QPI_MISC:
		snprintf(buf, len, "qpi%u_misc", fn->idx);
		break;
	case QSIM_FN_QPI_PMON:
		snprintf(buf, len, "qpi%u", fn->idx);
		break;
	case QSIM_FN_QPI_MM:
		snprintf(buf, len, "qpi%u_mm", fn->idx);
		break;
	case QSIM_FN_R3QPI:
		snprintf(buf, len, "r3qpi%u", fn->idx);
		break;
	case QSIM_FN_FILLER:
		snprintf(buf, len, "fn%02x.%u", PCI_SLOT(fn->devfn),
			 PCI_FUNC(fn->devfn));
		break;
	}
}

static void qpisim_debugfs_fn(struct dentry *parent, struct qsim_fn *fn)
{
	struct dentry *dir;
	char name[16];
	int k;

	fn_dir_name(fn, name, sizeof(name));
	dir = debugfs_create_dir(name, parent);
	debugfs_create_file("regs", 0444, dir, fn, &regs_fops);
	/*
	 * Plain u64 files: tests reset the statistics by writing 0 while the
	 * function is idle.
	 */
	debugfs_create_u64("reads", 0644, dir, &fn->reads);
	debugfs_create_u64("writes", 0644, dir, &fn->writes);
	debugfs_create_u64("rsvd_writes", 0644, dir, &fn->rsvd_writes);
	debugfs_create_u64("undef_writes", 0644, dir, &fn->undef_writes);
	debugfs_create_file_unsafe("all_ones", 0644, dir, &fn->all_ones,
				   &knob_fops);
	debugfs_create_file_unsafe("present", 0644, dir, fn, &fn_present_fops);
	if (fn->kind == QSIM_FN_QPI_PMON || fn->kind == QSIM_FN_R3QPI) {
		debugfs_create_u64("last_overflow_ns", 0444, dir,
				   &fn->box->last_overflow_ns);
		debugfs_create_file("frozen", 0644, dir, fn, &frozen_fops);
		debugfs_create_file_unsafe("ignore_writes", 0644, dir,
					   &fn->ignore_writes, &knob_fops);
		debugfs_create_u64("ignored_writes", 0644, dir,
				   &fn->ignored_writes);
		debugfs_create_file_unsafe("foreign_ctl", 0644, dir, fn,
					   &foreign_ctl_fops);
	}
	if (fn->kind == QSIM_FN_QPI_PMON) {
		debugfs_create_file_unsafe("rx_count_pct", 0644, dir, fn,
					   &rx_count_pct_fops);
		for (k = 0; k < QSIM_NR_RES; k++) {
			struct qpisim_res_knob *knob =
				&qs_of(fn)->res_knob[fn->sock->id][fn->idx][k];

			knob->fn = fn;
			knob->k = k;
			debugfs_create_file_unsafe(res_knob_names[k], 0644, dir,
						   knob, &res_knob_fops);
		}
	}
	if (fn->kind == QSIM_FN_QPI_MISC)
		debugfs_create_file_unsafe("link_down", 0644, dir, fn,
					   &link_down_fops);
}

static int platform_show(struct seq_file *m, void *unused)
{
	struct qpisim *qs = m->private;

	seq_printf(m, "%s\n", qs->model.plat->name);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(platform);

int qpisim_debugfs_init(struct qpisim *qs)
{
	struct dentry *root;
	unsigned int s, i;

	root = debugfs_create_dir("qpisim", NULL);
	if (IS_ERR(root))
		return PTR_ERR(root);
	qs->debugfs = root;

	debugfs_create_file("platform", 0444, root, qs, &platform_fops);
	debugfs_create_file("inject", 0200, root, qs, &inject_fops);
	debugfs_create_file("log", 0644, root, qs, &log_fops);
	debugfs_create_file("links", 0644, root, qs, &links_fops);
	debugfs_create_u32("fast_count", 0644, root, &qs->model.fast_count);
	debugfs_create_file_unsafe("link_clock", 0644, root, qs,
				   &link_clock_fops);

	for (s = 0; s < qs->model.nr_sockets; s++) {
		struct qsim_socket *sock = &qs->model.sock[s];
		struct dentry *dir;
		char name[16];

		snprintf(name, sizeof(name), "socket%u", s);
		dir = debugfs_create_dir(name, root);
		debugfs_create_x8("bus", 0444, dir, &sock->bus);
		debugfs_create_u8("node_id", 0444, dir, &sock->node_id);
		debugfs_create_file_unsafe("freeze", 0644, dir, sock,
					   &sock_freeze_fops);
		debugfs_create_file_unsafe("freeze_on_ov", 0644, dir,
					   &sock->freeze_on_ov, &knob_fops);
		debugfs_create_file_unsafe("ubox_status", 0644, dir, sock,
					   &sock_ubox_status_fops);
		for (i = 0; i < sock->nr_fns; i++)
			qpisim_debugfs_fn(dir, &sock->fns[i]);
	}
	return 0;
}

void qpisim_debugfs_exit(struct qpisim *qs)
{
	debugfs_remove_recursive(qs->debugfs);
}

// SPDX-License-Identifier: GPL-2.0
/*
 * The link of each QPI port: its state and, where every rule holds, its
 * peer (qpi_uncore_peer.c), read from the link layer's registers at each
 * sysfs read.
 */
#include "qpi_uncore.h"

/*
 * Function 0 of each socket's QPI ports, and the GIDNIDMAP of the UBox
 * that told the socket; set as QPI boxes come and go, under qpiu_mutex,
 * which sysfs readers hold for a whole read (never qpiu_reg_mutex: it is
 * held while a PMU's sysfs files are removed).  A function 0 is held
 * until its box is gone from here.
 */
static struct pci_dev *qpiu_link_fn0[QPIU_MAX_SOCKETS][QPIU_MAX_BOXES];
static u32 qpiu_link_map[QPIU_MAX_SOCKETS][QPIU_MAX_BOXES];

void qpiu_link_port_set(unsigned int socket, unsigned int port,
			struct pci_dev *fn0, u32 gidnidmap)
{
	lockdep_assert_held(&qpiu_mutex);
	if (socket >= QPIU_MAX_SOCKETS || port >= QPIU_MAX_BOXES)
		return;
	qpiu_link_fn0[socket][port] = fn0;
	qpiu_link_map[socket][port] = gidnidmap;
}

/* qpiu_lep_rd_fn over the ports the driver has */
static int qpiu_link_rd(void *ctx, unsigned int socket, unsigned int port,
			struct qpiu_lep *lep)
{
	struct pci_dev *fn0;

	if (socket >= QPIU_MAX_SOCKETS || port >= QPIU_MAX_BOXES)
		return -ENODEV;
	fn0 = qpiu_link_fn0[socket][port];
	if (!fn0)
		return -ENODEV;
	return qpiu_cfg_read_lep(fn0, lep);
}

/**
 * qpiu_link_status() - the link of QPI port @port on die @die, now
 * @plat: the platform, for its number of ports
 * @die: die number, as sysfs names it
 * @port: the port
 * @st: its state, and the peer or why there is none
 *
 * Return: 0, -ENODEV when the driver has no such port on that die, -EIO
 * when the port's function 0 does not answer.
 */
int qpiu_link_status(const struct qpiu_platform *plat, unsigned int die,
		     unsigned int port, struct qpiu_link_status *st)
{
	struct qpiu_port_id self = { .port = port }, peer;
	int socket, ret;

	mutex_lock(&qpiu_mutex);
	socket = qpiu_die_socket(die);
	if (socket < 0) {
		ret = socket;
		goto out;
	}
	self.socket = socket;
	ret = qpiu_peer_validate(qpiu_link_rd, NULL, &self, plat->qpi_ports,
				 port < QPIU_MAX_BOXES ?
				 qpiu_link_map[socket][port] : QPIU_NO_GIDNIDMAP,
				 &st->state, &peer, &st->why);
	if (!ret && st->why == QPIU_PEER_OK) {
		st->peer_port = peer.port;
		st->peer_die = qpiu_socket_die(peer.socket);
	}
out:
	mutex_unlock(&qpiu_mutex);
	return ret;
}

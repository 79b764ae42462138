// SPDX-License-Identifier: GPL-2.0
/*
 * --check's link check: each QPI port's speed and state from
 * QPI_RATE_STATUS.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <string.h>

#include "check_int.h"

#define RATE_STATUS	0xd4

double check_rate_gts(unsigned int code)
{
	/* codes 2..7: 5.6 .. 9.6 GT/s (public tools; *unverified*) */
	return code >= 2 && code <= 7 ? (56 + 8 * (code - 2)) / 10.0 : 0;
}

double check_link_hz(double gts)
{
	/* 4 transfers a flit (L0), 2 flits a link layer cycle */
	return gts * 1e9 / 8;
}

void check_link(struct result *r)
{
	int i, up = 0, down = 0, unread = 0, s;
	bool socket_up[MAX_SOCKETS] = { false }, socket_seen[MAX_SOCKETS] = { false };

	for (i = 0; i < ck.nr_fns; i++) {
		struct fn *fn = &ck.fns[i];
		char fn0[16];
		uint32_t v;

		if (fn->kind != K_QPI || fn->socket < 0 || fn->socket >= MAX_SOCKETS)
			continue;
		/* QPI_RATE_STATUS is on function 0 of the port's slot */
		snprintf(fn0, sizeof(fn0), "%.*s0", (int)strlen(fn->bdf) - 1, fn->bdf);
		socket_seen[fn->socket] = true;
		if (!cfg_read(fn0, RATE_STATUS, &v) || v == ~0u) {
			unread++;
			app(r->saw, "%ssocket %d port %d: unreadable", r->saw[0] ? "; " : "",
			    fn->socket, fn->idx);
			continue;
		}
		ck.gts[fn->socket][fn->idx] = check_rate_gts(v & 7);
		if (ck.gts[fn->socket][fn->idx] > 0) {
			up++;
			socket_up[fn->socket] = true;
			app(r->saw, "%ssocket %d port %d: up, %.1f GT/s", r->saw[0] ? "; " : "",
			    fn->socket, fn->idx, ck.gts[fn->socket][fn->idx]);
		} else {
			down++;
			ck.gts[fn->socket][fn->idx] = -1;
			app(r->saw, "%ssocket %d port %d: down (QPI_RATE_STATUS code %u)",
			    r->saw[0] ? "; " : "", fn->socket, fn->idx, v & 7);
		}
	}
	if (!up && !down && !unread) {
		r->status = CK_SKIP;
		app(r->saw, "no QPI port function (see pci)");
		return;
	}
	if (unread) {
		r->status = CK_WARN;
		app(r->todo, "run as root to read QPI_RATE_STATUS from config space");
	}
	if (!down)
		return;
	for (s = 0; s < MAX_SOCKETS; s++)
		if (socket_seen[s] && !socket_up[s] && ck.nr_sockets > 1)
			break;
	if (s < MAX_SOCKETS) {
		r->status = CK_FAIL;
		app(r->todo, "%severy port of socket %d is down although the machine has %d sockets: check the QPI settings in the BIOS setup and the boot log",
		    r->todo[0] ? "; " : "", s, ck.nr_sockets);
	} else {
		r->status = r->status > CK_WARN ? r->status : CK_WARN;
		app(r->todo, "%sa port that is down counts nothing: fine if it is not connected on this board, otherwise check the QPI settings in the BIOS setup",
		    r->todo[0] ? "; " : "");
	}
}

// SPDX-License-Identifier: GPL-2.0
/*
 * --check's link check: each QPI port's speed and state from
 * QPI_RATE_STATUS, and its link state as qpi_uncore publishes it (read
 * by the map check into ck.links).
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

/*
 * The ports not in normal operation by qpi_uncore's link files, each
 * named in @r->saw; warns for any.  Returns how many ports had a state.
 */
static int link_states(struct result *r)
{
	int i, n = 0, out = 0;

	for (i = 0; i < ck.links.nr; i++) {
		const struct sm_port *p = &ck.links.port[i];

		if (!p->has_state)
			continue;
		n++;
		if (p->normal)
			continue;
		out++;
		app(r->saw, "%ssocket %d port %d: not in normal operation (%s)",
		    r->saw[0] ? "; " : "", p->socket, p->port, p->state);
	}
	if (n && !out)
		app(r->saw, "%s%d port%s in normal operation", r->saw[0] ? "; " : "", n,
		    n > 1 ? "s" : "");
	if (out) {
		r->status = r->status > CK_WARN ? r->status : CK_WARN;
		app(r->todo, "%sa link not in normal operation carries nothing: check the board's QPI links and the QPI settings in the BIOS setup; a port the board does not wire stays so",
		    r->todo[0] ? "; " : "");
	}
	return n;
}

void check_link(struct result *r)
{
	int i, up = 0, down = 0, unread = 0, s, states;
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
	states = link_states(r);
	if (!up && !down && !unread && !states) {
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

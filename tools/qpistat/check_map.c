// SPDX-License-Identifier: GPL-2.0
/*
 * --check's map check: where the link map comes from.  The silicon's, as
 * qpi_uncore publishes it in sysfs (sysmap.c), or --link-map, compared
 * with it entry by entry.  It leaves the map in use in ck_map for the
 * symmetry check, and the ports' link states in ck.links for the link
 * check.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <string.h>

#include "check_int.h"
#include "sysmap.h"

const struct linkmap *ck_given;

/* "0.0=1.0, 0.1=1.1" */
static void app_links(char *buf, const struct linkmap *m)
{
	int i;

	for (i = 0; i < m->nr; i++)
		app(buf, "%s%d.%d=%d.%d", i ? ", " : "", m->link[i].end[0].socket,
		    m->link[i].end[0].port, m->link[i].end[1].socket,
		    m->link[i].end[1].port);
}

/*
 * The ports in normal operation whose far end qpi_uncore did not take:
 * their parameters do not check out.  Returns how many, each in @saw.
 */
static int unchecked(char *saw, const struct sysmap *sm)
{
	int i, n = 0;

	for (i = 0; i < sm->nr; i++) {
		const struct sm_port *p = &sm->port[i];

		if (!p->published || p->mapped || !p->has_state || !p->normal)
			continue;
		app(saw, "; socket %d port %d: in normal operation, no far end (%s)",
		    p->socket, p->port, p->reason[0] ? p->reason : "none published");
		n++;
	}
	return n;
}

void check_map(struct result *r)
{
	static struct lm_end ports[MAX_EVS];
	static struct linkmap silicon;
	char dir[512], diff[TEXT], err[512];
	int n = sysfs_ports(ports, MAX_EVS), bad;

	ck_map = ck_given;
	snprintf(dir, sizeof(dir), "%s/sys/bus/event_source/devices", check_root);
	sysmap_read(dir, ports, n, &ck.links);
	/*
	 * A --link-map that cannot apply here (a mistyped port, another
	 * machine's map, no QPI at all) is this check's verdict: every other
	 * check still says what is there, and symmetry does not use it.
	 */
	if (ck_given && linkmap_check(ck_given, ports, n, err, sizeof(err))) {
		ck_map = NULL;
		ck.map_bad = true;
		r->status = CK_FAIL;
		app(r->saw, "%s", err);
		app(r->todo, "give the map of this machine's wiring, its QPI ports as socket.port (qpistat.rst, \"The link map\"), or no --link-map");
		return;
	}
	if (!n) {
		r->status = CK_SKIP;
		app(r->saw, "no uncore_qpi_* PMU (see module)");
		return;
	}
	if (!sysmap_published(&ck.links)) {
		if (ck_map) {
			app(r->saw, "%s: ", ck_map->spec);
			app_links(r->saw, ck_map);
			app(r->saw, "; the silicon's is not published (intel_uncore or an older qpi_uncore), nothing to compare");
			return;
		}
		r->status = CK_SKIP;
		app(r->saw, "qpi_uncore publishes no link map (no uncore_qpi_*/die* files: intel_uncore or an older qpi_uncore)");
		app(r->todo, "per-link symmetry and HSX/BDX's per-port receive need one: a qpi_uncore that publishes it, or --link-map");
		return;
	}
	sysmap_links(&ck.links, &silicon);
	if (!ck_map) {
		ck_map = silicon.nr ? &silicon : NULL;
		app(r->saw, "the silicon's (qpi_uncore's uncore_qpi_*/die* files): ");
		if (silicon.nr)
			app_links(r->saw, &silicon);
		else
			app(r->saw, "no link");
	} else if (sysmap_diff(ck_map, &ck.links, diff, sizeof(diff))) {
		r->status = CK_WARN;
		app(r->saw, "%s %s", ck_map->spec, diff);
		app(r->todo, "%s overrides the silicon's map: correct it, or drop it to use the silicon's", ck_map->spec);
	} else {
		app(r->saw, "%s agrees with the silicon's: ", ck_map->spec);
		app_links(r->saw, ck_map);
	}
	bad = unchecked(r->saw, &ck.links);
	if (bad) {
		r->status = r->status > CK_WARN ? r->status : CK_WARN;
		app(r->todo, "%sthe link layer's parameters of %d port%s in normal operation do not check out, so qpi_uncore names no far end there: give it with --link-map if the wiring is known, and report it (Documentation/qpi_uncore.rst)",
		    r->todo[0] ? "; " : "", bad, bad > 1 ? "s" : "");
	}
}

/* SPDX-License-Identifier: MIT */
#include "placement.h"
#include "closest.h"
#include "parse.h"

#include <stdio.h>
#include <string.h>

static const char *const kind_names[] = {
	[MMT_PLACE_SAME_CORE] = "same-core",
	[MMT_PLACE_SAME_L3] = "same-l3",
	[MMT_PLACE_SAME_NODE] = "same-node",
	[MMT_PLACE_CROSS_NODE] = "cross-node",
	[MMT_PLACE_SPREAD] = "spread",
};

int mmt_placement_parse(const char *s, struct mmt_placement *p, char *err, size_t errlen)
{
	memset(p, 0, sizeof(*p));
	snprintf(p->name, sizeof(p->name), "%s", s);
	for (int k = 0; k < (int)(sizeof(kind_names) / sizeof(kind_names[0])); k++) {
		if (!strcmp(s, kind_names[k])) {
			p->kind = (enum mmt_placement_kind)k;
			return 0;
		}
	}
	if (!strncmp(s, "cpus:", 5)) {
		char why[MMT_ERRLEN];

		p->kind = MMT_PLACE_CPUS;
		if (mmt_parse_cpulist(s + 5, p->cpus, MMT_MAX_CPUS, &p->nr_cpus, why, sizeof(why))) {
			snprintf(err, errlen, "bad placement '%s': %s", s, why);
			return -1;
		}
		return 0;
	}
	{
		struct mmt_closest near;
		char hint[160];

		mmt_closest_init(&near, s);
		for (unsigned k = 0; k < sizeof(kind_names) / sizeof(kind_names[0]); k++)
			mmt_closest_offer(&near, kind_names[k]);
		mmt_closest_offer(&near, "all");
		snprintf(err, errlen,
			 "unknown placement '%s'%s (same-core, same-l3, same-node, cross-node, spread, cpus:LIST, all)",
			 s, mmt_closest_hint(&near, "", hint, sizeof(hint)));
	}
	return -1;
}

/*
 * Allowed CPUs of one node, ordered so that distinct cores come first and
 * SMT siblings only after every core has one worker: "same-node" means two
 * cores sharing a node, not two threads sharing a core.
 */
static int node_cpus_by_core(const struct mmt_topology *t, const struct mmt_node *nd,
			     int *out)
{
	int n = 0, round = 0, added;

	do {
		added = 0;
		for (int i = 0; i < nd->nr_cpus; i++) {
			const struct mmt_cpu *c = mmt_topology_cpu(t, nd->cpus[i]);
			int rank = 0;

			if (!c || !c->allowed)
				continue;
			/* rank = how many allowed siblings of this core come before it */
			for (int j = 0; j < i; j++) {
				const struct mmt_cpu *d = mmt_topology_cpu(t, nd->cpus[j]);

				if (d && d->allowed && d->package == c->package && d->core == c->core)
					rank++;
			}
			if (rank == round) {
				out[n++] = c->id;
				added++;
			}
		}
		round++;
	} while (added);
	return n;
}

static int plan_same_core(const struct mmt_topology *t, int nthreads, int *cpus,
			  char *reason, size_t len)
{
	int best = 0;

	for (int i = 0; i < t->nr_cpus; i++) {
		const struct mmt_cpu *c = &t->cpus[i];
		int n = 0;

		if (!c->allowed)
			continue;
		for (int j = 0; j < t->nr_cpus && n < nthreads; j++) {
			const struct mmt_cpu *d = &t->cpus[j];

			if (d->allowed && d->package == c->package && d->core == c->core)
				cpus[n++] = d->id;
		}
		if (n == nthreads)
			return 0;
		if (n > best)
			best = n;
	}
	snprintf(reason, len,
		 "same-core needs %d hardware threads on one core; the widest core here has %d (no SMT)",
		 nthreads, best);
	if (best > 1)
		snprintf(reason, len,
			 "same-core needs %d hardware threads on one core; the widest core here has %d",
			 nthreads, best);
	return 1;
}

static int plan_same_node(const struct mmt_topology *t, int nthreads, int *cpus,
			  char *reason, size_t len)
{
	static int buf[MMT_MAX_CPUS];
	int best = 0;

	for (int i = 0; i < t->nr_nodes; i++) {
		int n = node_cpus_by_core(t, &t->nodes[i], buf);

		if (n >= nthreads) {
			memcpy(cpus, buf, (size_t)nthreads * sizeof(*cpus));
			return 0;
		}
		if (n > best)
			best = n;
	}
	snprintf(reason, len, "same-node needs %d CPUs on one node; the largest node here has %d usable",
		 nthreads, best);
	return 1;
}

/*
 * Distinct cores under one L3, one worker a core: what separates the cost
 * of a line shared through the L3 from one shared through the core's own
 * caches (same-core) or across dies (a node with several L3s).
 */
static int plan_same_l3(const struct mmt_topology *t, int nthreads, int *cpus,
			char *reason, size_t len)
{
	static int keys[MMT_MAX_CPUS];
	int ngroups = mmt_topology_l3_groups(t, keys, MMT_MAX_CPUS), best = 0;

	if (!t->l3_sysfs) {
		snprintf(reason, len,
			 "same-l3: sysfs describes no L3 cache here (no cpu*/cache/index*/level of 3)");
		return 1;
	}
	for (int g = 0; g < ngroups; g++) {
		int n = 0;

		for (int i = 0; i < t->nr_cpus && n < nthreads; i++) {
			const struct mmt_cpu *c = &t->cpus[i];
			bool core_taken = false;

			if (!c->allowed || c->l3 != keys[g])
				continue;
			for (int k = 0; k < n && !core_taken; k++) {
				const struct mmt_cpu *d = mmt_topology_cpu(t, cpus[k]);

				core_taken = d->package == c->package && d->core == c->core;
			}
			if (!core_taken)
				cpus[n++] = c->id;
		}
		if (n == nthreads)
			return 0;
		if (n > best)
			best = n;
	}
	snprintf(reason, len,
		 "same-l3 needs %d distinct cores sharing one L3; the most here is %d usable (%d L3 group%s)",
		 nthreads, best, ngroups, ngroups == 1 ? "" : "s");
	return 1;
}

/*
 * Round-robin over nodes.  cross-node demands at least two nodes with CPUs
 * and puts consecutive workers (producer/consumer pairs) on different
 * nodes; spread uses whatever there is.
 */
static int plan_round_robin(const struct mmt_topology *t, int nthreads, int *cpus,
			    int need_nodes, const char *what, char *reason, size_t len)
{
	static int lists[MMT_MAX_NODES][MMT_MAX_CPUS];
	int counts[MMT_MAX_NODES], used[MMT_MAX_NODES] = { 0 };
	int nodes = 0, total = 0, n = 0;

	for (int i = 0; i < t->nr_nodes; i++) {
		counts[nodes] = node_cpus_by_core(t, &t->nodes[i], lists[nodes]);
		if (counts[nodes] > 0) {
			total += counts[nodes];
			nodes++;
		}
	}
	if (nodes < need_nodes) {
		snprintf(reason, len, "%s needs %d NUMA nodes with CPUs; this machine has %d",
			 what, need_nodes, nodes);
		return 1;
	}
	if (nthreads > total) {
		snprintf(reason, len,
			 "%s needs %d CPUs and %d are usable here (never more spinning threads than CPUs)",
			 what, nthreads, total);
		return 1;
	}
	for (int k = 0; n < nthreads; k = (k + 1) % nodes) {
		if (used[k] < counts[k])
			cpus[n++] = lists[k][used[k]++];
	}
	return 0;
}

static int plan_cpus(const struct mmt_topology *t, const struct mmt_placement *p,
		     int nthreads, int *cpus, char *reason, size_t len)
{
	if (p->nr_cpus != nthreads) {
		snprintf(reason, len, "%s names %d CPUs for %d threads", p->name, p->nr_cpus, nthreads);
		return 1;
	}
	for (int i = 0; i < p->nr_cpus; i++) {
		const struct mmt_cpu *c = mmt_topology_cpu(t, p->cpus[i]);

		if (!c) {
			snprintf(reason, len, "CPU %d is not online on this machine", p->cpus[i]);
			return 1;
		}
		if (!c->allowed) {
			snprintf(reason, len, "CPU %d is outside this process's affinity mask", p->cpus[i]);
			return 1;
		}
		cpus[i] = p->cpus[i];
	}
	return 0;
}

int mmt_placement_plan(const struct mmt_topology *t, const struct mmt_placement *p,
		       int nthreads, int *cpus, char *reason, size_t len)
{
	switch (p->kind) {
	case MMT_PLACE_SAME_CORE:
		return plan_same_core(t, nthreads, cpus, reason, len);
	case MMT_PLACE_SAME_L3:
		return plan_same_l3(t, nthreads, cpus, reason, len);
	case MMT_PLACE_SAME_NODE:
		return plan_same_node(t, nthreads, cpus, reason, len);
	case MMT_PLACE_CROSS_NODE:
		return plan_round_robin(t, nthreads, cpus, 2, "cross-node", reason, len);
	case MMT_PLACE_SPREAD:
		return plan_round_robin(t, nthreads, cpus, 1, "spread", reason, len);
	case MMT_PLACE_CPUS:
		return plan_cpus(t, p, nthreads, cpus, reason, len);
	}
	snprintf(reason, len, "unknown placement");
	return 1;
}

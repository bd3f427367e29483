/* SPDX-License-Identifier: MIT */
/*
 * Placement: which CPU each worker is pinned to.  A placement the machine
 * cannot satisfy is a skip with a reason, never a silent fallback: a
 * "cross-node" number measured on one node would be a lie.
 */
#ifndef MMT_PLACEMENT_H
#define MMT_PLACEMENT_H

#include "topology.h"

enum mmt_placement_kind {
	MMT_PLACE_SAME_CORE,	/* SMT siblings of one core */
	MMT_PLACE_SAME_L3,	/* distinct cores under one L3 cache */
	MMT_PLACE_SAME_NODE,	/* distinct cores of one node */
	MMT_PLACE_CROSS_NODE,	/* round-robin over nodes, neighbours on different nodes */
	MMT_PLACE_SPREAD,	/* as far apart as the machine allows */
	MMT_PLACE_CPUS,		/* an explicit list */
};

struct mmt_placement {
	enum mmt_placement_kind kind;
	int nr_cpus;		/* MMT_PLACE_CPUS only */
	int cpus[MMT_MAX_CPUS];
	char name[64];		/* as the user wrote it, for results */
};

/* "same-core", "same-l3", "same-node", "cross-node", "spread" or "cpus:LIST". */
int mmt_placement_parse(const char *s, struct mmt_placement *p, char *err, size_t errlen);

/* Plan nthreads CPUs into cpus[].  Returns 0, or 1 (skip) with the reason. */
int mmt_placement_plan(const struct mmt_topology *t, const struct mmt_placement *p,
		       int nthreads, int *cpus, char *reason, size_t len);

#endif

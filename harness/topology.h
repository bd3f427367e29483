/* SPDX-License-Identifier: MIT */
/*
 * Machine topology read from sysfs: online CPUs with their core, package,
 * node and L3 cache, NUMA nodes with CPUs, memory and distances.  The sysfs root is
 * a parameter so the planner can be tested against fake machines.
 */
#ifndef MMT_TOPOLOGY_H
#define MMT_TOPOLOGY_H

#include <stdbool.h>
#include <stddef.h>

#define MMT_MAX_CPUS 1024
#define MMT_MAX_NODES 64

struct mmt_cpu {
	int id;
	int node;
	int package;
	int core;	/* core_id: unique only within a package */
	int l3;		/* lowest CPU sharing its L3 (a group key); -1: unknown */
	bool allowed;	/* in this process's affinity mask */
};

struct mmt_node {
	int id;
	int nr_cpus;
	int cpus[MMT_MAX_CPUS];
	bool has_memory;
	long long mem_total_kb;	/* -1 when unknown */
	int distance[MMT_MAX_NODES];	/* indexed by node slot, not id */
};

struct mmt_topology {
	int nr_cpus;			/* online CPUs */
	struct mmt_cpu cpus[MMT_MAX_CPUS];
	int nr_nodes;
	struct mmt_node nodes[MMT_MAX_NODES];
	bool numa_sysfs;		/* false: kernel without NUMA, one synthetic node */
	bool l3_sysfs;			/* some CPU has a level-3 cache in sysfs */
};

/* Reads <root>/devices/system/{cpu,node}.  Returns 0, or -1 with err. */
int mmt_topology_load(struct mmt_topology *t, const char *sysfs_root,
		      char *err, size_t errlen);

/* Marks the CPUs outside this process's affinity mask as not allowed. */
void mmt_topology_apply_affinity(struct mmt_topology *t);

const struct mmt_cpu *mmt_topology_cpu(const struct mmt_topology *t, int id);
const struct mmt_node *mmt_topology_node(const struct mmt_topology *t, int id);
/* Hardware threads of the core that cpu sits on (itself included). */
int mmt_topology_core_width(const struct mmt_topology *t, int cpu);
bool mmt_topology_has_smt(const struct mmt_topology *t);
/* Distinct L3 groups (keys as in mmt_cpu.l3) into keys[], at most max. */
int mmt_topology_l3_groups(const struct mmt_topology *t, int *keys, int max);

#endif

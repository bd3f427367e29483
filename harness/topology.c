/* SPDX-License-Identifier: MIT */
#include "topology.h"
#include "parse.h"

#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int read_line(const char *root, const char *rel, char *buf, size_t len)
{
	char path[4096];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", root, rel);
	f = fopen(path, "r");
	if (!f)
		return -1;
	if (!fgets(buf, (int)len, f))
		buf[0] = '\0';
	fclose(f);
	return 0;
}

static int read_int(const char *root, const char *rel, int def)
{
	char buf[64];

	if (read_line(root, rel, buf, sizeof(buf)))
		return def;
	return atoi(buf);
}

static long long read_meminfo_total(const char *root, int node)
{
	char path[4096], line[256];
	long long kb = -1;
	FILE *f;

	snprintf(path, sizeof(path), "%s/devices/system/node/node%d/meminfo", root, node);
	f = fopen(path, "r");
	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f)) {
		char *p = strstr(line, "MemTotal:");

		if (p) {
			kb = atoll(p + strlen("MemTotal:"));
			break;
		}
	}
	fclose(f);
	return kb;
}

static int load_nodes(struct mmt_topology *t, const char *root, char *err, size_t errlen)
{
	static int ids[MMT_MAX_CPUS];
	char buf[4096], rel[256];
	int n, memn, mem_ids[MMT_MAX_NODES];

	if (read_line(root, "devices/system/node/online", buf, sizeof(buf))) {
		/* No NUMA in this kernel: one node holding every CPU. */
		struct mmt_node *nd = &t->nodes[0];

		t->numa_sysfs = false;
		t->nr_nodes = 1;
		nd->id = 0;
		nd->has_memory = true;
		nd->mem_total_kb = -1;
		nd->distance[0] = 10;
		nd->nr_cpus = 0;
		for (int i = 0; i < t->nr_cpus; i++) {
			t->cpus[i].node = 0;
			nd->cpus[nd->nr_cpus++] = t->cpus[i].id;
		}
		return 0;
	}
	t->numa_sysfs = true;
	if (mmt_parse_cpulist_loose(buf, ids, MMT_MAX_NODES, &n) || n < 1) {
		snprintf(err, errlen, "cannot parse %s/devices/system/node/online", root);
		return -1;
	}
	memn = -1;
	if (!read_line(root, "devices/system/node/has_memory", buf, sizeof(buf)) &&
	    mmt_parse_cpulist_loose(buf, mem_ids, MMT_MAX_NODES, &memn))
		memn = -1;
	t->nr_nodes = n;
	for (int i = 0; i < n; i++) {
		struct mmt_node *nd = &t->nodes[i];
		int nd_n = 0, dist_n = 0;
		char *tok, *save = NULL;

		nd->id = ids[i];
		snprintf(rel, sizeof(rel), "devices/system/node/node%d/cpulist", nd->id);
		if (read_line(root, rel, buf, sizeof(buf)) ||
		    mmt_parse_cpulist_loose(buf, nd->cpus, MMT_MAX_CPUS, &nd_n)) {
			snprintf(err, errlen, "cannot read %s/%s", root, rel);
			return -1;
		}
		/* Keep only online CPUs: cpulist also names offline ones. */
		nd->nr_cpus = 0;
		for (int k = 0; k < nd_n; k++) {
			for (int c = 0; c < t->nr_cpus; c++) {
				if (t->cpus[c].id != nd->cpus[k])
					continue;
				t->cpus[c].node = nd->id;
				nd->cpus[nd->nr_cpus++] = nd->cpus[k];
			}
		}
		nd->has_memory = memn < 0;
		for (int k = 0; k < memn; k++)
			if (mem_ids[k] == nd->id)
				nd->has_memory = true;
		nd->mem_total_kb = read_meminfo_total(root, nd->id);
		snprintf(rel, sizeof(rel), "devices/system/node/node%d/distance", nd->id);
		if (read_line(root, rel, buf, sizeof(buf)))
			buf[0] = '\0';
		for (tok = strtok_r(buf, " \n", &save); tok && dist_n < MMT_MAX_NODES;
		     tok = strtok_r(NULL, " \n", &save))
			nd->distance[dist_n++] = atoi(tok);
		/* sysfs lists distances to every online node, in id order. */
		for (int k = dist_n; k < n; k++)
			nd->distance[k] = (k == i) ? 10 : -1;
	}
	return 0;
}

/*
 * The L3 a CPU sits under, named by the lowest CPU of its shared_cpu_list
 * (offline ones included, so the key does not change with hotplug).  Two
 * CPUs of one node can sit on different dies with different L3s (AMD CCXs,
 * Intel sub-NUMA clusters off): a cache-line round trip between them costs
 * what a cross-die one does.  -1 where sysfs describes no L3.
 */
static int read_l3(const char *root, int cpu)
{
	static int ids[MMT_MAX_CPUS];
	char rel[256], buf[4096];

	for (int idx = 0; idx < 16; idx++) {
		int n;

		snprintf(rel, sizeof(rel), "devices/system/cpu/cpu%d/cache/index%d/level", cpu, idx);
		if (read_line(root, rel, buf, sizeof(buf)))
			return -1;
		if (atoi(buf) != 3)
			continue;
		snprintf(rel, sizeof(rel), "devices/system/cpu/cpu%d/cache/index%d/shared_cpu_list", cpu, idx);
		if (read_line(root, rel, buf, sizeof(buf)) ||
		    mmt_parse_cpulist_loose(buf, ids, MMT_MAX_CPUS, &n) || n < 1)
			return -1;
		return ids[0]; /* the list is sorted */
	}
	return -1;
}

int mmt_topology_load(struct mmt_topology *t, const char *root, char *err, size_t errlen)
{
	static int ids[MMT_MAX_CPUS];
	char buf[4096], rel[256];
	int n;

	memset(t, 0, sizeof(*t));
	if (read_line(root, "devices/system/cpu/online", buf, sizeof(buf)) ||
	    mmt_parse_cpulist_loose(buf, ids, MMT_MAX_CPUS, &n) || n < 1) {
		snprintf(err, errlen, "cannot read the online CPU list from %s/devices/system/cpu/online", root);
		return -1;
	}
	t->nr_cpus = n;
	for (int i = 0; i < n; i++) {
		struct mmt_cpu *c = &t->cpus[i];

		c->id = ids[i];
		c->node = -1;
		c->allowed = true;
		snprintf(rel, sizeof(rel), "devices/system/cpu/cpu%d/topology/physical_package_id", c->id);
		c->package = read_int(root, rel, 0);
		snprintf(rel, sizeof(rel), "devices/system/cpu/cpu%d/topology/core_id", c->id);
		/* Without topology files every CPU is its own core. */
		c->core = read_int(root, rel, c->id);
		c->l3 = read_l3(root, c->id);
		t->l3_sysfs |= c->l3 >= 0;
	}
	if (load_nodes(t, root, err, errlen))
		return -1;
	for (int i = 0; i < n; i++) {
		if (t->cpus[i].node < 0) {
			snprintf(err, errlen, "CPU %d is online but in no NUMA node", t->cpus[i].id);
			return -1;
		}
	}
	return 0;
}

void mmt_topology_apply_affinity(struct mmt_topology *t)
{
	cpu_set_t set;

	if (sched_getaffinity(0, sizeof(set), &set))
		return;
	for (int i = 0; i < t->nr_cpus; i++)
		t->cpus[i].allowed = t->cpus[i].id < CPU_SETSIZE && CPU_ISSET(t->cpus[i].id, &set);
}

const struct mmt_cpu *mmt_topology_cpu(const struct mmt_topology *t, int id)
{
	for (int i = 0; i < t->nr_cpus; i++)
		if (t->cpus[i].id == id)
			return &t->cpus[i];
	return NULL;
}

const struct mmt_node *mmt_topology_node(const struct mmt_topology *t, int id)
{
	for (int i = 0; i < t->nr_nodes; i++)
		if (t->nodes[i].id == id)
			return &t->nodes[i];
	return NULL;
}

int mmt_topology_core_width(const struct mmt_topology *t, int cpu)
{
	const struct mmt_cpu *c = mmt_topology_cpu(t, cpu);
	int n = 0;

	if (!c)
		return 0;
	for (int i = 0; i < t->nr_cpus; i++)
		if (t->cpus[i].package == c->package && t->cpus[i].core == c->core)
			n++;
	return n;
}

bool mmt_topology_has_smt(const struct mmt_topology *t)
{
	for (int i = 0; i < t->nr_cpus; i++)
		if (mmt_topology_core_width(t, t->cpus[i].id) > 1)
			return true;
	return false;
}

int mmt_topology_l3_groups(const struct mmt_topology *t, int *keys, int max)
{
	int n = 0;

	for (int i = 0; i < t->nr_cpus; i++) {
		bool seen = t->cpus[i].l3 < 0;

		for (int k = 0; k < n && !seen; k++)
			seen = keys[k] == t->cpus[i].l3;
		if (!seen && n < max)
			keys[n++] = t->cpus[i].l3;
	}
	return n;
}

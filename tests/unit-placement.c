/* SPDX-License-Identifier: MIT */
/*
 * Placement planning against fake sysfs trees: 1, 2 and 4 nodes, with and
 * without SMT, a memory-only node, a kernel without NUMA, and L3 caches
 * shared by a node, by part of one (dies, CCXs), by one core, or unknown.  CPU numbering
 * follows x86 Linux: SMT siblings are cpu and cpu + number of cores.
 */
#include "placement.h"
#include "tap.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

static char root[256];

static void put(const char *rel, const char *fmt, ...)
{
	char path[1024], cmd[1100];
	va_list ap;
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", root, rel);
	snprintf(cmd, sizeof(cmd), "mkdir -p \"$(dirname '%s')\"", path);
	if (system(cmd))
		abort();
	f = fopen(path, "w");
	if (!f)
		abort();
	va_start(ap, fmt);
	vfprintf(f, fmt, ap);
	va_end(ap);
	fclose(f);
}

/* nodes x cores x smt CPUs; memory_only_nodes extra nodes without CPUs;
 * numa=0 writes no node directory at all. */
static void fake_machine(int nodes, int cores, int smt, int memory_only_nodes, int numa)
{
	int total_cores = nodes * cores, ncpu = total_cores * smt, all_nodes = nodes + memory_only_nodes;
	char rel[256], list[1024];

	snprintf(root, sizeof(root), "/tmp/mmt-fake-sysfs-XXXXXX");
	if (!mkdtemp(root))
		abort();
	put("devices/system/cpu/online", "0-%d\n", ncpu - 1);
	for (int cpu = 0; cpu < ncpu; cpu++) {
		int core = cpu % total_cores;

		snprintf(rel, sizeof(rel), "devices/system/cpu/cpu%d/topology/core_id", cpu);
		put(rel, "%d\n", core % cores);
		snprintf(rel, sizeof(rel), "devices/system/cpu/cpu%d/topology/physical_package_id", cpu);
		put(rel, "%d\n", core / cores);
	}
	if (!numa)
		return;
	put("devices/system/node/online", "0-%d\n", all_nodes - 1);
	put("devices/system/node/has_memory", "0-%d\n", all_nodes - 1);
	for (int n = 0; n < all_nodes; n++) {
		size_t off = 0;

		list[0] = '\0';
		for (int cpu = 0; n < nodes && cpu < ncpu; cpu++)
			if ((cpu % total_cores) / cores == n)
				off += (size_t)snprintf(list + off, sizeof(list) - off, "%s%d", off ? "," : "", cpu);
		snprintf(rel, sizeof(rel), "devices/system/node/node%d/cpulist", n);
		put(rel, "%s\n", list);
		off = 0;
		for (int m = 0; m < all_nodes; m++)
			off += (size_t)snprintf(list + off, sizeof(list) - off, "%s%d", m ? " " : "",
						m == n ? 10 : 10 + 11 * abs(m - n));
		snprintf(rel, sizeof(rel), "devices/system/node/node%d/distance", n);
		put(rel, "%s\n", list);
		snprintf(rel, sizeof(rel), "devices/system/node/node%d/meminfo", n);
		put(rel, "Node %d MemTotal:       %d kB\nNode %d MemFree: 1 kB\n", n, 1048576 * (n + 1), n);
	}
}

/* Cache files for the CPUs of fake_machine(): L1d, L1i, L2 private to the
 * core, an L3 for every cores_per_l3 consecutive cores (siblings with them). */
static void fake_l3(int total_cores, int smt, int cores_per_l3)
{
	char rel[256], list[1024];

	for (int cpu = 0; cpu < total_cores * smt; cpu++) {
		int group = (cpu % total_cores) / cores_per_l3;
		size_t off = 0;

		for (int lvl = 0; lvl < 3; lvl++) {
			snprintf(rel, sizeof(rel), "devices/system/cpu/cpu%d/cache/index%d/level", cpu, lvl);
			put(rel, "%d\n", lvl ? lvl : 1);
			snprintf(rel, sizeof(rel), "devices/system/cpu/cpu%d/cache/index%d/shared_cpu_list", cpu, lvl);
			put(rel, "%d\n", cpu);
		}
		list[0] = '\0';
		for (int o = 0; o < total_cores * smt; o++)
			if ((o % total_cores) / cores_per_l3 == group)
				off += (size_t)snprintf(list + off, sizeof(list) - off, "%s%d", off ? "," : "", o);
		snprintf(rel, sizeof(rel), "devices/system/cpu/cpu%d/cache/index3/level", cpu);
		put(rel, "3\n");
		snprintf(rel, sizeof(rel), "devices/system/cpu/cpu%d/cache/index3/shared_cpu_list", cpu);
		put(rel, "%s\n", list);
	}
}

static void cleanup(void)
{
	char cmd[300];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", root);
	if (system(cmd))
		abort();
}

static int plan(struct mmt_topology *t, const char *spec, int n, int *cpus, char *reason)
{
	struct mmt_placement p;
	char err[256];

	if (mmt_placement_parse(spec, &p, err, sizeof(err)))
		return -1;
	reason[0] = '\0';
	return mmt_placement_plan(t, &p, n, cpus, reason, 256);
}

static int node_of(const struct mmt_topology *t, int cpu)
{
	return mmt_topology_cpu(t, cpu)->node;
}

static int same_core(const struct mmt_topology *t, int a, int b)
{
	const struct mmt_cpu *x = mmt_topology_cpu(t, a), *y = mmt_topology_cpu(t, b);

	return x->package == y->package && x->core == y->core;
}

static struct mmt_topology t;

static void load(void)
{
	char err[256];

	if (mmt_topology_load(&t, root, err, sizeof(err))) {
		printf("# %s\n", err);
		abort();
	}
}

static void one_node_no_smt(void)
{
	int cpus[8];
	char reason[256];

	fake_machine(1, 2, 1, 0, 1);
	load();
	tap_is_int(t.nr_cpus, 2, "1 node: two CPUs");
	tap_is_int(t.nr_nodes, 1, "1 node: one node");
	tap_ok(!mmt_topology_has_smt(&t), "1 node: no SMT");
	tap_ok(t.nodes[0].mem_total_kb == 1048576, "1 node: MemTotal read");
	tap_ok(plan(&t, "same-node", 2, cpus, reason) == 0 && cpus[0] == 0 && cpus[1] == 1,
	       "1 node: same-node gives CPUs 0,1");
	tap_ok(plan(&t, "same-core", 2, cpus, reason) == 1 && strstr(reason, "SMT"),
	       "1 node: same-core skipped, reason names SMT (%s)", reason);
	tap_ok(plan(&t, "cross-node", 2, cpus, reason) == 1 && strstr(reason, "2 NUMA nodes"),
	       "1 node: cross-node skipped with reason (%s)", reason);
	tap_ok(plan(&t, "spread", 2, cpus, reason) == 0, "1 node: spread fits 2 threads");
	tap_ok(plan(&t, "spread", 3, cpus, reason) == 1 && strstr(reason, "3 CPUs"),
	       "1 node: 3 threads on 2 CPUs skipped (%s)", reason);
	tap_ok(plan(&t, "cpus:1,0", 2, cpus, reason) == 0 && cpus[0] == 0 && cpus[1] == 1,
	       "1 node: cpus:1,0 accepted");
	tap_ok(plan(&t, "cpus:0,5", 2, cpus, reason) == 1 && strstr(reason, "CPU 5"),
	       "1 node: offline CPU in a list skipped (%s)", reason);
	t.cpus[1].allowed = false;
	tap_ok(plan(&t, "same-node", 2, cpus, reason) == 1,
	       "1 node: a CPU outside the affinity mask is not used");
	tap_ok(plan(&t, "cpus:0,1", 2, cpus, reason) == 1 && strstr(reason, "affinity"),
	       "1 node: listed CPU outside affinity mask skipped");
	cleanup();
}

static void two_nodes_smt(void)
{
	int cpus[8];
	char reason[256];

	fake_machine(2, 2, 2, 0, 1); /* cores 0,1 on node 0; 2,3 on node 1; siblings +4 */
	load();
	tap_is_int(t.nr_cpus, 8, "2 nodes SMT: eight CPUs");
	tap_ok(mmt_topology_has_smt(&t), "2 nodes SMT: SMT seen");
	tap_is_int(mmt_topology_core_width(&t, 0), 2, "2 nodes SMT: core of CPU 0 has two threads");
	tap_is_int(t.nodes[0].distance[1], 21, "2 nodes SMT: distance read");
	tap_ok(plan(&t, "same-core", 2, cpus, reason) == 0 && same_core(&t, cpus[0], cpus[1]) &&
		       cpus[0] != cpus[1],
	       "2 nodes SMT: same-core gives two siblings (%d,%d)", cpus[0], cpus[1]);
	tap_ok(plan(&t, "same-core", 3, cpus, reason) == 1, "2 nodes SMT: 3 threads on one core skipped");
	tap_ok(plan(&t, "same-node", 2, cpus, reason) == 0 && !same_core(&t, cpus[0], cpus[1]) &&
		       node_of(&t, cpus[0]) == node_of(&t, cpus[1]),
	       "2 nodes SMT: same-node uses two cores, not two siblings (%d,%d)", cpus[0], cpus[1]);
	tap_ok(plan(&t, "same-node", 4, cpus, reason) == 0 && node_of(&t, cpus[3]) == node_of(&t, cpus[0]),
	       "2 nodes SMT: same-node fills siblings only after cores");
	tap_ok(plan(&t, "same-node", 5, cpus, reason) == 1 && strstr(reason, "4"),
	       "2 nodes SMT: 5 on one node skipped (%s)", reason);
	tap_ok(plan(&t, "cross-node", 2, cpus, reason) == 0 && node_of(&t, cpus[0]) != node_of(&t, cpus[1]),
	       "2 nodes SMT: cross-node puts the pair on different nodes");
	tap_ok(plan(&t, "cross-node", 4, cpus, reason) == 0 &&
		       node_of(&t, cpus[0]) != node_of(&t, cpus[1]) &&
		       node_of(&t, cpus[2]) != node_of(&t, cpus[3]) && !same_core(&t, cpus[0], cpus[2]),
	       "2 nodes SMT: cross-node alternates nodes, distinct cores first");
	tap_ok(plan(&t, "spread", 8, cpus, reason) == 0, "2 nodes SMT: spread can use every CPU");
	cleanup();
}

static void four_nodes(void)
{
	int cpus[8];
	char reason[256];
	int seen[4] = { 0 };

	fake_machine(4, 1, 1, 0, 1);
	load();
	tap_is_int(t.nr_nodes, 4, "4 nodes: four nodes");
	tap_is_int(t.nodes[0].distance[3], 43, "4 nodes: far distance read");
	tap_ok(plan(&t, "cross-node", 4, cpus, reason) == 0, "4 nodes: cross-node with 4 threads");
	for (int i = 0; i < 4; i++)
		seen[node_of(&t, cpus[i])]++;
	tap_ok(seen[0] == 1 && seen[1] == 1 && seen[2] == 1 && seen[3] == 1,
	       "4 nodes: one worker per node");
	tap_ok(plan(&t, "same-node", 2, cpus, reason) == 1 && strstr(reason, "has 1"),
	       "4 nodes: same-node 2 skipped, one CPU per node (%s)", reason);
	cleanup();
}

static void memory_only_node(void)
{
	int cpus[8];
	char reason[256];

	fake_machine(1, 2, 1, 1, 1);
	load();
	tap_is_int(t.nr_nodes, 2, "memory-only node: two nodes");
	tap_is_int(t.nodes[1].nr_cpus, 0, "memory-only node: no CPUs on node 1");
	tap_ok(plan(&t, "cross-node", 2, cpus, reason) == 1 && strstr(reason, "this machine has 1"),
	       "memory-only node: does not count for cross-node (%s)", reason);
	cleanup();
}

static void no_numa_kernel(void)
{
	int cpus[8];
	char reason[256];

	fake_machine(1, 4, 1, 0, 0);
	load();
	tap_ok(!t.numa_sysfs && t.nr_nodes == 1 && t.nodes[0].nr_cpus == 4,
	       "no NUMA in kernel: one synthetic node with every CPU");
	tap_ok(plan(&t, "same-node", 4, cpus, reason) == 0, "no NUMA in kernel: same-node works");
	cleanup();
}

static int l3_of(const struct mmt_topology *tp, int cpu)
{
	return mmt_topology_cpu(tp, cpu)->l3;
}

static void same_l3(void)
{
	int cpus[8], keys[8], r;
	char reason[256];

	/* 2 nodes x 2 cores x SMT 2, one L3 per node */
	fake_machine(2, 2, 2, 0, 1);
	fake_l3(4, 2, 2);
	load();
	tap_ok(t.l3_sysfs && mmt_topology_l3_groups(&t, keys, 8) == 2 && l3_of(&t, 0) == l3_of(&t, 5) &&
		       l3_of(&t, 0) != l3_of(&t, 2),
	       "same-l3: two L3 groups read, siblings in their core's group");
	r = plan(&t, "same-l3", 2, cpus, reason); /* before tap_ok reads cpus[] */
	tap_ok(r == 0 && l3_of(&t, cpus[0]) == l3_of(&t, cpus[1]) &&
		       !same_core(&t, cpus[0], cpus[1]),
	       "same-l3: two distinct cores under one L3, not two siblings (%d,%d)", cpus[0], cpus[1]);
	r = plan(&t, "same-l3", 3, cpus, reason);
	tap_ok(r == 1 && strstr(reason, "3 distinct cores") &&
		       strstr(reason, "most here is 2"),
	       "same-l3: 3 workers, 2 cores an L3: skipped, never on a sibling (%s)", reason);
	cleanup();

	/* one node, 4 cores, an L3 for each pair (two dies in one node) */
	fake_machine(1, 4, 1, 0, 1);
	fake_l3(4, 1, 2);
	load();
	r = plan(&t, "same-l3", 2, cpus, reason);
	tap_ok(r == 0 && l3_of(&t, cpus[0]) == l3_of(&t, cpus[1]),
	       "same-l3: two dies in a node: both workers under one L3 (%d,%d)", cpus[0], cpus[1]);
	tap_ok(plan(&t, "same-l3", 3, cpus, reason) == 1 && plan(&t, "same-node", 3, cpus, reason) == 0,
	       "same-l3: 3 workers fit the node but no L3: same-l3 skips, same-node runs");
	t.cpus[0].allowed = false;
	r = plan(&t, "same-l3", 2, cpus, reason);
	tap_ok(r == 0 && cpus[0] == 2 && cpus[1] == 3,
	       "same-l3: a CPU outside the affinity mask moves the pair to the other L3 (%d,%d)",
	       cpus[0], cpus[1]);
	cleanup();

	/* an L3 per core: no two cores share one */
	fake_machine(1, 2, 1, 0, 1);
	fake_l3(2, 1, 1);
	load();
	r = plan(&t, "same-l3", 2, cpus, reason);
	tap_ok(r == 1 && strstr(reason, "most here is 1") &&
		       strstr(reason, "2 L3 groups"),
	       "same-l3: no two cores share an L3: skipped with the reason (%s)", reason);
	cleanup();

	/* no cache directory at all (some VMs, older kernels) */
	fake_machine(1, 2, 1, 0, 1);
	load();
	tap_ok(!t.l3_sysfs && l3_of(&t, 0) == -1 && mmt_topology_l3_groups(&t, keys, 8) == 0,
	       "same-l3: no cache info: no L3 groups");
	r = plan(&t, "same-l3", 2, cpus, reason);
	tap_ok(r == 1 && strstr(reason, "no L3"),
	       "same-l3: no cache info: skipped with the reason (%s)", reason);
	cleanup();
}

static void parse_errors(void)
{
	struct mmt_placement p;
	char err[256];

	tap_ok(mmt_placement_parse("cross-nodes", &p, err, sizeof(err)) == -1 && strstr(err, "cross-nodes"),
	       "parse: unknown placement refused with its name");
	tap_ok(mmt_placement_parse("cpus:", &p, err, sizeof(err)) == -1, "parse: empty cpus: refused");
	tap_ok(mmt_placement_parse("cpus:1,1", &p, err, sizeof(err)) == -1, "parse: duplicate CPU refused");
	tap_ok(!mmt_placement_parse("cpus:0-3", &p, err, sizeof(err)) && p.nr_cpus == 4, "parse: cpus:0-3");
}

int main(void)
{
	char err[256];

	one_node_no_smt();
	two_nodes_smt();
	four_nodes();
	memory_only_node();
	no_numa_kernel();
	same_l3();
	parse_errors();
	tap_ok(mmt_topology_load(&t, "/nonexistent-sysfs", err, sizeof(err)) == -1 && strstr(err, "online"),
	       "missing sysfs: error, not a crash");
	return tap_done();
}

/* SPDX-License-Identifier: MIT */
#include "metadata.h"
#include "arch/barrier.h"
#include "clock.h"
#include "git-revision.h"

#include <numa.h>
#include <stdio.h>
#include <string.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

#ifndef MMT_CFLAGS
#define MMT_CFLAGS "unknown"
#endif
#ifndef MMT_URCU_VERSION
#define MMT_URCU_VERSION "unknown"
#endif

#ifdef __clang__
#define MMT_COMPILER "clang " __clang_version__
#else
#define MMT_COMPILER "gcc " __VERSION__
#endif

const char *mmt_version_string(void)
{
	return PACKAGE_VERSION " (git " MMT_GIT_REVISION ")";
}

/* First line of a file, trimmed, or JSON null if it cannot be read. */
static json_t *file_line(const char *path)
{
	char buf[512];
	FILE *f = fopen(path, "r");
	size_t n;

	if (!f)
		return json_null();
	if (!fgets(buf, sizeof(buf), f)) {
		fclose(f);
		return json_null();
	}
	fclose(f);
	n = strlen(buf);
	while (n && (buf[n - 1] == '\n' || buf[n - 1] == ' '))
		buf[--n] = '\0';
	return json_string(buf);
}

static json_t *cpu_model(void)
{
	char line[512];
	FILE *f = fopen("/proc/cpuinfo", "r");
	json_t *model = NULL;

	if (!f)
		return json_null();
	while (!model && fgets(line, sizeof(line), f)) {
		char *colon = strchr(line, ':');

		/* x86 says "model name", arm64 kernels only "CPU part" etc. */
		if (!colon || (strncmp(line, "model name", 10) && strncmp(line, "Model", 5)))
			continue;
		colon += 2;
		colon[strcspn(colon, "\n")] = '\0';
		model = json_string(colon);
	}
	fclose(f);
	return model ? model : json_null();
}

json_t *mmt_topology_json(const struct mmt_topology *t)
{
	json_t *nodes = json_array();
	int cores = 0;

	for (int i = 0; i < t->nr_nodes; i++) {
		const struct mmt_node *nd = &t->nodes[i];
		json_t *cpus = json_array(), *dist = json_array();

		for (int c = 0; c < nd->nr_cpus; c++)
			json_array_append_new(cpus, json_integer(nd->cpus[c]));
		for (int k = 0; k < t->nr_nodes; k++)
			json_array_append_new(dist, json_integer(nd->distance[k]));
		json_array_append_new(nodes, json_pack("{s:i,s:o,s:b,s:o,s:o}", "id", nd->id,
						       "cpus", cpus, "has_memory", nd->has_memory,
						       "mem_total_kb", nd->mem_total_kb < 0 ? json_null() : json_integer(nd->mem_total_kb),
						       "distances", dist));
	}
	for (int i = 0; i < t->nr_cpus; i++) {
		bool first = true;

		for (int j = 0; j < i; j++)
			if (t->cpus[j].package == t->cpus[i].package && t->cpus[j].core == t->cpus[i].core)
				first = false;
		cores += first;
	}
	/* libnuma's count next to sysfs's: they disagree when the kernel and
	 * libnuma see different node sets (offline nodes, cpusets). */
	return json_pack("{s:i,s:i,s:b,s:b,s:o,s:o}", "online_cpus", t->nr_cpus, "cores", cores,
			 "smt", mmt_topology_has_smt(t), "numa_sysfs", t->numa_sysfs,
			 "libnuma_nodes", numa_available() < 0 ? json_null()
							       : json_integer(numa_num_configured_nodes()),
			 "nodes", nodes);
}

static json_t *now_iso8601(void)
{
	char buf[64];
	time_t now = time(NULL);
	struct tm tm;

	gmtime_r(&now, &tm);
	strftime(buf, sizeof(buf), "%Y-%m-%dT%H:%M:%SZ", &tm);
	return json_string(buf);
}

json_t *mmt_metadata_collect(int argc, char **argv, uint64_t seed, const struct mmt_topology *t)
{
	struct utsname u;
	char host[256] = "";
	json_t *cmd = json_array();

	uname(&u);
	gethostname(host, sizeof(host) - 1);
	for (int i = 0; i < argc; i++)
		json_array_append_new(cmd, json_string(argv[i]));
	return json_pack(
		"{s:{s:s,s:s,s:s,s:s,s:s},s:{s:s,s:s,s:s},s:{s:o},s:o,s:{s:o,s:o,s:o,s:o},"
		"s:s,s:o,s:I,s:o,s:s,s:{s:f,s:b}}",
		"harness", "version", PACKAGE_VERSION, "git_revision", MMT_GIT_REVISION,
		"compiler", MMT_COMPILER, "cflags", MMT_CFLAGS, "arch", MMT_ARCH_NAME,
		"kernel", "release", u.release, "version", u.version, "machine", u.machine,
		"cpu", "model", cpu_model(),
		"topology", mmt_topology_json(t),
		"settings",
		"thp_enabled", file_line("/sys/kernel/mm/transparent_hugepage/enabled"),
		"thp_defrag", file_line("/sys/kernel/mm/transparent_hugepage/defrag"),
		"numa_balancing", file_line("/proc/sys/kernel/numa_balancing"),
		"perf_event_paranoid", file_line("/proc/sys/kernel/perf_event_paranoid"),
		"liburcu_version", MMT_URCU_VERSION,
		"command_line", cmd,
		"seed", (json_int_t)seed,
		"started_at", now_iso8601(),
		"hostname", host,
		"clock", "cycles_per_ns", mmt_cycles_per_ns(), "synchronised", mmt_cycles_synchronised());
}

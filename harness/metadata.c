/* SPDX-License-Identifier: MIT */
#include "metadata.h"
#include "arch/barrier.h"
#include "clock.h"
#include "git-revision.h"

#include <elf.h>
#include <link.h>
#include <numa.h>
#include <stdio.h>
#include <stdlib.h>
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
#ifdef MMT_HAVE_CK
#include <ck_md.h>	/* CK_VERSION: the headers the ck variants were built from */
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
	char buf[4096]; /* /proc/cmdline runs to hundreds of bytes */
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

/* Online CPUs sharing a last-level (L3) cache, as topology.c read them:
 * two CPUs of one NUMA node may still sit on different dies with
 * different L3s, which changes every cache-line round trip.  Empty where
 * sysfs has no L3; the groups same-l3 plans from. */
static json_t *l3_groups(const struct mmt_topology *t)
{
	static int keys[MMT_MAX_CPUS];
	int n = mmt_topology_l3_groups(t, keys, MMT_MAX_CPUS);
	json_t *groups = json_array();

	for (int g = 0; g < n; g++) {
		json_t *cpus = json_array();

		for (int i = 0; i < t->nr_cpus; i++)
			if (t->cpus[i].l3 == keys[g])
				json_array_append_new(cpus, json_integer(t->cpus[i].id));
		json_array_append_new(groups, cpus);
	}
	return groups;
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
	return json_pack("{s:i,s:i,s:b,s:b,s:o,s:o,s:o}", "online_cpus", t->nr_cpus, "cores", cores,
			 "smt", mmt_topology_has_smt(t), "numa_sysfs", t->numa_sysfs,
			 "libnuma_nodes", numa_available() < 0 ? json_null()
							       : json_integer(numa_num_configured_nodes()),
			 "nodes", nodes, "l3_groups", l3_groups(t));
}

/* /proc/loadavg's three averages: a loaded host skews every number. */
static json_t *loadavg(void)
{
	double a, b, c;
	FILE *f = fopen("/proc/loadavg", "r");
	int n;

	if (!f)
		return json_null();
	n = fscanf(f, "%lf %lf %lf", &a, &b, &c);
	fclose(f);
	return n == 3 ? json_pack("[f,f,f]", a, b, c) : json_null();
}

/* Turbo/boost: acpi-cpufreq's boost (1 on) or intel_pstate's no_turbo
 * (1 off), named so the two cannot be confused. */
static json_t *cpufreq_boost(void)
{
	json_t *v = file_line("/sys/devices/system/cpu/cpufreq/boost");
	char buf[64];

	if (!json_is_null(v)) {
		snprintf(buf, sizeof(buf), "boost=%s", json_string_value(v));
		json_decref(v);
		return json_string(buf);
	}
	v = file_line("/sys/devices/system/cpu/intel_pstate/no_turbo");
	if (json_is_null(v))
		return v;
	snprintf(buf, sizeof(buf), "no_turbo=%s", json_string_value(v));
	json_decref(v);
	return json_string(buf);
}

/* GNU build-id of a loaded object, from its PT_NOTE segments. */
static json_t *build_id(const struct dl_phdr_info *info)
{
	for (int i = 0; i < info->dlpi_phnum; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
		const char *p, *end;

		if (ph->p_type != PT_NOTE)
			continue;
		p = (const char *)(info->dlpi_addr + ph->p_vaddr);
		end = p + ph->p_memsz;
		while (p + sizeof(ElfW(Nhdr)) <= end) {
			const ElfW(Nhdr) *nh = (const ElfW(Nhdr) *)(const void *)p;
			const unsigned char *desc = (const unsigned char *)p + sizeof(*nh) + ((nh->n_namesz + 3) & ~3u);
			char hex[2 * 64 + 1];

			if (nh->n_type == NT_GNU_BUILD_ID && nh->n_namesz == 4 &&
			    !memcmp(p + sizeof(*nh), "GNU", 4) && nh->n_descsz <= 64) {
				for (unsigned k = 0; k < nh->n_descsz; k++)
					snprintf(hex + 2 * k, 3, "%02x", desc[k]);
				hex[2 * nh->n_descsz] = '\0';
				return json_string(hex);
			}
			p += sizeof(*nh) + ((nh->n_namesz + 3) & ~3u) + ((nh->n_descsz + 3) & ~3u);
		}
	}
	return json_null();
}

static int add_urcu(struct dl_phdr_info *info, size_t size, void *arg)
{
	const char *base = info->dlpi_name ? strrchr(info->dlpi_name, '/') : NULL;
	char real[4096];

	(void)size;
	if (!base || strncmp(base + 1, "liburcu", 7))
		return 0;
	json_array_append_new(arg, json_pack("{s:s,s:o}", "path",
					     realpath(info->dlpi_name, real) ? real : info->dlpi_name,
					     "build_id", build_id(info)));
	return 0;
}

/* The liburcu objects this process really mapped: with PKG_CONFIG_PATH or
 * --with-urcu the headers and the library loaded at run time can differ,
 * and two builds of one version only differ in their build-id. */
static json_t *loaded_urcu(void)
{
	json_t *libs = json_array();

	dl_iterate_phdr(add_urcu, libs);
	return libs;
}

static json_t *machine_id(void)
{
	json_t *v = file_line("/etc/machine-id");

	if (json_is_null(v) || !json_string_length(v)) {
		json_decref(v);
		v = file_line("/var/lib/dbus/machine-id");
	}
	return v;
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
	json_t *cmd = json_array(), *doc;
	char seed_text[24];

	/* A decimal string: all 64 bits survive readers that parse numbers
	 * as doubles. */
	snprintf(seed_text, sizeof(seed_text), "%llu", (unsigned long long)seed);
	uname(&u);
	gethostname(host, sizeof(host) - 1);
	for (int i = 0; i < argc; i++)
		json_array_append_new(cmd, json_string(argv[i]));
	doc = json_pack(
		"{s:{s:s,s:s,s:s,s:s,s:s},s:{s:s,s:s,s:s},s:{s:o},s:o,s:{s:o,s:o,s:o,s:o},"
		"s:s,s:o,s:s,s:o,s:s,s:{s:f,s:b}}",
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
		"seed", seed_text,
		"started_at", now_iso8601(),
		"hostname", host,
		"clock", "cycles_per_ns", mmt_cycles_per_ns(), "synchronised", mmt_cycles_synchronised());

	/* Who and in what state: results of different hosts are never pooled. */
	/* vm: scripts/numa-vm's guests say what emulates them. */
	json_object_set_new(doc, "host", json_pack("{s:s,s:o,s:o,s:s,s:o}", "hostname", host,
						   "machine_id", machine_id(), "cpu_model", cpu_model(),
						   "kernel_release", u.release, "vm", file_line("/etc/mmtorture-vm")));
	json_object_set_new(doc, "system", json_pack("{s:o,s:o,s:o,s:o}", "loadavg", loadavg(),
		"cpufreq_governor", file_line("/sys/devices/system/cpu/cpu0/cpufreq/scaling_governor"),
		"cpufreq_boost", cpufreq_boost(), "cmdline", file_line("/proc/cmdline")));
	json_object_set_new(doc, "liburcu", loaded_urcu());
#if defined(MMT_HAVE_CK) && defined(CK_VERSION)
	json_object_set_new(doc, "ck_version", json_string(CK_VERSION));
#else
	json_object_set_new(doc, "ck_version", json_null());
#endif
	return doc;
}

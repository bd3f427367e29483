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

/* First line of a file, trimmed, or ok false if it cannot be read. */
static void file_line(const char *path, struct mmt_line *l)
{
	FILE *f = fopen(path, "r");
	size_t n;

	l->ok = false;
	l->text[0] = '\0';
	if (!f)
		return;
	if (!fgets(l->text, sizeof(l->text), f)) {
		fclose(f);
		l->text[0] = '\0';
		return;
	}
	fclose(f);
	n = strlen(l->text);
	while (n && (l->text[n - 1] == '\n' || l->text[n - 1] == ' '))
		l->text[--n] = '\0';
	l->ok = true;
}

static void cpu_model(struct mmt_line *model)
{
	char line[512];
	FILE *f = fopen("/proc/cpuinfo", "r");

	model->ok = false;
	model->text[0] = '\0';
	if (!f)
		return;
	while (!model->ok && fgets(line, sizeof(line), f)) {
		char *colon = strchr(line, ':');

		/* x86 says "model name", arm64 kernels only "CPU part" etc. */
		if (!colon || (strncmp(line, "model name", 10) && strncmp(line, "Model", 5)))
			continue;
		colon += 2;
		colon[strcspn(colon, "\n")] = '\0';
		snprintf(model->text, sizeof(model->text), "%s", colon);
		model->ok = true;
	}
	fclose(f);
}

/* Distinct (package, core) pairs among the online CPUs. */
static int count_cores(const struct mmt_topology *t)
{
	int cores = 0;

	for (int i = 0; i < t->nr_cpus; i++) {
		bool first = true;

		for (int j = 0; j < i; j++)
			if (t->cpus[j].package == t->cpus[i].package && t->cpus[j].core == t->cpus[i].core)
				first = false;
		cores += first;
	}
	return cores;
}

/* /proc/loadavg's three averages: a loaded host skews every number. */
static void loadavg(struct mmt_metadata *md)
{
	FILE *f = fopen("/proc/loadavg", "r");

	md->has_loadavg = false;
	if (!f)
		return;
	md->has_loadavg = fscanf(f, "%lf %lf %lf", &md->loadavg[0], &md->loadavg[1], &md->loadavg[2]) == 3;
	fclose(f);
}

/* Turbo/boost: acpi-cpufreq's boost (1 on) or intel_pstate's no_turbo
 * (1 off), named so the two cannot be confused. */
static void cpufreq_boost(struct mmt_line *boost)
{
	struct mmt_line v;
	const char *name = "boost";

	file_line("/sys/devices/system/cpu/cpufreq/boost", &v);
	if (!v.ok) {
		name = "no_turbo";
		file_line("/sys/devices/system/cpu/intel_pstate/no_turbo", &v);
	}
	boost->ok = v.ok;
	boost->text[0] = '\0';
	if (v.ok) /* at most 63 characters, as it always was */
		snprintf(boost->text, sizeof(boost->text), "%s=%.*s", name, (int)(62 - strlen(name)), v.text);
}

/* GNU build-id of a loaded object, from its PT_NOTE segments. */
static bool build_id(const struct dl_phdr_info *info, char *hex)
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

			if (nh->n_type == NT_GNU_BUILD_ID && nh->n_namesz == 4 &&
			    !memcmp(p + sizeof(*nh), "GNU", 4) && nh->n_descsz <= 64) {
				for (unsigned k = 0; k < nh->n_descsz; k++)
					snprintf(hex + 2 * k, 3, "%02x", desc[k]);
				hex[2 * nh->n_descsz] = '\0';
				return true;
			}
			p += sizeof(*nh) + ((nh->n_namesz + 3) & ~3u) + ((nh->n_descsz + 3) & ~3u);
		}
	}
	return false;
}

/* The liburcu objects this process really mapped: with PKG_CONFIG_PATH or
 * --with-urcu the headers and the library loaded at run time can differ,
 * and two builds of one version only differ in their build-id. */
static int add_urcu(struct dl_phdr_info *info, size_t size, void *arg)
{
	struct mmt_metadata *md = arg;
	const char *base = info->dlpi_name ? strrchr(info->dlpi_name, '/') : NULL;
	struct mmt_loaded_object *o, *grown;
	char real[4096];

	(void)size;
	if (!base || strncmp(base + 1, "liburcu", 7))
		return 0;
	grown = realloc(md->urcu, (md->nr_urcu + 1) * sizeof(*md->urcu));
	if (!grown)
		return 1; /* no memory: the list so far */
	md->urcu = grown;
	o = &md->urcu[md->nr_urcu++];
	snprintf(o->path, sizeof(o->path), "%s", realpath(info->dlpi_name, real) ? real : info->dlpi_name);
	o->has_build_id = build_id(info, o->build_id);
	return 0;
}

static void machine_id(struct mmt_line *id)
{
	file_line("/etc/machine-id", id);
	if (!id->ok || !id->text[0])
		file_line("/var/lib/dbus/machine-id", id);
}

static void now_iso8601(char *buf, size_t len)
{
	time_t now = time(NULL);
	struct tm tm;

	gmtime_r(&now, &tm);
	strftime(buf, len, "%Y-%m-%dT%H:%M:%SZ", &tm);
}

void mmt_metadata_gather(struct mmt_metadata *md, int argc, char **argv, uint64_t seed,
			 const struct mmt_topology *t)
{
	memset(md, 0, sizeof(*md));
	md->version = PACKAGE_VERSION;
	md->git_revision = MMT_GIT_REVISION;
	md->compiler = MMT_COMPILER;
	md->cflags = MMT_CFLAGS;
	md->arch = MMT_ARCH_NAME;
	md->liburcu_version = MMT_URCU_VERSION;
#if defined(MMT_HAVE_CK) && defined(CK_VERSION)
	md->ck_version = CK_VERSION;
#endif
	uname(&md->uts);
	cpu_model(&md->cpu_model);
	md->topology = t;
	md->cores = count_cores(t);
	md->smt = mmt_topology_has_smt(t);
	/* libnuma's count next to sysfs's: they disagree when the kernel and
	 * libnuma see different node sets (offline nodes, cpusets). */
	md->libnuma_nodes = numa_available() < 0 ? -1 : numa_num_configured_nodes();
	file_line("/sys/kernel/mm/transparent_hugepage/enabled", &md->thp_enabled);
	file_line("/sys/kernel/mm/transparent_hugepage/defrag", &md->thp_defrag);
	file_line("/proc/sys/kernel/numa_balancing", &md->numa_balancing);
	file_line("/proc/sys/kernel/perf_event_paranoid", &md->perf_event_paranoid);
	md->argc = argc;
	md->argv = argv;
	snprintf(md->seed, sizeof(md->seed), "%llu", (unsigned long long)seed);
	now_iso8601(md->started_at, sizeof(md->started_at));
	gethostname(md->hostname, sizeof(md->hostname) - 1);
	md->cycles_per_ns = mmt_cycles_per_ns();
	md->clock_synchronised = mmt_cycles_synchronised();
	/* Who and in what state: results of different hosts are never pooled. */
	machine_id(&md->machine_id);
	/* vm: scripts/numa-vm's guests say what emulates them. */
	file_line("/etc/mmtorture-vm", &md->vm);
	loadavg(md);
	file_line("/sys/devices/system/cpu/cpu0/cpufreq/scaling_governor", &md->cpufreq_governor);
	cpufreq_boost(&md->cpufreq_boost);
	file_line("/proc/cmdline", &md->cmdline);
	dl_iterate_phdr(add_urcu, md);
}

void mmt_metadata_release(struct mmt_metadata *md)
{
	free(md->urcu);
	md->urcu = NULL;
	md->nr_urcu = 0;
}

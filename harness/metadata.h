/* SPDX-License-Identifier: MIT */
/* What a result needs to be interpreted later: build, kernel, machine,
 * the settings that change mm behaviour, and how the run was asked for.
 * Gathered here into struct mmt_metadata; document-json.c renders it as
 * the results' "metadata". */
#ifndef MMT_METADATA_H
#define MMT_METADATA_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/utsname.h>

#include "topology.h"

/* The first line of a file, trailing blanks trimmed; ok false where it
 * could not be read (null in the results). */
struct mmt_line {
	bool ok;
	char text[4096];	/* /proc/cmdline runs to hundreds of bytes */
};

/* A liburcu object this process mapped, with its GNU build-id. */
struct mmt_loaded_object {
	char path[4096];
	bool has_build_id;
	char build_id[2 * 64 + 1];
};

struct mmt_metadata {
	/* the harness, as built */
	const char *version, *git_revision, *compiler, *cflags, *arch;
	const char *liburcu_version;	/* the headers' */
	const char *ck_version;		/* NULL: built without concurrencykit */
	struct utsname uts;		/* release, version, machine */
	struct mmt_line cpu_model;	/* /proc/cpuinfo's first model line */
	/* the topology, and what is derived from it */
	const struct mmt_topology *topology;
	int cores;			/* distinct (package, core) among the online CPUs */
	bool smt;
	int libnuma_nodes;		/* -1: libnuma unavailable */
	/* settings that change mm behaviour */
	struct mmt_line thp_enabled, thp_defrag, numa_balancing, perf_event_paranoid;
	/* how the run was asked for */
	int argc;
	char **argv;
	char seed[24];			/* decimal: all 64 bits survive double-parsing readers */
	char started_at[32];		/* ISO 8601, UTC */
	char hostname[256];
	double cycles_per_ns;
	bool clock_synchronised;
	/* who, and in what state */
	struct mmt_line machine_id, vm;
	bool has_loadavg;
	double loadavg[3];
	struct mmt_line cpufreq_governor;
	struct mmt_line cpufreq_boost;	/* "boost=V" (acpi-cpufreq) or "no_turbo=V" (intel_pstate) */
	struct mmt_line cmdline;
	/* the liburcu objects mapped (malloc'd; mmt_metadata_release) */
	struct mmt_loaded_object *urcu;
	unsigned nr_urcu;
};

/* Reads the machine into md (t is kept by reference); argv too. */
void mmt_metadata_gather(struct mmt_metadata *md, int argc, char **argv, uint64_t seed,
			 const struct mmt_topology *t);
void mmt_metadata_release(struct mmt_metadata *md);
const char *mmt_version_string(void);

#endif

/* SPDX-License-Identifier: MIT */
/*
 * Performance counters: events named as libpfm4 resolves them (cycles,
 * instructions, PMU-specific names, perf:: software events) and kernel
 * tracepoints (sys:event, sys:*), opened with perf_event_open.
 *
 * Thread events are opened by each worker for itself, in groups read with
 * PERF_FORMAT_GROUP and the enabled/running times, enabled only around the
 * scenario's loop.  Tracepoints count kernel work that belongs to no worker
 * (kcompactd, TLB shootdown IPIs), so when permitted they are counted per CPU
 * system-wide; otherwise per worker thread, and the results say which.
 *
 * An event that cannot be counted here is recorded as unsupported with the
 * reason; no number is ever made up.  Encoding is not availability: libpfm4
 * encodes "cycles" on a VM whose PMU perf_event_open refuses.
 */
#ifndef MMT_COUNTERS_H
#define MMT_COUNTERS_H

#include <jansson.h>
#include <linux/perf_event.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#define MMT_MAX_EVENTS 32
#define MMT_GROUP_MAX 4		/* PMU events per group: fits every PMU's counters */

enum mmt_event_kind { MMT_EV_PMU, MMT_EV_SOFTWARE, MMT_EV_TRACEPOINT };

struct mmt_event {
	char name[128];
	enum mmt_event_kind kind;
	struct perf_event_attr attr;
	char unsupported[320];	/* non-empty: cannot be counted here, and why */
	/* How the name became an attr: "libpfm4" (a PMU libpfm4 detects),
	 * "generic" (the kernel's PERF_TYPE_HARDWARE/HW_CACHE, mapped by its
	 * PMU driver), "raw" (rHEX), "sysfs" (PMU::event from
	 * /sys/bus/event_source), "software", "tracefs"; with the PMU and why. */
	char via[12];
	char pmu[64];
	char via_note[160];
	bool ordering;		/* from the "ordering" alias: a witness-like count */
};

struct mmt_event_set {
	unsigned nr;
	struct mmt_event ev[MMT_MAX_EVENTS];
	bool system_wide_tracepoints;	/* decided once: root or paranoid <= 0 */
	char tracefs[256];
};

/* One thread's (or one CPU's) open counters. */
struct mmt_counters {
	int fd[MMT_MAX_EVENTS];		/* -1: not open */
	int leader[MMT_MAX_EVENTS];	/* index of the group leader */
	int err[MMT_MAX_EVENTS];	/* errno of a failed open */
	uint64_t value[MMT_MAX_EVENTS];	/* raw */
	uint64_t enabled[MMT_MAX_EVENTS], running[MMT_MAX_EVENTS];
};

/* "cycles,instructions,tlb:tlb_flush,compaction:*"; "none" for no events.
 * "ordering" is this CPU's memory-ordering machine-clear event (see
 * mmt_ordering_events), or an unsupported placeholder saying why there is
 * none.  NAME:pinned=1 (or :excl=1) puts an event in a group of its own.
 * Unknown names are bad input: -1 with one line in err. */
int mmt_events_parse(const char *list, struct mmt_event_set *set, char *err, size_t len);

#define MMT_DEFAULT_EVENTS "cycles,instructions,task-clock,context-switches,cpu-migrations,page-faults"

/* Open (disabled) the thread events for the calling thread / the
 * tracepoints on one CPU system-wide. */
void mmt_counters_open_thread(const struct mmt_event_set *set, struct mmt_counters *c);
void mmt_counters_open_cpu(const struct mmt_event_set *set, int cpu, struct mmt_counters *c);
void mmt_counters_enable(const struct mmt_event_set *set, struct mmt_counters *c);
void mmt_counters_disable(const struct mmt_event_set *set, struct mmt_counters *c);
/* Read, then close. */
void mmt_counters_collect(const struct mmt_event_set *set, struct mmt_counters *c);

/* value * enabled / running, and running / enabled as the ratio; false
 * when the event never ran (multiplexed out the whole time). */
bool mmt_counter_scale(uint64_t raw, uint64_t enabled, uint64_t running, double *scaled,
		       double *ratio);

/* One event's reading on one worker (or CPU), for the record. */
struct mmt_event_reading {
	bool opened;		/* false: raw, enabled and running are null */
	bool scaled;		/* false: per is null (multiplexed out) */
	double per;
	uint64_t raw, enabled, running;
};

/* What the record says of one event: status "ok" with its value, scaling
 * and readings, or "unsupported" / "not-counted" with the reason. */
struct mmt_event_report {
	const struct mmt_event *e;
	const char *kind, *status;
	bool system;		/* per CPU (cpu_ids), else per worker */
	char reason[400];	/* not ok: why */
	double value, scaling, per_op;	/* ok; per_op NaN: no operations */
	struct mmt_event_reading *readings;
	unsigned n;
	const int *cpu_ids;
	bool partial;		/* per worker: some could not open it */
};

/* Per event totals over the workers (and CPUs), scaling, per-op values and
 * derived figures (NaN: unknown). */
struct mmt_counters_report {
	struct mmt_event_report *events;
	unsigned nr;
	double ordering_per_op, ipc, cycles_per_op, instructions_per_op;
};

/* 0, or -1 out of memory; mmt_counters_report_free() after. */
int mmt_counters_report(const struct mmt_event_set *set, const struct mmt_counters *threads, unsigned nr_threads,
			const struct mmt_counters *cpus, const int *cpu_ids, unsigned nr_cpus, uint64_t ops,
			struct mmt_counters_report *out);
void mmt_counters_report_free(struct mmt_counters_report *r);

/* The record's "counters" (record-json.c): the report above, rendered. */
json_t *mmt_counters_json(const struct mmt_event_set *set, const struct mmt_counters *threads,
			  unsigned nr_threads, const struct mmt_counters *cpus, const int *cpu_ids,
			  unsigned nr_cpus, uint64_t ops);

/* The table behind "ordering": one row per PMU family. */
struct mmt_ordering_event {
	const char *pmus;	/* fnmatch pattern on libpfm4's PMU name */
	const char *event;	/* libpfm4 name, resolved on that PMU */
	const char *counts;	/* what a count means */
};
extern const struct mmt_ordering_event mmt_ordering_events[];
extern const unsigned mmt_nr_ordering_events;

/* What this machine offers, for --events list. */
void mmt_events_list(FILE *f);

/* Tracepoint events need tracefs; when it is not mounted and we are root,
 * mount a private one in a private mount namespace (gone with the process,
 * nothing changed for anyone else).  Call before any thread exists. */
void mmt_tracefs_prepare(void);

#endif

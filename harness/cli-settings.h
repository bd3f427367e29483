/* SPDX-License-Identifier: MIT */
/*
 * What the command line sets: the settings a run is planned from.  Apart
 * from cli.h so that the option table (cli-options.c), which writes them,
 * and the parser (cli.c), which walks the table, do not include each other.
 */
#ifndef MMT_CLI_SETTINGS_H
#define MMT_CLI_SETTINGS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "placement.h"
#include "progress.h"
#include "scenario.h"

#define MMT_MAX_SELECTED 64
#define MMT_MAX_PLACEMENTS 8
#define MMT_MAX_VARIANTS 1024
#define MMT_MAX_LABEL 64
#define MMT_MAX_SCENARIO_OPTS (MMT_MAX_OPTIONS * 4)	/* of every scenario, once each */

enum mmt_format { MMT_FORMAT_TABLE, MMT_FORMAT_WIDE, MMT_FORMAT_JSON };

struct mmt_cli_opt {
	const char *name;
	const struct mmt_option *decl;	/* the first scenario's: its value names */
	uint64_t value;
	bool set;
};

struct mmt_cli {
	bool help, version, list, smoke;
	bool dry_run;		/* --dry-run: check and print the plan, run nothing */
	const char *variant_arg;	/* --variant as given, NULL: all (or the smoke set) */
	bool placement_defaulted;	/* no --placement: a scenario may have its own */
	bool restore;		/* --restore: put back what a dead run left changed */
	bool assume_forbidden;	/* test hook: every witness counts as forbidden */
	const struct mmt_scenario *scenarios[MMT_MAX_SELECTED];
	unsigned nr_scenarios;
	/* Variants per selected scenario, as indexes into sc->variants. */
	unsigned variants[MMT_MAX_SELECTED][MMT_MAX_VARIANTS];
	unsigned nr_variants[MMT_MAX_SELECTED];
	struct mmt_placement placements[MMT_MAX_PLACEMENTS];
	unsigned nr_placements;
	unsigned threads;	/* 0: the scenario's default */
	uint64_t duration_ns;	/* 0 with iterations set: iterations only */
	bool duration_defaulted;	/* neither --duration nor --iterations */
	uint64_t iterations;
	unsigned repeat;
	uint64_t seed;
	bool seed_set;
	int mem_node;		/* -1: the node of the first worker's CPU */
	const char *output;	/* NULL: results/<name>.json; "-": stdout */
	enum mmt_format format;
	const char *events;	/* --events: NULL for the default set, "list" */
	const char *tests;	/* --test: litmus variants TEST/PRIMS by test */
	const char *prims;	/* --primitives: ... by primitive set */
	const char *mutants;	/* --mutant: switches to set, NULL: leave them */
	const char *label;	/* --label: NULL, none */
	enum mmt_progress_mode progress;	/* --progress, --no-progress; default auto */
	struct mmt_cli_opt opts[MMT_MAX_SCENARIO_OPTS];
	unsigned nr_opts;
};

/* Adds one placement, or the five that "all" means. */
int mmt_cli_add_placement(struct mmt_cli *cli, const char *s, char *err, size_t errlen);

#define MMT_SMOKE_DURATION_NS 200000000ull
#define MMT_DEFAULT_DURATION_NS 1000000000ull

#endif

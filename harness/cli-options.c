/* SPDX-License-Identifier: MIT */
/*
 * The common options' rows and the setters that take their values.  The
 * scenarios' own options (--payload-words, --sync ...) are declared by the
 * scenarios (struct mmt_option) and collected by cli.c.
 */
#include "cli-options.h"
#include "cli-settings.h"
#include "counters.h"
#include "parse.h"

#include <stdio.h>
#include <string.h>

static int refuse(char *err, size_t errlen, const char *msg)
{
	snprintf(err, errlen, "%s", msg);
	return -1;
}

static int parse_uint(const char *name, const char *arg, uint64_t min, uint64_t max,
		      uint64_t *out, char *err, size_t errlen)
{
	char why[MMT_ERRLEN];

	if (mmt_parse_u64(arg, out, why, sizeof(why))) {
		snprintf(err, errlen, "--%s: %s", name, why);
		return -1;
	}
	if (*out < min || *out > max) {
		snprintf(err, errlen, "--%s must be between %llu and %llu", name,
			 (unsigned long long)min, (unsigned long long)max);
		return -1;
	}
	return 0;
}

int mmt_cli_add_placement(struct mmt_cli *cli, const char *s, char *err, size_t errlen)
{
	static const char *const every[] = { "same-core", "same-l3", "same-node", "cross-node", "spread" };

	if (!strcmp(s, "all")) {
		for (unsigned i = 0; i < sizeof(every) / sizeof(every[0]); i++)
			if (mmt_cli_add_placement(cli, every[i], err, errlen))
				return -1;
		return 0;
	}
	if (cli->nr_placements == MMT_MAX_PLACEMENTS) {
		snprintf(err, errlen, "--placement: at most %d placements", MMT_MAX_PLACEMENTS);
		return -1;
	}
	return mmt_placement_parse(s, &cli->placements[cli->nr_placements++], err, errlen);
}

static int set_variant(struct mmt_cli *cli, const char *arg, char *err, size_t errlen)
{
	(void)err, (void)errlen;
	cli->variant_arg = arg;
	return 0;
}

static int set_threads(struct mmt_cli *cli, const char *arg, char *err, size_t errlen)
{
	uint64_t v;

	if (parse_uint("threads", arg, 1, MMT_MAX_CPUS, &v, err, errlen))
		return -1;
	cli->threads = (unsigned)v;
	return 0;
}

static int set_mem_node(struct mmt_cli *cli, const char *arg, char *err, size_t errlen)
{
	uint64_t v;

	if (parse_uint("mem-node", arg, 0, MMT_MAX_NODES - 1, &v, err, errlen))
		return -1;
	cli->mem_node = (int)v;
	return 0;
}

static int set_duration(struct mmt_cli *cli, const char *arg, char *err, size_t errlen)
{
	char why[MMT_ERRLEN];

	if (mmt_parse_duration(arg, &cli->duration_ns, why, sizeof(why))) {
		snprintf(err, errlen, "--duration: %s", why);
		return -1;
	}
	return 0;
}

static int set_iterations(struct mmt_cli *cli, const char *arg, char *err, size_t errlen)
{
	return parse_uint("iterations", arg, 1, UINT64_MAX, &cli->iterations, err, errlen);
}

static int set_repeat(struct mmt_cli *cli, const char *arg, char *err, size_t errlen)
{
	uint64_t v;

	if (parse_uint("repeat", arg, 1, 100000, &v, err, errlen))
		return -1;
	cli->repeat = (unsigned)v;
	return 0;
}

static int set_seed(struct mmt_cli *cli, const char *arg, char *err, size_t errlen)
{
	char why[MMT_ERRLEN];

	if (mmt_parse_u64_decimal(arg, &cli->seed, why, sizeof(why))) {
		snprintf(err, errlen, "--seed: %s", why);
		return -1;
	}
	cli->seed_set = true;
	return 0;
}

static int set_output(struct mmt_cli *cli, const char *arg, char *err, size_t errlen)
{
	if (!*arg)
		return refuse(err, errlen, "--output needs a file name or '-'");
	cli->output = arg;
	return 0;
}

static const char *const format_names[] = {
	[MMT_FORMAT_TABLE] = "table", [MMT_FORMAT_WIDE] = "wide", [MMT_FORMAT_JSON] = "json", NULL,
};

static int set_format(struct mmt_cli *cli, const char *arg, char *err, size_t errlen)
{
	(void)err, (void)errlen;
	for (unsigned i = 0; format_names[i]; i++)
		if (!strcmp(arg, format_names[i]))
			cli->format = (enum mmt_format)i;
	return 0;
}

static int set_events(struct mmt_cli *cli, const char *arg, char *err, size_t errlen)
{
	if (!*arg)
		return refuse(err, errlen, "--events needs a list, 'none' or 'list'");
	cli->events = arg;
	return 0;
}

/* A name the reports print: one short line of visible characters. */
static int set_label(struct mmt_cli *cli, const char *arg, char *err, size_t errlen)
{
	size_t n = strlen(arg);

	if (!n || n > MMT_MAX_LABEL) {
		snprintf(err, errlen, "--label '%.80s': 1 to %d characters, not %zu", arg, MMT_MAX_LABEL, n);
		return -1;
	}
	for (const char *c = arg; *c; c++)
		if ((unsigned char)*c < 0x20 || *c == 0x7f)
			return refuse(err, errlen, "--label: control characters are not allowed");
	cli->label = arg;
	return 0;
}

static int set_placement(struct mmt_cli *cli, const char *arg, char *err, size_t errlen)
{
	return mmt_cli_add_placement(cli, arg, err, errlen);
}

/* The flags and the free-form lists need no check of their own here. */
#define SETTER(fn, stmt)                                                                   \
	static int fn(struct mmt_cli *cli, const char *arg, char *err, size_t errlen)      \
	{                                                                                  \
		(void)arg, (void)err, (void)errlen;                                        \
		stmt;                                                                      \
		return 0;                                                                  \
	}
SETTER(set_test, cli->tests = arg)
SETTER(set_primitives, cli->prims = arg)
SETTER(set_mutant, cli->mutants = arg)
SETTER(set_list, cli->list = true)
SETTER(set_dry_run, cli->dry_run = true)
SETTER(set_progress, cli->progress = MMT_PROGRESS_ON)
SETTER(set_no_progress, cli->progress = MMT_PROGRESS_OFF)
SETTER(set_assume_forbidden, cli->assume_forbidden = true)
SETTER(set_restore, cli->restore = true)
SETTER(set_help, cli->help = true)
SETTER(set_version, cli->version = true)

const struct mmt_cli_row mmt_cli_rows[] = {
	{ "variant", "V[,V...]|all", NULL,
	  "variants to run (default: all)", .set = set_variant },
	{ "placement", "P", NULL,
	  "same-core (SMT siblings of one core), same-l3 (distinct cores, one worker a core, "
	  "under one L3 cache: l3_groups in the metadata, from sysfs), same-node (distinct cores of one node), cross-node (consecutive "
	  "workers on different nodes), spread (round-robin over nodes, cores before siblings), "
	  "cpus:LIST (e.g. cpus:0,8) or all; repeat the option for several (default: same-node; "
	  "spread for the smoke suite and mmrace)",
	  .repeatable = true, .set = set_placement },
	{ "threads", "N", NULL,
	  "workers (default: the scenario's; msgpass: 2, one producer and N-1 consumers)",
	  .set = set_threads },
	{ "mem-node", "N", NULL,
	  "NUMA node holding the shared data (default: the node of the first worker)",
	  .set = set_mem_node },
	{ "duration", "D", NULL,
	  "per run: 500ms, 5s, 2m, bare seconds (default: 1s; the smoke suite 200ms)",
	  .set = set_duration },
	{ "iterations", "N", NULL,
	  "per run: stop after N operations (k, M, G suffixes); alone, no time limit",
	  .set = set_iterations },
	{ "repeat", "N", NULL,
	  "runs per variant and placement (default: 1); variants are interleaved within each "
	  "repeat so host noise spreads evenly",
	  .set = set_repeat },
	{ "seed", "S", NULL,
	  "seed for payloads and random delays, decimal, 0-18446744073709551615 (default: "
	  "random, always recorded as a decimal string)",
	  .set = set_seed },
	{ "output", "FILE|-", NULL,
	  "results JSON (default: results/<scenario>-<time>-<pid>.json), checked before anything "
	  "runs; only a regular file is ever replaced, never one of the harness's own (its state "
	  "directory /run/mmtorture, its temp names .mmtorture-result.*); '-': the JSON on "
	  "stdout, the table on stderr",
	  .set = set_output },
	{ "format", NULL, format_names,
	  "what goes to stdout: table (default, 120 columns), wide (full verdicts and details) "
	  "or json; with --list, json is the scenarios as data (variants with their expectation "
	  "here, options with ranges and value names), for scripts",
	  .set = set_format },
	{ "events", "LIST|none|list", NULL,
	  "counters per worker: libpfm4 names (cycles, instructions, PMU::EVENT, perf:: software "
	  "events) and tracepoints (tlb:tlb_flush, compaction:*); 'list' shows what this machine "
	  "offers (default: " MMT_DEFAULT_EVENTS ", plus mmrace's tracepoints when it runs)",
	  .set = set_events },
	{ "test", "T[,T...]|all", NULL,
	  "litmus: tests to run (its variants are TEST/PRIMITIVES)", .set = set_test },
	{ "primitives", "P[,P...]|all", NULL,
	  "litmus: primitive sets to run: kernel, kernel-mfence, urcu, c11", .set = set_primitives },
	{ "mutant", "NAME[=on|off][,...]", NULL,
	  "on a kernel built by scripts/mutant-kernel: set its bug switches for the invocation, "
	  "restored after (see mmrace)",
	  .set = set_mutant },
	{ "label", "TEXT", NULL,
	  "a name for these runs, recorded in the results (metadata.label): the kernel or the "
	  "change under test ('6.1-base', 'patched'); compare heads each side with its labels",
	  .set = set_label },
	{ "list", NULL, NULL,
	  "scenarios, variants (with where their witness is forbidden) and options; on a "
	  "terminal broken to its width (COLUMNS, else the window's), on a pipe one line per "
	  "variant and option",
	  .set = set_list },
	{ "dry-run", NULL, NULL,
	  "check the command line against this machine and print the runs it would make, one "
	  "line each: scenario, variant, placement, repeat, the CPUs it would use and its time "
	  "bound ('bound 1.000s', '(ends once done)' where the scenario ends it sooner, or "
	  "'iterations N'), or 'skipped:' and why; nothing runs, nothing is written "
	  "(scripts/nightly checks every suite line so before the first runs, and estimates "
	  "the night from it)",
	  .set = set_dry_run },
	{ "progress", NULL, NULL,
	  "the line on stderr with run i/N, elapsed and ETA (run 3/12, 0:04 elapsed, ETA 0:11: "
	  "msgpass mb same-node rep 0), rewritten between runs, never during one, and blanked "
	  "before the table (default: when stderr is a terminal, so pipes, logs and --format "
	  "json never see it)",
	  .set = set_progress },
	{ "no-progress", NULL, NULL, "no progress line, even on a terminal", .set = set_no_progress },
	{ "assume-forbidden", NULL, NULL,
	  "count every witness as forbidden, even on variants that allow it: proves the exit-1 "
	  "path (tests use it)",
	  .set = set_assume_forbidden },
	{ "restore", NULL, NULL,
	  "put back the sysctls a killed run left changed (its journal in /run/mmtorture), then "
	  "exit; every run does this first as well",
	  .acts_alone = true, .set = set_restore },
	{ "help", NULL, NULL, "this text (also -h)", .acts_alone = true, .set = set_help },
	{ "version", NULL, NULL, "the version and the git revision it was built from",
	  .acts_alone = true, .set = set_version },
};

const unsigned mmt_cli_nr_rows = sizeof(mmt_cli_rows) / sizeof(mmt_cli_rows[0]);

const struct mmt_cli_row *mmt_cli_row_find(const char *name)
{
	for (unsigned i = 0; i < mmt_cli_nr_rows; i++)
		if (!strcmp(mmt_cli_rows[i].name, name))
			return &mmt_cli_rows[i];
	return NULL;
}

const char *mmt_cli_row_arg(const struct mmt_cli_row *r, char *buf, size_t len)
{
	size_t used = 0;

	if (!r->values)
		return r->arg;
	buf[0] = '\0';
	for (unsigned i = 0; r->values[i] && used < len; i++)
		used += (size_t)snprintf(buf + used, len - used, "%s%s", i ? "|" : "", r->values[i]);
	return buf;
}

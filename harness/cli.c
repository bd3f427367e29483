/* SPDX-License-Identifier: MIT */
#include "cli.h"
#include "counters.h"
#include "parse.h"

#include <getopt.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

enum {
	OPT_VARIANT = 0x100, OPT_PLACEMENT, OPT_THREADS, OPT_DURATION, OPT_ITERATIONS,
	OPT_REPEAT, OPT_SEED, OPT_OUTPUT, OPT_FORMAT, OPT_MEM_NODE, OPT_LIST, OPT_HELP,
	OPT_VERSION, OPT_RESTORE, OPT_ASSUME_FORBIDDEN, OPT_EVENTS, OPT_TEST, OPT_PRIMITIVES, OPT_MUTANT,
	OPT_PROGRESS, OPT_NO_PROGRESS, OPT_SCENARIO_BASE = 0x200,
};

static const struct option common_opts[] = {
	{ "variant", required_argument, NULL, OPT_VARIANT },
	{ "placement", required_argument, NULL, OPT_PLACEMENT },
	{ "threads", required_argument, NULL, OPT_THREADS },
	{ "duration", required_argument, NULL, OPT_DURATION },
	{ "iterations", required_argument, NULL, OPT_ITERATIONS },
	{ "repeat", required_argument, NULL, OPT_REPEAT },
	{ "seed", required_argument, NULL, OPT_SEED },
	{ "output", required_argument, NULL, OPT_OUTPUT },
	{ "format", required_argument, NULL, OPT_FORMAT },
	{ "mem-node", required_argument, NULL, OPT_MEM_NODE },
	{ "list", no_argument, NULL, OPT_LIST },
	{ "help", no_argument, NULL, OPT_HELP },
	{ "version", no_argument, NULL, OPT_VERSION },
	{ "restore", no_argument, NULL, OPT_RESTORE },
	{ "assume-forbidden", no_argument, NULL, OPT_ASSUME_FORBIDDEN },
	{ "events", required_argument, NULL, OPT_EVENTS },
	{ "test", required_argument, NULL, OPT_TEST },
	{ "primitives", required_argument, NULL, OPT_PRIMITIVES },
	{ "mutant", required_argument, NULL, OPT_MUTANT },
	{ "progress", no_argument, NULL, OPT_PROGRESS },
	{ "no-progress", no_argument, NULL, OPT_NO_PROGRESS },
};

#define NR_COMMON (sizeof(common_opts) / sizeof(common_opts[0]))

void mmt_cli_usage(FILE *f)
{
	fputs("usage: run-scenario [SCENARIO[,SCENARIO...]|all] [options]\n"
	      "\n"
	      "With no scenario: the smoke suite (every scenario and variant, placement\n"
	      "spread, 200ms each).\n"
	      "\n"
	      "  --variant V[,V...]|all   variants to run (default: all)\n"
	      "  --placement P            same-core (SMT siblings), same-l3 (distinct cores\n"
	      "                           under one L3 cache), same-node, cross-node, spread,\n"
	      "                           cpus:LIST or all; repeat the option for several\n"
	      "                           (default: same-node, spread for the smoke suite)\n"
	      "  --threads N              workers (default: the scenario's)\n"
	      "  --mem-node N             NUMA node holding the shared data (default: the\n"
	      "                           node of the first worker)\n"
	      "  --duration D             per run: 500ms, 5s, 2m (default: 1s)\n"
	      "  --iterations N           per run: stop after N operations (k, M, G suffixes)\n"
	      "  --repeat N               runs per variant and placement (default: 1)\n"
	      "  --seed S                 seed for payloads and random delays, decimal,\n"
	      "                           0-18446744073709551615 (default: random)\n"
	      "  --output FILE|-          results JSON (default: results/<scenario>-<time>.json;\n"
	      "                           '-': JSON on stdout, the table on stderr)\n"
	      "  --format FMT             table (default, 120 columns), wide (full verdicts\n"
	      "                           and details) or json: what goes to stdout\n"
	      "  --events LIST|none|list  counters per worker: libpfm4 names (cycles,\n"
	      "                           instructions, PMU::EVENT, perf:: software events)\n"
	      "                           and tracepoints (tlb:tlb_flush, compaction:*);\n"
	      "                           'list' shows what this machine offers (default:\n"
	      "                           " MMT_DEFAULT_EVENTS ")\n"
	      "  --test T[,T...]|all      litmus: tests to run (variants TEST/PRIMITIVES)\n"
	      "  --primitives P[,P...]|all  litmus: kernel, kernel-mfence, urcu, c11\n"
	      "  --mutant NAME[=on|off][,...]  on a kernel from scripts/mutant-kernel: set\n"
	      "                           its bug switches for the invocation (restored after)\n"
	      "  --list                   scenarios, variants and their options (broken to\n"
	      "                           the terminal's width, COLUMNS or the window's)\n"
	      "  --progress, --no-progress  the line on stderr with run i/N, elapsed and ETA,\n"
	      "                           rewritten between runs (default: when stderr is a\n"
	      "                           terminal)\n"
	      "  --assume-forbidden       count every witness as forbidden, even on variants\n"
	      "                           that allow it: proves the exit-1 path (tests use it)\n"
	      "  --restore                put back sysctls a killed run left changed (its\n"
	      "                           journal in /run/mmtorture), then exit; every run\n"
	      "                           does this first as well\n"
	      "  --help, --version\n"
	      "\n"
	      "Scenario options (see --list) are given as --NAME VALUE.\n"
	      "\n"
	      "Exit: 0 ok, 1 forbidden outcome or lost data witnessed, 2 bad input,\n"
	      "77 every run skipped, 128+N interrupted by signal N.\n",
	      f);
}

static int error(char *err, size_t errlen, const char *msg)
{
	snprintf(err, errlen, "%s", msg);
	return -1;
}

static int add_placement(struct mmt_cli *cli, const char *s, char *err, size_t errlen)
{
	static const char *const every[] = { "same-core", "same-l3", "same-node", "cross-node", "spread" };

	if (!strcmp(s, "all")) {
		for (unsigned i = 0; i < sizeof(every) / sizeof(every[0]); i++)
			if (add_placement(cli, every[i], err, errlen))
				return -1;
		return 0;
	}
	if (cli->nr_placements == MMT_MAX_PLACEMENTS)
		return error(err, errlen, "too many --placement options");
	return mmt_placement_parse(s, &cli->placements[cli->nr_placements++], err, errlen);
}

static int select_scenarios(struct mmt_cli *cli, const char *arg, char *err, size_t errlen)
{
	char buf[1024], *tok, *save = NULL;

	if (!strcmp(arg, "all")) {
		for (unsigned i = 0; i < mmt_scenario_count(); i++)
			cli->scenarios[cli->nr_scenarios++] = mmt_scenario_at(i);
		return 0;
	}
	snprintf(buf, sizeof(buf), "%s", arg);
	for (tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		const struct mmt_scenario *sc = mmt_scenario_find(tok);

		if (!sc) {
			snprintf(err, errlen, "unknown scenario '%s' (see --list)", tok);
			return -1;
		}
		for (unsigned i = 0; i < cli->nr_scenarios; i++)
			if (cli->scenarios[i] == sc)
				sc = NULL;
		if (sc && cli->nr_scenarios < MMT_MAX_SELECTED)
			cli->scenarios[cli->nr_scenarios++] = sc;
	}
	if (!cli->nr_scenarios)
		return error(err, errlen, "no scenario named");
	return 0;
}

static int select_variants(struct mmt_cli *cli, const char *arg, char *err, size_t errlen)
{
	for (unsigned s = 0; s < cli->nr_scenarios; s++) {
		const struct mmt_scenario *sc = cli->scenarios[s];
		char buf[1024], *tok, *save = NULL;

		cli->nr_variants[s] = 0;
		if (!arg && cli->smoke && sc->smoke_variants) {
			snprintf(buf, sizeof(buf), "%s", sc->smoke_variants);
		} else if (!arg || !strcmp(arg, "all")) {
			for (unsigned v = 0; v < sc->nr_variants && v < MMT_MAX_VARIANTS; v++)
				cli->variants[s][cli->nr_variants[s]++] = v;
			continue;
		} else {
			snprintf(buf, sizeof(buf), "%s", arg);
		}
		for (tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
			const struct mmt_variant *v = mmt_variant_find(sc, tok);

			if (!v) {
				snprintf(err, errlen, "unknown variant '%s' of scenario %s (see --list %s)",
					 tok, sc->name, sc->name);
				return -1;
			}
			if (cli->nr_variants[s] == MMT_MAX_VARIANTS) {
				snprintf(err, errlen, "--variant names more than %d variants", MMT_MAX_VARIANTS);
				return -1;
			}
			cli->variants[s][cli->nr_variants[s]++] = (unsigned)(v - sc->variants);
		}
		if (!cli->nr_variants[s])
			return error(err, errlen, "--variant names no variant");
	}
	return 0;
}

static bool in_list(const char *list, const char *name, size_t len)
{
	char buf[1024], *tok, *save = NULL;

	if (!list || !strcmp(list, "all"))
		return true;
	snprintf(buf, sizeof(buf), "%s", list);
	for (tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save))
		if (strlen(tok) == len && !strncmp(tok, name, len))
			return true;
	return false;
}

/*
 * --test / --primitives: keep the variants named TEST/PRIMITIVES whose
 * parts are listed (the litmus scenario's).  Every name listed must exist.
 */
static int filter_split_variants(struct mmt_cli *cli, char *err, size_t errlen)
{
	const char *lists[2] = { cli->tests, cli->prims };
	const char *what[2] = { "--test", "--primitives" };

	for (unsigned s = 0; s < cli->nr_scenarios; s++) {
		const struct mmt_scenario *sc = cli->scenarios[s];
		unsigned kept = 0;

		if (!strchr(sc->variants[0].name, '/')) {
			snprintf(err, errlen, "--test and --primitives apply to litmus tests, not to %s", sc->name);
			return -1;
		}
		for (int l = 0; l < 2; l++) {
			char buf[1024], *tok, *save = NULL;

			if (!lists[l] || !strcmp(lists[l], "all"))
				continue;
			snprintf(buf, sizeof(buf), "%s", lists[l]);
			for (tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
				bool found = false;

				for (unsigned v = 0; v < sc->nr_variants && !found; v++) {
					const char *n = sc->variants[v].name, *slash = strchr(n, '/');

					found = l == 0 ? (strlen(tok) == (size_t)(slash - n) && !strncmp(n, tok, (size_t)(slash - n)))
						       : !strcmp(slash + 1, tok);
				}
				if (!found) {
					const char *why = l == 0 && sc->why_no_variant ? sc->why_no_variant(tok) : NULL;

					if (why)
						snprintf(err, errlen, "%s %s: %s", what[l], tok, why);
					else
						snprintf(err, errlen, "%s: unknown %s '%s' (see --list %s)", what[l],
							 l == 0 ? "test" : "primitive set", tok, sc->name);
					return -1;
				}
			}
		}
		for (unsigned k = 0; k < cli->nr_variants[s]; k++) {
			const char *n = sc->variants[cli->variants[s][k]].name, *slash = strchr(n, '/');

			if (slash && in_list(cli->tests, n, (size_t)(slash - n)) &&
			    in_list(cli->prims, slash + 1, strlen(slash + 1)))
				cli->variants[s][kept++] = cli->variants[s][k];
		}
		cli->nr_variants[s] = kept;
		if (!kept) {
			snprintf(err, errlen, "--test/--primitives select no variant of %s", sc->name);
			return -1;
		}
	}
	return 0;
}

/* Scenario options: every option any scenario declares, once. */
static unsigned collect_scenario_opts(struct mmt_cli *cli, struct option *out)
{
	unsigned n = 0;

	for (unsigned i = 0; i < mmt_scenario_count(); i++) {
		const struct mmt_scenario *sc = mmt_scenario_at(i);

		for (unsigned k = 0; k < sc->nr_options; k++) {
			bool dup = false;

			for (unsigned j = 0; j < n; j++)
				dup |= !strcmp(cli->opts[j].name, sc->options[k].name);
			if (dup || n == MMT_MAX_OPTIONS * 4)
				continue;
			cli->opts[n].name = sc->options[k].name;
			out[n] = (struct option){ sc->options[k].name, required_argument, NULL,
						  OPT_SCENARIO_BASE + (int)n };
			n++;
		}
	}
	cli->nr_opts = n;
	return n;
}

uint64_t mmt_cli_option_value(const struct mmt_cli *cli, const struct mmt_option *o)
{
	for (unsigned i = 0; i < cli->nr_opts; i++)
		if (cli->opts[i].set && !strcmp(cli->opts[i].name, o->name))
			return cli->opts[i].value;
	return o->def;
}

/* Every option given must belong to a selected scenario and be in range. */
static int check_scenario_opts(const struct mmt_cli *cli, char *err, size_t errlen)
{
	for (unsigned i = 0; i < cli->nr_opts; i++) {
		bool used = false;

		if (!cli->opts[i].set)
			continue;
		for (unsigned s = 0; s < cli->nr_scenarios; s++) {
			const struct mmt_scenario *sc = cli->scenarios[s];

			for (unsigned k = 0; k < sc->nr_options; k++) {
				const struct mmt_option *o = &sc->options[k];

				if (strcmp(o->name, cli->opts[i].name))
					continue;
				used = true;
				if (cli->opts[i].value < o->min || cli->opts[i].value > o->max) {
					snprintf(err, errlen, "--%s must be between %llu and %llu for %s",
						 o->name, (unsigned long long)o->min,
						 (unsigned long long)o->max, sc->name);
					return -1;
				}
			}
		}
		if (!used) {
			snprintf(err, errlen, "--%s is not an option of the selected scenario(s)",
				 cli->opts[i].name);
			return -1;
		}
	}
	for (unsigned s = 0; s < cli->nr_scenarios; s++) {
		const struct mmt_scenario *sc = cli->scenarios[s];
		uint64_t opt[MMT_MAX_OPTIONS];
		char why[MMT_ERRLEN];

		if (!sc->check_options)
			continue;
		for (unsigned k = 0; k < sc->nr_options; k++)
			opt[k] = mmt_cli_option_value(cli, &sc->options[k]);
		if (sc->check_options(opt, why, sizeof(why))) {
			snprintf(err, errlen, "%s: %s", sc->name, why);
			return -1;
		}
	}
	return 0;
}

/* A CPU that does not exist, or that this process may not run on. */
static bool cpus_unusable(const struct mmt_placement *pl, char *why, size_t len)
{
	long conf = sysconf(_SC_NPROCESSORS_CONF);
	cpu_set_t mask;
	bool have_mask = !sched_getaffinity(0, sizeof(mask), &mask);

	for (int i = 0; i < pl->nr_cpus; i++) {
		int c = pl->cpus[i];

		if (conf > 0 && c >= conf) {
			snprintf(why, len, "CPU %d does not exist (this machine has CPUs 0-%ld)", c, conf - 1);
			return true;
		}
		if (have_mask && (c >= CPU_SETSIZE || !CPU_ISSET(c, &mask))) {
			snprintf(why, len, "CPU %d is outside this process's affinity mask", c);
			return true;
		}
	}
	return false;
}

static int check_threads(const struct mmt_cli *cli, char *err, size_t errlen)
{
	for (unsigned s = 0; s < cli->nr_scenarios; s++) {
		const struct mmt_scenario *sc = cli->scenarios[s];
		unsigned n = cli->threads ? cli->threads : sc->default_threads;

		for (unsigned p = 0; p < cli->nr_placements; p++) {
			const struct mmt_placement *pl = &cli->placements[p];

			if (pl->kind == MMT_PLACE_CPUS && cli->threads && pl->nr_cpus != (int)cli->threads) {
				snprintf(err, errlen, "--placement %s names %d CPUs but --threads is %u",
					 pl->name, pl->nr_cpus, cli->threads);
				return -1;
			}
			if (pl->kind == MMT_PLACE_CPUS && !cli->threads)
				n = (unsigned)pl->nr_cpus;
			if (n < sc->min_threads || (sc->max_threads && n > sc->max_threads)) {
				char why[MMT_ERRLEN];

				/* "cpus:999" means one worker, but the CPU is the
				 * real problem: say that first. */
				if (pl->kind == MMT_PLACE_CPUS && cpus_unusable(pl, why, sizeof(why))) {
					snprintf(err, errlen, "--placement %s: %s (and %s needs %u threads or more, this names %u CPUs)",
						 pl->name, why, sc->name, sc->min_threads, n);
					return -1;
				}
				if (sc->max_threads)
					snprintf(err, errlen, "%s runs with %u to %u threads, not %u", sc->name,
						 sc->min_threads, sc->max_threads, n);
				else
					snprintf(err, errlen, "%s needs at least %u threads, not %u", sc->name,
						 sc->min_threads, n);
				return -1;
			}
		}
	}
	return 0;
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

int mmt_cli_parse(int argc, char **argv, struct mmt_cli *cli, char *err, size_t errlen)
{
	struct option longopts[NR_COMMON + MMT_MAX_OPTIONS * 4 + 1];
	const char *variant_arg = NULL, *scenario_arg = NULL;
	char why[MMT_ERRLEN];
	unsigned nsc;
	uint64_t v;
	int c;

	memset(cli, 0, sizeof(*cli));
	cli->repeat = 1;
	cli->mem_node = -1;
	memcpy(longopts, common_opts, sizeof(common_opts));
	nsc = collect_scenario_opts(cli, longopts + NR_COMMON);
	memset(&longopts[NR_COMMON + nsc], 0, sizeof(longopts[0]));

	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":h", longopts, NULL)) != -1) {
		const char *arg = optarg;

		switch (c) {
		case OPT_VARIANT: variant_arg = arg; break;
		case OPT_PLACEMENT:
			if (add_placement(cli, arg, err, errlen))
				return -1;
			break;
		case OPT_THREADS:
			if (parse_uint("threads", arg, 1, MMT_MAX_CPUS, &v, err, errlen))
				return -1;
			cli->threads = (unsigned)v;
			break;
		case OPT_DURATION:
			if (mmt_parse_duration(arg, &cli->duration_ns, why, sizeof(why))) {
				snprintf(err, errlen, "--duration: %s", why);
				return -1;
			}
			break;
		case OPT_ITERATIONS:
			if (parse_uint("iterations", arg, 1, UINT64_MAX, &cli->iterations, err, errlen))
				return -1;
			break;
		case OPT_REPEAT:
			if (parse_uint("repeat", arg, 1, 100000, &v, err, errlen))
				return -1;
			cli->repeat = (unsigned)v;
			break;
		case OPT_SEED:
			if (mmt_parse_u64_decimal(arg, &cli->seed, why, sizeof(why))) {
				snprintf(err, errlen, "--seed: %s", why);
				return -1;
			}
			cli->seed_set = true;
			break;
		case OPT_MEM_NODE:
			if (parse_uint("mem-node", arg, 0, MMT_MAX_NODES - 1, &v, err, errlen))
				return -1;
			cli->mem_node = (int)v;
			break;
		case OPT_OUTPUT:
			if (!*arg)
				return error(err, errlen, "--output needs a file name or '-'");
			cli->output = arg;
			break;
		case OPT_FORMAT:
			if (!strcmp(arg, "table"))
				cli->format = MMT_FORMAT_TABLE;
			else if (!strcmp(arg, "wide"))
				cli->format = MMT_FORMAT_WIDE;
			else if (!strcmp(arg, "json"))
				cli->format = MMT_FORMAT_JSON;
			else {
				snprintf(err, errlen, "--format must be table, wide or json, not '%s'", arg);
				return -1;
			}
			break;
		case OPT_LIST: cli->list = true; break;
		case OPT_ASSUME_FORBIDDEN: cli->assume_forbidden = true; break;
		case OPT_TEST: cli->tests = arg; break;
		case OPT_PRIMITIVES: cli->prims = arg; break;
		case OPT_MUTANT: cli->mutants = arg; break;
		case OPT_PROGRESS: cli->progress = MMT_PROGRESS_ON; break;
		case OPT_NO_PROGRESS: cli->progress = MMT_PROGRESS_OFF; break;
		case OPT_EVENTS:
			if (!*arg)
				return error(err, errlen, "--events needs a list, 'none' or 'list'");
			cli->events = arg;
			break;
		case 'h': /* fall through: -h is --help, as everywhere */
		case OPT_HELP: cli->help = true; return 0;
		case OPT_VERSION: cli->version = true; return 0;
		case OPT_RESTORE: cli->restore = true; return 0;
		case ':':
			snprintf(err, errlen, "option %s needs a value", argv[optind - 1]);
			return -1;
		case '?':
			snprintf(err, errlen, "unknown option '%s' (see --help)", argv[optind - 1]);
			return -1;
		default:
			if (c >= OPT_SCENARIO_BASE && c < OPT_SCENARIO_BASE + (int)nsc) {
				struct mmt_cli_opt *o = &cli->opts[c - OPT_SCENARIO_BASE];

				if (mmt_parse_u64(arg, &o->value, why, sizeof(why))) {
					snprintf(err, errlen, "--%s: %s", o->name, why);
					return -1;
				}
				o->set = true;
				break;
			}
			return error(err, errlen, "internal error: unhandled option");
		}
	}
	if (optind < argc)
		scenario_arg = argv[optind++];
	if (optind < argc) {
		snprintf(err, errlen, "unexpected argument '%s' (several scenarios: a,b)", argv[optind]);
		return -1;
	}
	if (!scenario_arg && cli->list)
		scenario_arg = "all";
	if (!scenario_arg) {
		cli->smoke = true;
		scenario_arg = "all";
	}
	/* Lists are copied into fixed buffers below: refuse, never truncate. */
	{
		const char *lists[] = { scenario_arg, variant_arg, cli->tests, cli->prims, cli->events };

		const char *names[] = { "scenario list", "--variant", "--test", "--primitives", "--events" };

		for (unsigned k = 0; k < sizeof(lists) / sizeof(lists[0]); k++) {
			if (lists[k] && strlen(lists[k]) >= 1024)
				return error(err, errlen, "a list argument is longer than 1023 characters");
			/* strtok_r would skip an empty item without a word */
			if (lists[k] && mmt_parse_list_items(lists[k], why, sizeof(why))) {
				snprintf(err, errlen, "%s: %s", names[k], why);
				return -1;
			}
		}
	}
	if (select_scenarios(cli, scenario_arg, err, errlen) ||
	    select_variants(cli, variant_arg, err, errlen))
		return -1;
	if ((cli->tests || cli->prims) && filter_split_variants(cli, err, errlen))
		return -1;
	if (!cli->nr_placements) {
		add_placement(cli, cli->smoke ? "spread" : "same-node", err, errlen);
		cli->placement_defaulted = true;
	}
	if (!cli->duration_ns && !cli->iterations) {
		cli->duration_ns = cli->smoke ? MMT_SMOKE_DURATION_NS : MMT_DEFAULT_DURATION_NS;
		cli->duration_defaulted = true;
	}
	if (cli->output && !strcmp(cli->output, "-") && cli->format == MMT_FORMAT_JSON)
		cli->format = MMT_FORMAT_TABLE; /* JSON is already on stdout once */
	if (check_scenario_opts(cli, err, errlen) || check_threads(cli, err, errlen))
		return -1;
	return 0;
}

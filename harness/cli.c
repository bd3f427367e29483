/* SPDX-License-Identifier: MIT */
#include "cli.h"
#include "cli-options.h"
#include "closest.h"
#include "parse.h"

#include <getopt.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* getopt's value for a common option is OPT_ROW_BASE plus its row (clear
 * of ':', '?' and 'h'); a scenario option's is OPT_SCENARIO_BASE plus its
 * slot in cli->opts. */
#define OPT_ROW_BASE 0x100
#define OPT_SCENARIO_BASE 0x200

static int error(char *err, size_t errlen, const char *msg)
{
	snprintf(err, errlen, "%s", msg);
	return -1;
}

static int unknown_scenario(const char *name, char *err, size_t errlen)
{
	struct mmt_closest near;
	char hint[160];

	mmt_closest_init(&near, name);
	for (unsigned i = 0; i < mmt_scenario_count(); i++)
		mmt_closest_offer(&near, mmt_scenario_at(i)->name);
	snprintf(err, errlen, "unknown scenario '%s'%s (see --list)", name,
		 mmt_closest_hint(&near, "", hint, sizeof(hint)));
	return -1;
}

static int select_scenario(struct mmt_cli *cli, const struct mmt_scenario *sc, char *err,
			   size_t errlen)
{
	for (unsigned i = 0; i < cli->nr_scenarios; i++)
		if (cli->scenarios[i] == sc) {
			snprintf(err, errlen, "scenario list names %s twice", sc->name);
			return -1;
		}
	if (cli->nr_scenarios == MMT_MAX_SELECTED) {
		snprintf(err, errlen, "more than %d scenarios selected (MMT_MAX_SELECTED)", MMT_MAX_SELECTED);
		return -1;
	}
	cli->scenarios[cli->nr_scenarios++] = sc;
	return 0;
}

static int select_scenarios(struct mmt_cli *cli, const char *arg, char *err, size_t errlen)
{
	char buf[1024], *tok, *save = NULL;

	if (!strcmp(arg, "all")) {
		for (unsigned i = 0; i < mmt_scenario_count(); i++)
			if (select_scenario(cli, mmt_scenario_at(i), err, errlen))
				return -1;
		return 0;
	}
	snprintf(buf, sizeof(buf), "%s", arg);
	for (tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		const struct mmt_scenario *sc = mmt_scenario_find(tok);

		if (!sc)
			return unknown_scenario(tok, err, errlen);
		if (select_scenario(cli, sc, err, errlen))
			return -1;
	}
	if (!cli->nr_scenarios)
		return error(err, errlen, "no scenario named");
	return 0;
}

static int unknown_variant(const struct mmt_scenario *sc, const char *name, char *err,
			   size_t errlen)
{
	struct mmt_closest near;
	char hint[160];

	mmt_closest_init(&near, name);
	for (unsigned v = 0; v < sc->nr_variants; v++)
		mmt_closest_offer(&near, sc->variants[v].name);
	snprintf(err, errlen, "unknown variant '%s' of scenario %s%s (see --list %s)", name, sc->name,
		 mmt_closest_hint(&near, "", hint, sizeof(hint)), sc->name);
	return -1;
}

/* Variant v of scenario s, once: a name listed twice would run twice. */
static int select_variant(struct mmt_cli *cli, unsigned s, unsigned v, char *err, size_t errlen)
{
	const struct mmt_scenario *sc = cli->scenarios[s];

	for (unsigned k = 0; k < cli->nr_variants[s]; k++)
		if (cli->variants[s][k] == v) {
			snprintf(err, errlen, "--variant names %s of %s twice", sc->variants[v].name, sc->name);
			return -1;
		}
	if (cli->nr_variants[s] == MMT_MAX_VARIANTS) {
		snprintf(err, errlen, "%s: more than %d variants selected (MMT_MAX_VARIANTS)", sc->name,
			 MMT_MAX_VARIANTS);
		return -1;
	}
	cli->variants[s][cli->nr_variants[s]++] = v;
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
			for (unsigned v = 0; v < sc->nr_variants; v++)
				if (select_variant(cli, s, v, err, errlen))
					return -1;
			continue;
		} else {
			snprintf(buf, sizeof(buf), "%s", arg);
		}
		for (tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
			const struct mmt_variant *v = mmt_variant_find(sc, tok);

			if (!v)
				return unknown_variant(sc, tok, err, errlen);
			if (select_variant(cli, s, (unsigned)(v - sc->variants), err, errlen))
				return -1;
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
					/* TEST/PRIMITIVES: the last '/' (a test's name may hold one) */
					const char *n = sc->variants[v].name, *slash = strrchr(n, '/');

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
			const char *n = sc->variants[cli->variants[s][k]].name, *slash = strrchr(n, '/');

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
static int collect_scenario_opts(struct mmt_cli *cli, struct option *out, char *err, size_t errlen)
{
	unsigned n = 0;

	for (unsigned i = 0; i < mmt_scenario_count(); i++) {
		const struct mmt_scenario *sc = mmt_scenario_at(i);

		if (sc->nr_options > MMT_MAX_OPTIONS) {
			snprintf(err, errlen, "internal limit: %s declares %u options (MMT_MAX_OPTIONS %d)",
				 sc->name, sc->nr_options, MMT_MAX_OPTIONS);
			return -1;
		}
		for (unsigned k = 0; k < sc->nr_options; k++) {
			bool dup = false;

			for (unsigned j = 0; j < n; j++)
				dup |= !strcmp(cli->opts[j].name, sc->options[k].name);
			if (dup)
				continue;
			if (n == MMT_MAX_SCENARIO_OPTS) {
				snprintf(err, errlen, "internal limit: more than %d scenario options (MMT_MAX_SCENARIO_OPTS)",
					 MMT_MAX_SCENARIO_OPTS);
				return -1;
			}
			cli->opts[n].name = sc->options[k].name;
			cli->opts[n].decl = &sc->options[k];
			out[n] = (struct option){ sc->options[k].name, required_argument, NULL,
						  OPT_SCENARIO_BASE + (int)n };
			n++;
		}
	}
	cli->nr_opts = n;
	return 0;
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

/* Room for getopt's table: every common row, every scenario option, the end. */
#define MAX_LONGOPTS (64 + MMT_MAX_SCENARIO_OPTS + 1)

static int build_longopts(struct mmt_cli *cli, struct option *out, char *err, size_t errlen)
{
	unsigned n = 0;

	if (mmt_cli_nr_rows > 64)	/* seen[] in read_options; values below OPT_SCENARIO_BASE */
		return error(err, errlen, "internal limit: more than 64 common options");
	for (unsigned i = 0; i < mmt_cli_nr_rows; i++)
		out[n++] = (struct option){ mmt_cli_rows[i].name,
					    mmt_cli_rows[i].arg || mmt_cli_rows[i].values ? required_argument
											   : no_argument,
					    NULL, OPT_ROW_BASE + (int)i };
	if (collect_scenario_opts(cli, out + n, err, errlen))
		return -1;
	n += cli->nr_opts;
	memset(&out[n], 0, sizeof(out[n]));
	return 0;
}

/*
 * Options are spelled out: getopt_long would take any unique prefix, so a
 * typo or a later option's prefix ("--ass") would silently mean another.
 * Stops at an option that acts alone (--help wins over what follows).
 */
static int check_spelling(int argc, char **argv, const struct option *longopts, char *err,
			  size_t errlen)
{
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i], *name;
		const struct option *o;
		struct mmt_closest near;
		char hint[160], word[128];
		size_t len;

		if (!strcmp(a, "--") || !strcmp(a, "-h"))
			return 0;	/* the end of options; -h acts alone as --help does */
		if (strncmp(a, "--", 2))
			continue;
		name = a + 2;
		len = strcspn(name, "=");
		for (o = longopts; o->name; o++)
			if (strlen(o->name) == len && !strncmp(o->name, name, len))
				break;
		if (!o->name) {
			snprintf(word, sizeof(word), "%.*s", (int)(len < 100 ? len : 100), name);
			mmt_closest_init(&near, word);
			for (o = longopts; o->name; o++)
				mmt_closest_offer(&near, o->name);
			snprintf(err, errlen, "unknown option '--%s'%s (see --help)", word,
				 mmt_closest_hint(&near, "--", hint, sizeof(hint)));
			return -1;
		}
		if (o->val < OPT_SCENARIO_BASE && mmt_cli_rows[o->val - OPT_ROW_BASE].acts_alone)
			return 0;
		if (o->has_arg == required_argument && !name[len])
			i++;	/* its value, whatever it looks like */
	}
	return 0;
}

static int check_value_name(const struct mmt_cli_row *r, const char *arg, char *err, size_t errlen)
{
	struct mmt_closest near;
	char allowed[128], hint[160];

	if (!r->values)
		return 0;
	mmt_closest_init(&near, arg);
	for (unsigned i = 0; r->values[i]; i++) {
		if (!strcmp(arg, r->values[i]))
			return 0;
		mmt_closest_offer(&near, r->values[i]);
	}
	snprintf(err, errlen, "--%s must be one of %s, not '%s'%s", r->name,
		 mmt_cli_row_arg(r, allowed, sizeof(allowed)), arg,
		 mmt_closest_hint(&near, "", hint, sizeof(hint)));
	return -1;
}

static int take_common(struct mmt_cli *cli, int c, const char *arg, unsigned *seen, char *err,
		       size_t errlen)
{
	const struct mmt_cli_row *r = &mmt_cli_rows[c];

	if (seen[c]++ && !r->repeatable) {
		snprintf(err, errlen, "--%s is given twice", r->name);
		return -1;
	}
	if (check_value_name(r, arg, err, errlen))
		return -1;
	return r->set(cli, arg, err, errlen);
}

static int take_scenario_opt(struct mmt_cli *cli, int c, const char *arg, char *err, size_t errlen)
{
	struct mmt_cli_opt *o = &cli->opts[c - OPT_SCENARIO_BASE];
	char why[MMT_ERRLEN];

	if (o->set) {
		snprintf(err, errlen, "--%s is given twice", o->name);
		return -1;
	}
	if (mmt_parse_named_u64(o->decl->names, o->decl->min, arg, &o->value, why, sizeof(why))) {
		snprintf(err, errlen, "--%s: %s", o->name, why);
		return -1;
	}
	o->set = true;
	return 0;
}

/* getopt's loop; 1 when an option that acts alone ends it. */
static int read_options(int argc, char **argv, struct mmt_cli *cli, const struct option *longopts,
			char *err, size_t errlen)
{
	unsigned seen[64] = { 0 };
	int c;

	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":h", longopts, NULL)) != -1) {
		if (c == 'h')
			c = OPT_ROW_BASE + (int)(mmt_cli_row_find("help") - mmt_cli_rows);
		if (c == ':') {
			snprintf(err, errlen, "option %s needs a value", argv[optind - 1]);
			return -1;
		}
		if (c == '?') {
			snprintf(err, errlen, "unknown option '%s' (see --help)", argv[optind - 1]);
			return -1;
		}
		if (c >= OPT_SCENARIO_BASE) {
			if (take_scenario_opt(cli, c, optarg, err, errlen))
				return -1;
			continue;
		}
		c -= OPT_ROW_BASE;
		if (take_common(cli, c, optarg, seen, err, errlen))
			return -1;
		if (mmt_cli_rows[c].acts_alone)
			return 1;
	}
	return 0;
}

/* Lists are copied into fixed buffers: refuse, never truncate. */
static int check_lists(const struct mmt_cli *cli, const char *scenario_arg, char *err,
		       size_t errlen)
{
	const char *lists[] = { scenario_arg, cli->variant_arg, cli->tests, cli->prims, cli->events };
	const char *names[] = { "scenario list", "--variant", "--test", "--primitives", "--events" };
	char why[MMT_ERRLEN];

	for (unsigned k = 0; k < sizeof(lists) / sizeof(lists[0]); k++) {
		if (lists[k] && strlen(lists[k]) >= 1024) {
			snprintf(err, errlen, "%s is longer than 1023 characters", names[k]);
			return -1;
		}
		/* strtok_r would skip an empty item without a word */
		if (lists[k] && mmt_parse_list_items(lists[k], why, sizeof(why))) {
			snprintf(err, errlen, "%s: %s", names[k], why);
			return -1;
		}
	}
	return 0;
}

/* What the command line left out: the smoke suite, the placement, the bound. */
static void apply_defaults(struct mmt_cli *cli)
{
	char ignored[MMT_ERRLEN];

	if (!cli->nr_placements) {
		mmt_cli_add_placement(cli, cli->smoke ? "spread" : "same-node", ignored, sizeof(ignored));
		cli->placement_defaulted = true;
	}
	if (!cli->duration_ns && !cli->iterations) {
		cli->duration_ns = cli->smoke ? MMT_SMOKE_DURATION_NS : MMT_DEFAULT_DURATION_NS;
		cli->duration_defaulted = true;
	}
	if (cli->output && !strcmp(cli->output, "-") && cli->format == MMT_FORMAT_JSON)
		cli->format = MMT_FORMAT_TABLE; /* JSON is already on stdout once */
}

int mmt_cli_parse(int argc, char **argv, struct mmt_cli *cli, char *err, size_t errlen)
{
	struct option longopts[MAX_LONGOPTS];
	const char *scenario_arg = NULL;
	int rc;

	memset(cli, 0, sizeof(*cli));
	cli->repeat = 1;
	cli->mem_node = -1;
	if (build_longopts(cli, longopts, err, errlen) ||
	    check_spelling(argc, argv, longopts, err, errlen))
		return -1;
	rc = read_options(argc, argv, cli, longopts, err, errlen);
	if (rc)
		return rc < 0 ? -1 : 0;
	if (optind < argc)
		scenario_arg = argv[optind++];
	if (optind < argc) {
		snprintf(err, errlen, "unexpected argument '%s' (several scenarios: a,b)", argv[optind]);
		return -1;
	}
	if (!scenario_arg) {
		cli->smoke = !cli->list;
		scenario_arg = "all";
	}
	if (check_lists(cli, scenario_arg, err, errlen) ||
	    select_scenarios(cli, scenario_arg, err, errlen) ||
	    select_variants(cli, cli->variant_arg, err, errlen))
		return -1;
	if ((cli->tests || cli->prims) && filter_split_variants(cli, err, errlen))
		return -1;
	apply_defaults(cli);
	return check_scenario_opts(cli, err, errlen) || check_threads(cli, err, errlen) ? -1 : 0;
}

/* SPDX-License-Identifier: MIT */
/* Command-line parsing: what is accepted, and every way input is refused. */
#include "cli.h"
#include "cli-options.h"
#include "closest.h"
#include "tap.h"

static struct mmt_cli cli;

static int parse(char *err, const char *a0, ...)
{
	char *argv[32] = { "mmtorture" };
	int argc = 1;
	va_list ap;
	const char *a = a0;

	va_start(ap, a0);
	while (a && argc < 31) {
		argv[argc++] = (char *)a;
		a = va_arg(ap, const char *);
	}
	va_end(ap);
	argv[argc] = NULL;
	err[0] = '\0';
	return mmt_cli_parse(argc, argv, &cli, err, 512);
}

#define REFUSED(needle, ...)                                                   \
	do {                                                                   \
		char _e[512];                                                  \
		int _rc = parse(_e, __VA_ARGS__, NULL);                        \
		tap_ok(_rc == -1 && strstr(_e, needle) && !strchr(_e, '\n'),   \
		       "refused: %s -> \"%s\"", #__VA_ARGS__, _e);             \
	} while (0)

/* What is accepted, and what it sets. */
static void test_accepted(void)
{
	char err[512];

	tap_ok(!parse(err, NULL) && cli.smoke && cli.nr_scenarios >= 1 &&
		       !strcmp(cli.placements[0].name, "spread") &&
		       cli.duration_ns == MMT_SMOKE_DURATION_NS,
	       "no arguments: smoke suite, spread, short runs");
	tap_ok(!parse(err, "msgpass", NULL) && !cli.smoke && cli.nr_scenarios == 1 &&
		       cli.nr_variants[0] == cli.scenarios[0]->nr_variants &&
		       !strcmp(cli.placements[0].name, "same-node") && cli.repeat == 1 &&
		       cli.placement_defaulted && cli.duration_defaulted,
	       "msgpass: every variant, same-node, one repeat; placement and duration defaulted");
	tap_ok(!parse(err, "msgpass", "--variant", "plain,mb", "--placement", "cross-node",
		      "--placement", "cpus:0,1", "--duration", "250ms", "--repeat", "3", "--seed",
		      "42", "--format", "json", "--output", "-", NULL) &&
		       cli.nr_variants[0] == 2 && cli.nr_placements == 2 &&
		       cli.duration_ns == 250000000ull && cli.repeat == 3 && cli.seed_set &&
		       cli.seed == 42 && !strcmp(cli.output, "-") && !cli.placement_defaulted &&
		       !cli.duration_defaulted,
	       "full command line accepted; placement and duration given");
	tap_ok(!parse(err, "msgpass", "--placement", "all", NULL) && cli.nr_placements == 5 &&
		       cli.placements[1].kind == MMT_PLACE_SAME_L3,
	       "--placement all expands to five placements, same-l3 among them");
	tap_ok(!parse(err, "msgpass", "--iterations", "10k", NULL) && cli.iterations == 10000 &&
		       cli.duration_ns == 0 && !cli.duration_defaulted,
	       "--iterations alone: no duration limit, none defaulted");
	tap_ok(!parse(err, "msgpass", "--payload-words", "64", NULL) &&
		       mmt_cli_option_value(&cli, &cli.scenarios[0]->options[0]) == 64,
	       "scenario option --payload-words accepted");
	tap_ok(!parse(err, "msgpass", NULL) &&
		       mmt_cli_option_value(&cli, &cli.scenarios[0]->options[0]) ==
			       cli.scenarios[0]->options[0].def,
	       "scenario option default applies");
	tap_ok(!parse(err, "--list", NULL) && cli.list, "--list without a scenario");
	tap_ok(!parse(err, "--help", "--bogus", NULL) && cli.help, "--help wins over what follows");
}

/* Names and values refused, each with one line that says why. */
static void test_bad_input(void)
{
	REFUSED("unknown scenario 'nosuch'", "nosuch");
	REFUSED("unknown scenario 'nosuch'", "msgpass,nosuch");
	REFUSED("unknown variant 'nope'", "msgpass", "--variant", "nope");
	REFUSED("unknown placement 'far'", "msgpass", "--placement", "far");
	REFUSED("CPU list", "msgpass", "--placement", "cpus:x");
	REFUSED("twice", "msgpass", "--placement", "cpus:1,1");
	REFUSED("--duration", "msgpass", "--duration", "5parsecs");
	REFUSED("--duration", "msgpass", "--duration", "0");
	REFUSED("--iterations", "msgpass", "--iterations", "lots");
	REFUSED("--iterations", "msgpass", "--iterations", "0");
	REFUSED("--threads", "msgpass", "--threads", "-2");
	REFUSED("--repeat", "msgpass", "--repeat", "0");
	REFUSED("--seed", "msgpass", "--seed", "x");
	REFUSED("--mem-node", "msgpass", "--mem-node", "node0");
	REFUSED("--format must be one of table|wide|json, not 'xml'", "msgpass", "--format", "xml");
	REFUSED("needs a value", "msgpass", "--duration");
	REFUSED("unknown option '--bogus'", "msgpass", "--bogus");
	REFUSED("unexpected argument 'extra'", "msgpass", "extra");
	REFUSED("at least 2 threads", "msgpass", "--threads", "1");
	REFUSED("names 2 CPUs but --threads is 3", "msgpass", "--placement", "cpus:0,1", "--threads", "3");
	REFUSED("at least 2 threads", "msgpass", "--placement", "cpus:0");
	REFUSED("between 1 and 4096", "msgpass", "--payload-words", "0");
	REFUSED("--payload-words", "msgpass", "--payload-words", "many");
	REFUSED("--output needs", "msgpass", "--output", "");
}

/* Names are spelled out, and a near miss is named. */
static void test_near_misses(void)
{
	REFUSED("unknown option '--ass' (did you mean --assume-forbidden?)", "msgpass", "--ass");
	REFUSED("unknown option '--varient' (did you mean --variant?)", "msgpass", "--varient", "mb");
	REFUSED("unknown option '--durati' (did you mean --duration?)", "msgpass", "--durati=1s");
	REFUSED("unknown option '--payload-word' (did you mean --payload-words?)", "msgpass",
		"--payload-word", "8");
	REFUSED("unknown option '--pr' (see --help)", "msgpass", "--pr");	/* two begin so */
	REFUSED("unknown scenario 'msgpas' (did you mean msgpass?)", "msgpas");
	REFUSED("unknown variant 'release-aquire' of scenario msgpass (did you mean release-acquire?)",
		"msgpass", "--variant", "release-aquire");
	REFUSED("unknown placement 'same-nod' (did you mean same-node?)", "msgpass", "--placement",
		"same-nod");
	REFUSED("(did you mean json?)", "msgpass", "--format", "jsn");
}

/* Once each: a second value would silently win, a name twice run twice. */
static void test_given_twice(void)
{
	char err[512];

	REFUSED("--output is given twice", "msgpass", "--output", "a.json", "--output", "b.json");
	REFUSED("--payload-words is given twice", "msgpass", "--payload-words", "8",
		"--payload-words", "9");
	REFUSED("--variant names mb of msgpass twice", "msgpass", "--variant", "mb,mb");
	REFUSED("--variant is given twice", "msgpass", "--variant", "mb", "--variant", "plain");
	REFUSED("scenario list names msgpass twice", "msgpass,msgpass");
	tap_ok(!parse(err, "msgpass", "--output=-", "--placement", "same-node", "--placement",
		      "cross-node", NULL) && cli.nr_placements == 2 && !strcmp(cli.output, "-"),
	       "--placement may repeat; --NAME=VALUE is taken");
	tap_ok(!parse(err, "msgpass", "--output", "--odd-name.json", NULL) &&
		       !strcmp(cli.output, "--odd-name.json"),
	       "an option's value may begin with --");
}

/* Named values, beside the numbers. */
static void test_named_values(void)
{
	char err[512];

	tap_ok(!parse(err, "litmus", "--sync", "userfence", NULL) &&
		       mmt_cli_option_value(&cli, &cli.scenarios[0]->options[0]) == 1,
	       "litmus --sync userfence is 1");
	tap_ok(!parse(err, "litmus", "--sync", "all", NULL) &&
		       mmt_cli_option_value(&cli, &cli.scenarios[0]->options[0]) == 3,
	       "litmus --sync all is 3");
	tap_ok(!parse(err, "litmus", "--sync", "2", NULL) &&
		       mmt_cli_option_value(&cli, &cli.scenarios[0]->options[0]) == 2,
	       "litmus --sync 2 still taken");
	REFUSED("--sync: 'tsk' is neither a number nor one of none, userfence, tsc, all", "litmus",
		"--sync", "tsk");
}

/* The near-miss hint underneath: edit distance and the pick. */
static void test_closest(void)
{
	struct mmt_closest c;

	tap_is_int(mmt_edit_distance("kitten", "sitting"), 3, "edit distance kitten/sitting");
	tap_is_int(mmt_edit_distance("ab", "ba"), 1, "a swap of neighbours is one edit");
	tap_is_int(mmt_edit_distance("", "abc"), 3, "from nothing: every letter");
	tap_is_int(mmt_edit_distance("jsn", "json"), 1, "one letter left out");
	mmt_closest_init(&c, "same");
	mmt_closest_offer(&c, "same-node");
	mmt_closest_offer(&c, "sane");
	tap_ok(mmt_closest_pick(&c) && !strcmp(mmt_closest_pick(&c), "same-node"),
	       "an abbreviation ranks before a typo");
	mmt_closest_init(&c, "spread");
	mmt_closest_offer(&c, "cross-node");
	tap_ok(!mmt_closest_pick(&c), "a far word is no typo: no pick");
}

/* Every row is an option the parser takes, as spelled. */
static void test_rows_parse(void)
{
	char err[512];
	unsigned unknown = 0;

	for (unsigned i = 0; i < mmt_cli_nr_rows; i++) {
		const struct mmt_cli_row *r = &mmt_cli_rows[i];
		char name[64];

		snprintf(name, sizeof(name), "--%s", r->name);
		parse(err, "msgpass", name, r->arg || r->values ? "x" : NULL, NULL);
		if (strstr(err, "unknown option")) {
			printf("# %s: %s\n", name, err);
			unknown++;
		}
	}
	tap_ok(!unknown && mmt_cli_nr_rows >= 20, "every one of the %u rows is an option the parser takes",
	       mmt_cli_nr_rows);
}

static void test_long_list(void)
{
	static char longlist[1100];

	memset(longlist, 'a', sizeof(longlist) - 1);
	REFUSED("longer than 1023", "msgpass", "--variant", longlist);
}

int main(void)
{
	test_accepted();
	test_bad_input();
	test_near_misses();
	test_given_twice();
	test_named_values();
	test_closest();
	test_rows_parse();
	test_long_list();
	return tap_done();
}

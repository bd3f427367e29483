/* SPDX-License-Identifier: MIT */
/* Command-line parsing: what is accepted, and every way input is refused. */
#include "cli.h"
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

int main(void)
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
	REFUSED("--format must be table, wide or json", "msgpass", "--format", "xml");
	REFUSED("needs a value", "msgpass", "--duration");
	REFUSED("unknown option '--bogus'", "msgpass", "--bogus");
	REFUSED("unexpected argument 'extra'", "msgpass", "extra");
	REFUSED("at least 2 threads", "msgpass", "--threads", "1");
	REFUSED("names 2 CPUs but --threads is 3", "msgpass", "--placement", "cpus:0,1", "--threads", "3");
	REFUSED("at least 2 threads", "msgpass", "--placement", "cpus:0");
	REFUSED("between 1 and 4096", "msgpass", "--payload-words", "0");
	REFUSED("--payload-words", "msgpass", "--payload-words", "many");
	REFUSED("--output needs", "msgpass", "--output", "");
	{
		static char longlist[1100];

		memset(longlist, 'a', sizeof(longlist) - 1);
		REFUSED("longer than 1023", "msgpass", "--variant", longlist);
	}
	return tap_done();
}

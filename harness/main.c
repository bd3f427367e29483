/* SPDX-License-Identifier: MIT */
/*
 * mmtorture: parse, plan, run, record.  Everything that can be wrong with
 * the input is found before the first run; results are written once, at
 * the end, atomically, even when a signal cut the runs short.
 */
#include <errno.h>
#include <math.h>
#include <numa.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <time.h>
#include <unistd.h>

#include "arch/barrier.h"
#include "catalogue.h"
#include "descriptor.h"
#include "document-json.h"
#include "cli.h"
#include "counters.h"
#include "exit-codes.h"
#include "kstate.h"
#include "metadata.h"
#include "mutant.h"
#include "mix.h"
#include "parse.h"
#include "placement.h"
#include "probe.h"
#include "progress.h"
#include "record.h"
#include "report.h"
#include "results.h"
#include "runner.h"
#include "term.h"
#include "topology.h"

struct totals {
	int runs, ok, skipped, errors, forbidden, injected_missed, inconclusive, invalid, interrupted_sig;
	bool hung;
};

/* "help (default 2, 0-3)", or with named values "help (default tsc:
 * none|userfence|tsc|all, or 0-3)". */
static void option_text(const struct mmt_option *o, char *text, size_t len)
{
	size_t used = (size_t)snprintf(text, len, "%s (default ", o->help);

	if (!o->names) {
		snprintf(text + used, len - used, "%llu, %llu-%llu)", (unsigned long long)o->def,
			 (unsigned long long)o->min, (unsigned long long)o->max);
		return;
	}
	used += (size_t)snprintf(text + used, len - used, "%s:", o->names[o->def - o->min]);
	for (unsigned i = 0; o->names[i] && used < len; i++)
		used += (size_t)snprintf(text + used, len - used, "%s%s", i ? "|" : " ", o->names[i]);
	if (used < len)
		snprintf(text + used, len - used, ", or %llu-%llu)", (unsigned long long)o->min,
			 (unsigned long long)o->max);
}

/* Broken to the terminal's width when stdout is one; a pipe gets one line
 * per variant and option, as tests/lib.sh and scripts read it. */
static void list_scenarios(const struct mmt_cli *cli)
{
	int width = mmt_term_width(STDOUT_FILENO);
	/* Continuation lines under the text, unless the terminal is too narrow. */
	int hang = width && width < 54 ? 8 : 27;

	for (unsigned s = 0; s < cli->nr_scenarios; s++) {
		const struct mmt_scenario *sc = cli->scenarios[s];
		char prefix[128], text[1024];

		snprintf(prefix, sizeof(prefix), "%s: ", sc->name);
		mmt_term_wrap(stdout, width, prefix, 2, sc->help);
		{
			char range[32];

			snprintf(range, sizeof(range), sc->max_threads == sc->min_threads ? "%u"
				 : sc->max_threads ? "%u-%u" : "%u+", sc->min_threads, sc->max_threads);
			snprintf(text, sizeof(text), "%s (default %u%s), counts %s%s%s", range, sc->default_threads,
				 sc->default_threads_fit ? ", or as many as the placement has CPUs" : "",
				 sc->ops_unit, sc->default_placement ? "; placement by default " : "",
				 sc->default_placement ? sc->default_placement : "");
			mmt_term_wrap(stdout, width, "  threads: ", hang, text);
		}
		printf("  variants:\n");
		for (unsigned v = 0; v < sc->nr_variants; v++) {
			const struct mmt_variant *var = &sc->variants[v];
			const char *not_built = mmt_family_not_built(var->family);
			const char *tag = var->injected ? "injected fault"
					  : (var->forbidden_on & mmt_this_arch()) ? "witness forbidden here"
					  : var->no_expectation ? "expected: unknown"
					  : "witness allowed here";

			snprintf(prefix, sizeof(prefix), "    %-22s ", var->name);
			snprintf(text, sizeof(text), "%s%s%s [%s%s%s]", var->help, var->hunts ? ". Hunts " : "",
				 var->hunts ? var->hunts : "", tag, not_built ? "; skipped: " : "",
				 not_built ? not_built : "");
			mmt_term_wrap(stdout, width, prefix, hang, text);
		}
		if (sc->nr_options)
			printf("  options:\n");
		for (unsigned o = 0; o < sc->nr_options; o++) {
			snprintf(prefix, sizeof(prefix), "    --%-20s ", sc->options[o].name);
			option_text(&sc->options[o], text, sizeof(text));
			mmt_term_wrap(stdout, width, prefix, hang, text);
		}
	}
}

/* Node for the shared data: the user's, or the first worker's if it has
 * memory, else the nearest one that does. */
static int choose_mem_node(const struct mmt_topology *t, const struct mmt_cli *cli, int cpu0,
			   char *reason, size_t len)
{
	const struct mmt_cpu *c = mmt_topology_cpu(t, cpu0);
	const struct mmt_node *home;
	int best = -1, best_dist = 1 << 30;

	if (cli->mem_node >= 0) {
		const struct mmt_node *nd = mmt_topology_node(t, cli->mem_node);

		if (!nd || !nd->has_memory) {
			snprintf(reason, len, "--mem-node %d: no such node with memory on this machine",
				 cli->mem_node);
			return -1;
		}
		return cli->mem_node;
	}
	home = c ? mmt_topology_node(t, c->node) : NULL;
	if (!home)
		return 0;
	if (home->has_memory)
		return home->id;
	for (int i = 0; i < t->nr_nodes; i++) {
		int d = home->distance[i];

		if (t->nodes[i].has_memory && d >= 0 && d < best_dist) {
			best = t->nodes[i].id;
			best_dist = d;
		}
	}
	return best < 0 ? 0 : best;
}

static bool assume_forbidden;

static bool is_forbidden(const struct mmt_variant *v)
{
	return assume_forbidden || (v->forbidden_on & mmt_this_arch()) != 0;
}

static struct mmt_event_set events;
static bool events_on;

static const char *verdict(const struct mmt_scenario *sc, const struct mmt_variant *v, uint64_t witnesses,
			   bool forbidden)
{
	/* A scenario with no outcome but "as expected" (barrier-cost) sees
	 * nothing and hides nothing: it measures. */
	if (sc->nr_outcomes <= 1 && !v->injected)
		return "measured";
	if (v->injected && !assume_forbidden)
		return witnesses ? "caught (injected fault)" : "MISSED (injected fault not seen)";
	if (forbidden)
		return witnesses ? "FORBIDDEN AND SEEN" : "ok (forbidden, not seen)";
	if (v->no_expectation)
		return witnesses ? "expected unknown, seen" : "expected unknown, not seen";
	return witnesses ? "allowed, seen" : "allowed, not seen";
}

static void fill_measured(struct mmt_record *rec, struct mmt_run *run, const struct mmt_run_outcome *out,
			  const struct mmt_probe_set *probe_before, const struct mmt_probe_set *probe_after)
{
	const struct mmt_scenario *sc = run->sc;

	rec->histogram = mmt_histogram_json(sc, run->outcomes);
	for (unsigned o = 1; o < sc->nr_outcomes; o++)
		rec->witnesses += run->outcomes[o];
	rec->measured = true;
	rec->mem_node = out->actual_mem_node >= 0 ? out->actual_mem_node : run->mem_node;
	rec->iterations = run->ops;
	rec->elapsed_ns = out->elapsed_ns;
	rec->workers = mmt_workers_json(run);
	rec->probe = mmt_probe_json(probe_before, probe_after);
	rec->metrics = json_incref(run->metrics);
	rec->detection = run->detection ? json_incref(run->detection) : NULL;
	rec->placement_track = run->placement_track ? json_incref(run->placement_track) : NULL;
	rec->integrity = run->integrity ? json_incref(run->integrity) : NULL;
	rec->conditions = run->conditions ? json_incref(run->conditions) : NULL;
	if (run->events)
		rec->counters = mmt_counters_json(run->events, run->counters, run->nr_workers, run->cpu_counters,
						  run->cpu_ids, run->nr_cpu_counters, run->ops);
	snprintf(rec->verdict, sizeof(rec->verdict), "%s", verdict(sc, run->variant, rec->witnesses, rec->forbidden));
}

/* What a finished run's record says: its status, from what was measured. */
static void judge(struct mmt_record *rec, const struct mmt_run *run, const struct mmt_run_outcome *out)
{
	rec->status = MMT_STATUS_OK;
	if (rec->forbidden && rec->witnesses) {
		rec->status = MMT_STATUS_WITNESSED;
	} else if (out->end == MMT_END_INTERRUPTED) {
		rec->status = MMT_STATUS_INTERRUPTED;
	} else if (run->invalid) {
		/* A forbidden witness stands whatever else went wrong; without
		 * one, a run that did not do its work has no other verdict. */
		rec->status = MMT_STATUS_INVALID;
		snprintf(rec->verdict, sizeof(rec->verdict), "INVALID: %s", run->invalid_reason);
		mmt_record_set_reason(rec, run->invalid_reason);
	} else if (run->inconclusive) {
		rec->status = MMT_STATUS_INCONCLUSIVE;
		snprintf(rec->verdict, sizeof(rec->verdict), "INCONCLUSIVE: %s", run->inconclusive_reason);
		mmt_record_set_reason(rec, run->inconclusive_reason);
	}
	if (out->end == MMT_END_INTERRUPTED)
		mmt_record_set_reason(rec, strsignal(out->signo));
}

/* The invocation's totals, from each record's status: the exit code's input. */
static void count(struct totals *tot, const struct mmt_record *rec, int signo)
{
	switch (rec->status) {
	case MMT_STATUS_OK: tot->ok++; break;
	case MMT_STATUS_WITNESSED: tot->forbidden++; break;
	case MMT_STATUS_SKIPPED: tot->skipped++; break;
	case MMT_STATUS_ERROR: tot->errors++; break;
	case MMT_STATUS_HUNG: tot->errors++; tot->hung = true; break;
	case MMT_STATUS_INCONCLUSIVE: tot->inconclusive++; break;
	case MMT_STATUS_INVALID: tot->invalid++; break;
	case MMT_STATUS_INTERRUPTED: break;
	case MMT_NR_STATUS: break;
	}
	if (rec->measured && rec->status != MMT_STATUS_HUNG && rec->status != MMT_STATUS_INVALID && rec->injected &&
	    !rec->witnesses)
		tot->injected_missed++;
	/* Whatever the run's status (a witness outranks the interruption),
	 * the signal ends the invocation. */
	if (signo)
		tot->interrupted_sig = signo;
}

static int pending_signal(const sigset_t *sigs)
{
	struct timespec zero = { 0, 0 };
	int sig = sigtimedwait(sigs, NULL, &zero);

	return sig > 0 ? sig : 0;
}

/* The run's time bound: the scenario's own where none was given. */
static uint64_t run_duration(const struct mmt_cli *cli, const struct mmt_scenario *sc)
{
	return cli->duration_defaulted && sc->default_duration_ns ? sc->default_duration_ns : cli->duration_ns;
}

/* Plans *threads workers; a scenario whose default count may fit the
 * placement (default_threads_fit) gets fewer, down to its minimum, when
 * the count was not given.  The reason is the asked-for count's. */
static int plan_threads(const struct mmt_topology *topo, const struct mmt_scenario *sc,
			const struct mmt_placement *pl, bool defaulted, unsigned *threads, int *cpus,
			char *reason, size_t len)
{
	char why[256];

	if (!mmt_placement_plan(topo, pl, (int)*threads, cpus, reason, len))
		return 0;
	if (!defaulted || !sc->default_threads_fit || pl->kind == MMT_PLACE_CPUS)
		return 1;
	for (unsigned t = *threads - 1; t >= sc->min_threads && t > 0; t--)
		if (!mmt_placement_plan(topo, pl, (int)t, cpus, why, sizeof(why))) {
			*threads = t;
			return 0;
		}
	return 1;
}

/* Workers asked for: the variant's own count, --threads, the CPUs named,
 * or the scenario's default. */
static unsigned asked_threads(const struct mmt_cli *cli, const struct mmt_scenario *sc,
			      const struct mmt_variant *v, const struct mmt_placement *pl)
{
	return v->threads ? v->threads : cli->threads ? cli->threads
	       : pl->kind == MMT_PLACE_CPUS ? (unsigned)pl->nr_cpus : sc->default_threads;
}

/* One run's plan: *threads (asked for on entry), cpus[] and *mem_node, or
 * 1 with why it is skipped: the scenario's needs, the placement, memory. */
static int plan_one(const struct mmt_topology *topo, const struct mmt_cli *cli, const struct mmt_scenario *sc,
		    const struct mmt_variant *v, const struct mmt_placement *pl, unsigned *threads, int *cpus,
		    int *mem_node, char *why, size_t len)
{
	const char *not_built = mmt_family_not_built(v->family);

	if (not_built) {
		snprintf(why, len, "%s", not_built);
		return 1;
	}
	if (mmt_needs_unmet(sc, why, len) ||
	    plan_threads(topo, sc, pl, !v->threads && !cli->threads, threads, cpus, why, len))
		return 1;
	*mem_node = choose_mem_node(topo, cli, cpus[0], why, len);
	return *mem_node < 0;
}

/* The placements scenario s runs at: the command's, or the scenario's own
 * default when none was given (parsed into *own; checked in check_input). */
static const struct mmt_placement *placements_of(const struct mmt_cli *cli, const struct mmt_scenario *sc,
						 struct mmt_placement *own)
{
	char why[256];

	if (cli->placement_defaulted && sc->default_placement &&
	    !mmt_placement_parse(sc->default_placement, own, why, sizeof(why)))
		return own;
	return cli->placements;
}

/* The run itself and the probe after it, into rec (probe_before is its). */
static void execute(struct mmt_run *run, const int *cpus, uint64_t duration_ns, const sigset_t *sigs,
		    struct mmt_probe_set *probe_before, struct totals *tot, struct mmt_record *rec)
{
	struct mmt_run_outcome out;
	struct mmt_probe_status pst;
	struct mmt_probe_set *after;

	mmt_run_execute(run, cpus, duration_ns, sigs, &out);
	if (out.end == MMT_END_SKIPPED) {
		rec->status = MMT_STATUS_SKIPPED;
		mmt_record_set_reason(rec, out.error);
		free(probe_before);
		count(tot, rec, 0);
		mmt_run_release(run);
		return;
	}
	if (out.end == MMT_END_ERROR || out.end == MMT_END_HUNG) {
		rec->status = out.end == MMT_END_HUNG ? MMT_STATUS_HUNG : MMT_STATUS_ERROR;
		mmt_record_set_reason(rec, out.error);
		free(probe_before);
		count(tot, rec, 0);
		/* Not released: a hung run's workers may still use it.  An
		 * error's have returned, or never started. */
		if (out.end == MMT_END_ERROR)
			mmt_run_release(run);
		return;
	}
	after = mmt_probe_cpus(cpus, (int)run->nr_workers, sigs, &pst);
	fill_measured(rec, run, &out, probe_before, after);
	free(probe_before);
	free(after);
	if (pst.end == MMT_PROBE_HUNG) {
		/* The run's numbers stand; the machine stopped answering after. */
		rec->status = MMT_STATUS_HUNG;
		mmt_record_set_reason(rec, pst.where);
	} else {
		judge(rec, run, &out);
	}
	count(tot, rec, out.end == MMT_END_INTERRUPTED ? out.signo : 0);
	mmt_run_release(run);
}

/* One run: plan, probe, execute, probe, record into rec.  Returns false
 * when a signal came before the run started (rec then holds nothing). */
static bool do_run(const struct mmt_cli *cli, const struct mmt_topology *topo,
		   const struct mmt_scenario *sc, const struct mmt_variant *v,
		   const struct mmt_placement *pl, unsigned rep, uint64_t seed,
		   const sigset_t *sigs, struct totals *tot, struct mmt_record *rec)
{
	static int cpus[MMT_MAX_CPUS];
	uint64_t opt[MMT_MAX_OPTIONS];
	unsigned threads = asked_threads(cli, sc, v, pl);
	char reason[256];
	struct mmt_run run = { 0 };
	struct mmt_probe_status pst;
	struct mmt_probe_set *before;
	int mem_node;

	for (unsigned k = 0; k < sc->nr_options; k++)
		opt[k] = mmt_cli_option_value(cli, &sc->options[k]);
	mmt_record_init(rec, sc, v, pl->name, rep, threads, seed, opt, is_forbidden(v));
	tot->runs++;
	if (plan_one(topo, cli, sc, v, pl, &threads, cpus, &mem_node, reason, sizeof(reason))) {
		mmt_record_set_reason(rec, reason);
		count(tot, rec, 0);
		return true;
	}
	rec->threads = threads;	/* what the plan fitted */
	run.sc = sc;
	run.variant = v;
	run.opt = opt;
	run.nr_workers = threads;
	run.mem_node = mem_node;
	run.iterations = cli->iterations;
	run.duration_defaulted = cli->duration_defaulted;
	run.seed = seed;
	run.events = events_on ? &events : NULL;

	before = mmt_probe_cpus(cpus, (int)threads, sigs, &pst);
	if (pst.end == MMT_PROBE_INTERRUPTED) {
		/* Nothing ran: no record, as for the runs after the signal. */
		free(before);
		mmt_record_release(rec);
		tot->runs--;
		tot->interrupted_sig = pending_signal(sigs);
		return false;
	}
	mmt_record_set_cpus(rec, cpus, threads);
	if (pst.end == MMT_PROBE_HUNG) {
		rec->status = MMT_STATUS_HUNG;
		mmt_record_set_reason(rec, pst.where);
		free(before);
		count(tot, rec, 0);
		return true;
	}
	execute(&run, cpus, run_duration(cli, sc), sigs, before, tot, rec);
	return true;
}

/* --restore: what a killed run left changed, put back on demand. */
static int restore_command(void)
{
	char err[512];

	switch (mmt_sysctl_repair(stdout, err, sizeof(err))) {
	case MMT_REPAIR_CLEAN:
		printf("mmtorture: nothing to restore (no journal in %s)\n", mmt_sysctl_state_dir());
		return 0;
	case MMT_REPAIR_DONE:
		return 0;
	case MMT_REPAIR_BUSY:
		printf("mmtorture: %s; it restores its own values\n", err);
		return 0;
	case MMT_REPAIR_NO_ACCESS:
		fprintf(stderr, "mmtorture: --restore needs root: %s\n", err);
		return MMT_EXIT_SKIPPED;
	case MMT_REPAIR_FAILED:
		break;
	}
	fprintf(stderr, "mmtorture: %s\n", err);
	return MMT_EXIT_HARNESS;
}

/*
 * The table at the end is drawn from slim copies of the records (no
 * per-worker data, counters only when asked for), and from a bounded
 * number of them: every run is in the results file, and memory stays
 * flat however many runs --repeat asks for.  Runs that did not simply
 * pass are kept longer than those that did.
 */
#define TABLE_ROWS 1000
#define TABLE_ROWS_NOT_OK 2000

struct table_rows {
	json_t **row;	/* slim copies (mmt_table_row_json) */
	size_t nr, cap;
	unsigned omitted;
};

static void keep_for_table(struct table_rows *rows, const json_t *rec, enum mmt_status status, bool counters)
{
	size_t n = rows->nr;

	if (n >= TABLE_ROWS &&
	    (n >= TABLE_ROWS_NOT_OK || status == MMT_STATUS_OK || status == MMT_STATUS_SKIPPED)) {
		rows->omitted++;
		return;
	}
	if (n == rows->cap) {
		size_t cap = rows->cap ? 2 * rows->cap : 64;
		json_t **grown = realloc(rows->row, cap * sizeof(*grown));

		if (!grown) { /* the table is a convenience: every run is in the results */
			rows->omitted++;
			return;
		}
		rows->row = grown;
		rows->cap = cap;
	}
	rows->row[rows->nr++] = mmt_table_row_json(rec, counters);
}

static void drop_table(struct table_rows *rows)
{
	for (size_t i = 0; i < rows->nr; i++)
		json_decref(rows->row[i]);
	free(rows->row);
}

static void report_omitted(FILE *f, unsigned omitted)
{
	if (omitted)
		fprintf(f, "(%u runs that passed are not in this table, to keep memory bounded: every run is in the results file)\n",
			omitted);
}

static void copy_file(const char *path, FILE *to)
{
	char buf[65536];
	size_t n;
	FILE *f = fopen(path, "r");

	if (!f)
		return;
	while ((n = fread(buf, 1, sizeof(buf), f)) > 0)
		fwrite(buf, 1, n, to);
	fclose(f);
}


static int exit_code(const struct totals *t)
{
	if (t->forbidden)
		return MMT_EXIT_WITNESSED;
	if (t->errors)
		return MMT_EXIT_HARNESS;
	if (t->interrupted_sig)
		return MMT_EXIT_SIGNAL + t->interrupted_sig;
	if (t->runs && t->skipped + t->inconclusive + t->invalid == t->runs)
		return MMT_EXIT_SKIPPED;
	return 0;
}

/* One invocation: what main's phases share. */
struct invocation {
	struct mmt_cli cli;
	struct mmt_topology topo;
	sigset_t sigs;
	struct totals tot;
	struct mmt_results_writer out;
	struct mmt_metadata metadata;	/* gathered before the runs change anything */
	struct table_rows table;	/* what the table at the end is drawn from */
	/* each witnessed run's identity, whatever the table keeps */
	struct witnessed_run {
		const char *scenario, *variant;
		char placement[sizeof(((struct mmt_placement *)0)->name)];
		unsigned repeat;
		json_t *witnesses;	/* the record's, referenced */
	} *witnessed;
	unsigned nr_witnessed;
	uint64_t seed;
	unsigned run_index;
	struct mmt_progress progress;
	bool to_stdout;
	char path[4096];
};

static int fail(int code, const char *err)
{
	fprintf(stderr, "mmtorture: %s\n", err);
	return code;
}

/* --help, --restore, --version, --list, --events list: answered without a
 * run.  -1 when the command line asks for runs. */
static int answer_without_running(const struct mmt_cli *cli)
{
	if (cli->help) {
		mmt_cli_usage(stdout);
		return MMT_EXIT_OK;
	}
	if (cli->restore)
		return restore_command();
	if (cli->version) {
		printf("mmtorture %s\n", mmt_version_string());
		return MMT_EXIT_OK;
	}
	if (cli->list && cli->format == MMT_FORMAT_JSON) {
		json_t *cat = mmt_catalogue_json(cli->scenarios, cli->nr_scenarios);

		json_dumpf(cat, stdout, JSON_INDENT(2) | JSON_ENSURE_ASCII);
		putchar('\n');
		json_decref(cat);
		return fflush(stdout) ? MMT_EXIT_HARNESS : MMT_EXIT_OK;
	}
	if (cli->list) {
		list_scenarios(cli);
		return MMT_EXIT_OK;
	}
	if (cli->events && !strcmp(cli->events, "list")) {
		mmt_events_list(stdout);
		return MMT_EXIT_OK;
	}
	return -1;
}

/* The counters: the user's list, or the default set plus each scenario's
 * own.  Before any thread: tracepoints may need a private mount namespace. */
static int choose_events(const struct mmt_cli *cli, char *err, size_t len)
{
	char list[1024];
	size_t used = (size_t)snprintf(list, sizeof(list), "%s", MMT_DEFAULT_EVENTS);

	if (cli->events)
		return mmt_events_parse(cli->events, &events, err, len) ? MMT_EXIT_USAGE : 0;
	for (unsigned s = 0; s < cli->nr_scenarios; s++) {
		const char *extra = cli->scenarios[s]->extra_events;

		if (extra)
			used += (size_t)snprintf(list + used, used < sizeof(list) ? sizeof(list) - used : 0, ",%s", extra);
	}
	if (used >= sizeof(list)) {
		snprintf(err, len, "internal limit: the default events of the selected scenarios pass %zu characters",
			 sizeof(list) - 1);
		return MMT_EXIT_HARNESS;
	}
	return mmt_events_parse(list, &events, err, len) ? MMT_EXIT_USAGE : 0;
}

/* CPUs and nodes the command names must exist on this machine: a CPU or
 * node it does not have is a mistake in the command, exit 2 before
 * anything runs.  What exists but cannot be used now (an offline CPU, one
 * outside the affinity mask, a node without memory) is the machine's
 * state: those runs are skipped with the reason. */
static int check_machine_names(const struct mmt_cli *cli, const struct mmt_topology *topo, char *err,
			       size_t len)
{
	long conf = sysconf(_SC_NPROCESSORS_CONF);

	for (unsigned p = 0; p < cli->nr_placements; p++) {
		const struct mmt_placement *pl = &cli->placements[p];

		for (int i = 0; pl->kind == MMT_PLACE_CPUS && i < pl->nr_cpus; i++)
			if (conf > 0 && pl->cpus[i] >= conf) {
				snprintf(err, len, "--placement %s: CPU %d does not exist (this machine has CPUs 0-%ld)",
					 pl->name, pl->cpus[i], conf - 1);
				return MMT_EXIT_USAGE;
			}
	}
	if (cli->mem_node >= 0 && !mmt_topology_node(topo, cli->mem_node)) {
		int last = topo->nr_nodes ? topo->nodes[topo->nr_nodes - 1].id : 0;

		snprintf(err, len, "--mem-node %d: no such node (this machine has node%s 0%s%.0d)", cli->mem_node,
			 last ? "s" : "", last ? "-" : "", last);
		return MMT_EXIT_USAGE;
	}
	return 0;
}

/* Everything that can be wrong with the input, found before anything runs;
 * the results' target checked and its temp file created. */
static int check_input(struct invocation *inv, char *err, size_t len)
{
	const struct mmt_cli *cli = &inv->cli;
	const char *results_dir = getenv("MMT_RESULTS_DIR");
	int code = choose_events(cli, err, len);

	if (code)
		return code;
	events_on = events.nr > 0;
	for (unsigned s = 0; s < cli->nr_scenarios; s++) {
		struct mmt_placement own;
		const char *dp = cli->scenarios[s]->default_placement;
		char why[256];

		if (dp && mmt_placement_parse(dp, &own, why, sizeof(why))) {
			snprintf(err, len, "internal error, %s's default placement: %s", cli->scenarios[s]->name, why);
			return MMT_EXIT_HARNESS;
		}
	}
	if (cli->mutants && mmt_mutant_check(cli->mutants, err, len))
		return MMT_EXIT_USAGE;
	if (mmt_topology_load(&inv->topo, "/sys", err, len))
		return MMT_EXIT_HARNESS;
	code = check_machine_names(cli, &inv->topo, err, len);
	if (code)
		return code;
	inv->to_stdout = cli->output && !strcmp(cli->output, "-");
	if (inv->to_stdout || cli->dry_run)
		return 0;
	if (cli->output)
		snprintf(inv->path, sizeof(inv->path), "%s", cli->output);
	else if (mmt_results_default_path(results_dir ? results_dir : "results",
					  cli->smoke ? "smoke" : cli->scenarios[0]->name, inv->path,
					  sizeof(inv->path), err, len))
		return MMT_EXIT_USAGE;
	return mmt_results_open(&inv->out, inv->path, err, len) ? MMT_EXIT_USAGE : 0;
}

/* The machine, its state made safe, the seed, the mutant switches, the
 * document's metadata. */
static int prepare(struct invocation *inv, int argc, char **argv, char *err, size_t len)
{
	const struct mmt_cli *cli = &inv->cli;

	mmt_topology_apply_affinity(&inv->topo);
	/* Before the metadata reads the settings: a run killed with its
	 * sysctls changed must not have them recorded as the machine's. */
	mmt_sysctl_guard_signals();
	if (mmt_sysctl_repair(stderr, err, len) == MMT_REPAIR_FAILED)
		fprintf(stderr, "mmtorture: warning: %s\n", err);
	if (cli->seed_set) {
		inv->seed = cli->seed;
	} else if (getrandom(&inv->seed, sizeof(inv->seed), GRND_NONBLOCK) != sizeof(inv->seed)) {
		/* early boot (a fresh VM): do not block for entropy */
		inv->seed = mmt_mix64((uint64_t)time(NULL) ^ ((uint64_t)getpid() << 32));
	}
	/* Set for the whole invocation; restored with the sysctls at exit. */
	if (cli->mutants && mmt_mutant_apply(cli->mutants, err, len)) {
		mmt_sysctl_restore_all();
		return MMT_EXIT_HARNESS;
	}
	mmt_metadata_gather(&inv->metadata, argc, argv, inv->seed, &inv->topo);
	if (inv->to_stdout)
		mmt_results_open(&inv->out, NULL, err, len);
	return 0;
}

/* A witnessed run, for say_witnessed(): kept whatever the table keeps. */
static void note_witnessed(struct invocation *inv, const struct mmt_scenario *sc, const struct mmt_variant *v,
			   const struct mmt_placement *pl, unsigned rep, json_t *witnesses)
{
	struct witnessed_run *w = realloc(inv->witnessed, (inv->nr_witnessed + 1) * sizeof(*w));

	if (!w) {
		fprintf(stderr, "mmtorture: FORBIDDEN AND SEEN: %s %s %s rep %u (no memory to keep it)\n", sc->name,
			v->name, pl->name, rep);
		return;
	}
	inv->witnessed = w;
	w = &w[inv->nr_witnessed++];
	w->scenario = sc->name;
	w->variant = v->name;
	snprintf(w->placement, sizeof(w->placement), "%s", pl->name);
	w->repeat = rep;
	w->witnesses = json_incref(witnesses);
}

/* Run k of the loop: its record into the results and the table.  Returns
 * 1 to stop the loop (a signal), 0 to go on, or an exit code. */
static int run_one(struct invocation *inv, const struct mmt_scenario *sc, unsigned variant,
		   const struct mmt_placement *pl, unsigned rep)
{
	const struct mmt_cli *cli = &inv->cli;
	const struct mmt_variant *v = &sc->variants[variant];
	int sig = pending_signal(&inv->sigs);
	struct mmt_record rec;
	char err[512];
	json_t *json;

	if (sig) {
		inv->tot.interrupted_sig = sig;
		return 1;
	}
	if (inv->progress.on) {
		char label[256];

		snprintf(label, sizeof(label), "%s %s %s rep %u", sc->name, v->name, pl->name, rep);
		mmt_progress_run(&inv->progress, inv->run_index, label);
	}
	if (!do_run(cli, &inv->topo, sc, v, pl, rep, mmt_mix64(inv->seed + inv->run_index++), &inv->sigs,
		    &inv->tot, &rec))
		return 1; /* a signal before it started */
	json = mmt_record_json(&rec);
	mmt_record_release(&rec);
	if (mmt_results_add_run(&inv->out, json, err, sizeof(err))) {
		mmt_progress_end(&inv->progress);
		fprintf(stderr, "mmtorture: internal error, a run fails the schema: %s\n", err);
		mmt_results_abandon(&inv->out);
		json_decref(json);
		return MMT_EXIT_HARNESS;
	}
	if (rec.status == MMT_STATUS_WITNESSED)
		note_witnessed(inv, sc, v, pl, rep, json_object_get(json, "witnesses"));
	if (inv->to_stdout || cli->format != MMT_FORMAT_JSON)
		keep_for_table(&inv->table, json, rec.status, events_on && cli->events);
	json_decref(json);
	return inv->tot.interrupted_sig ? 1 : 0;
}

/* Repeats outside variants: the host moves vCPUs every few seconds, so
 * interleaving keeps one variant from getting all the bad luck.  0, or an
 * exit code that ends the invocation there. */
static int run_all(struct invocation *inv)
{
	const struct mmt_cli *cli = &inv->cli;
	unsigned nr_runs = 0;
	int rc = 0;

	for (unsigned s = 0; s < cli->nr_scenarios; s++)
		nr_runs += cli->nr_placements * cli->repeat * cli->nr_variants[s];
	mmt_progress_start(&inv->progress, cli->progress, STDERR_FILENO, nr_runs, cli->duration_ns);
	for (unsigned s = 0; s < cli->nr_scenarios && !rc && !inv->tot.hung; s++) {
		const struct mmt_scenario *sc = cli->scenarios[s];
		struct mmt_placement own;
		const struct mmt_placement *placements = placements_of(cli, sc, &own);

		for (unsigned p = 0; p < cli->nr_placements && !rc && !inv->tot.hung; p++)
			for (unsigned r = 0; r < cli->repeat && !rc && !inv->tot.hung; r++)
				for (unsigned k = 0; k < cli->nr_variants[s] && !rc && !inv->tot.hung; k++)
					rc = run_one(inv, sc, cli->variants[s][k], &placements[p], r);
	}
	mmt_progress_end(&inv->progress);
	return rc == 1 ? 0 : rc;
}

/* A planned run's time bound, for --dry-run's readers (nightly's
 * estimate): " bound SECONDSs", "(ends once done)" when the scenario ends
 * it earlier by itself, or " iterations N" when only a count bounds it. */
static void print_bound(const struct mmt_cli *cli, const struct mmt_scenario *sc)
{
	uint64_t ns = run_duration(cli, sc);

	if (!ns) {
		printf(" iterations %llu\n", (unsigned long long)cli->iterations);
		return;
	}
	printf(" bound %.3fs%s\n", (double)ns / 1e9,
	       cli->duration_defaulted && sc->default_duration_ns ? " (ends once done)" : "");
}

/* --dry-run: each run the loop would make, planned as it would plan it:
 * its CPUs, or why it would be skipped.  Nothing runs or is written. */
static int dry_run(struct invocation *inv)
{
	const struct mmt_cli *cli = &inv->cli;
	static int cpus[MMT_MAX_CPUS];

	mmt_topology_apply_affinity(&inv->topo);
	for (unsigned s = 0; s < cli->nr_scenarios; s++) {
		const struct mmt_scenario *sc = cli->scenarios[s];
		struct mmt_placement own;
		const struct mmt_placement *placements = placements_of(cli, sc, &own);
		char why[256];

		for (unsigned p = 0; p < cli->nr_placements; p++)
			for (unsigned r = 0; r < cli->repeat; r++)
				for (unsigned k = 0; k < cli->nr_variants[s]; k++) {
					const struct mmt_variant *v = &sc->variants[cli->variants[s][k]];
					const struct mmt_placement *pl = &placements[p];
					unsigned threads = asked_threads(cli, sc, v, pl);
					int mem_node;

					printf("%s %s %s %u ", sc->name, v->name, pl->name, r);
					if (plan_one(&inv->topo, cli, sc, v, pl, &threads, cpus, &mem_node, why,
						     sizeof(why))) {
						printf("skipped: %s\n", why);
						continue;
					}
					for (unsigned i = 0; i < threads; i++)
						printf("%s%d", i ? "," : "cpus ", cpus[i]);
					print_bound(cli, sc);
				}
	}
	return MMT_EXIT_OK;
}

/* Each run that saw a forbidden outcome, on stderr: for when the results
 * file could not be written and stdout may be lost too. */
static void say_witnessed(const struct invocation *inv)
{
	for (unsigned i = 0; i < inv->nr_witnessed; i++) {
		const struct witnessed_run *r = &inv->witnessed[i];

		fprintf(stderr, "mmtorture: FORBIDDEN AND SEEN, not in any file: %s %s %s rep %u, %lld witnesses (exit 1)\n",
			r->scenario, r->variant, r->placement, r->repeat,
			(long long)json_integer_value(json_object_get(r->witnesses, "count")));
	}
}

/* The document's parts, as the runs left them. */
static json_t *document(const struct invocation *inv, int code)
{
	const struct mmt_cli *cli = &inv->cli;
	const struct totals *tot = &inv->tot;
	struct mmt_sysctl_journal journal;
	struct mmt_document d = {
		.metadata = &inv->metadata, .label = cli->label, .journal = &journal,
		.interrupted = tot->interrupted_sig != 0,
		.scenarios = cli->scenarios, .nr_scenarios = cli->nr_scenarios,
		.variants = cli->variants, .nr_variants = cli->nr_variants,
		.summary = { .runs = tot->runs, .ok = tot->ok, .skipped = tot->skipped, .errors = tot->errors,
			     .inconclusive = tot->inconclusive, .invalid = tot->invalid,
			     .forbidden_witnessed = tot->forbidden, .injected_missed = tot->injected_missed,
			     .exit_code = code },
		.runs = inv->table.row, .nr_runs = inv->table.nr,
	};

	mmt_sysctl_journal_get(&journal);
	return mmt_document_json(&d);
}

/* The summary, the results file, the table; the exit code. */
static int finish(struct invocation *inv)
{
	const struct mmt_cli *cli = &inv->cli;
	int code = exit_code(&inv->tot);
	/* "runs" holds the table's slim rows: the file has every full record */
	json_t *doc = document(inv, code);
	char err[512];
	bool written;

	written = !mmt_results_finish(&inv->out, doc, err, sizeof(err));
	if (!written) {
		fail(MMT_EXIT_HARNESS, err);
		/* The verdict comes before storage: what was seen is said,
		 * and still decides the exit code. */
		if (code == MMT_EXIT_WITNESSED)
			say_witnessed(inv);
		else
			code = MMT_EXIT_HARNESS;
	}
	mmt_report_set_wide(cli->format == MMT_FORMAT_WIDE);
	/* The table from the slim copies; the summary from the document. */
	if (inv->to_stdout) {
		mmt_report_table(stderr, doc, NULL);
		if (cli->events)
			mmt_report_counters(stderr, doc);
		report_omitted(stderr, inv->table.omitted);
	} else if (cli->format == MMT_FORMAT_JSON) {
		if (written)
			copy_file(inv->path, stdout);
	} else {
		mmt_report_table(stdout, doc, written ? inv->path : NULL);
		if (cli->events)
			mmt_report_counters(stdout, doc);
		report_omitted(stdout, inv->table.omitted);
	}
	if ((fflush(stdout) || ferror(stdout)) && !(inv->to_stdout && !written)) {
		/* The table or the JSON did not reach stdout: say so, never 0. */
		snprintf(err, sizeof(err), "cannot write to stdout: %s", strerror(errno ? errno : EIO));
		fail(MMT_EXIT_HARNESS, err);
		if (code != MMT_EXIT_WITNESSED)
			code = MMT_EXIT_HARNESS;
	}
	json_decref(doc);
	drop_table(&inv->table);
	for (unsigned i = 0; i < inv->nr_witnessed; i++)
		json_decref(inv->witnessed[i].witnesses);
	free(inv->witnessed);
	mmt_metadata_release(&inv->metadata);
	return code;
}

int main(int argc, char **argv)
{
	static struct invocation inv;
	char err[512];
	int code;

	/* Blocked before any thread exists, so every thread inherits the
	 * mask and only the supervisor ever takes these signals. */
	sigemptyset(&inv.sigs);
	sigaddset(&inv.sigs, SIGINT);
	sigaddset(&inv.sigs, SIGTERM);
	sigaddset(&inv.sigs, SIGHUP);
	sigaddset(&inv.sigs, SIGQUIT);	/* as SIGTERM: results so far written, not a core */
	pthread_sigmask(SIG_BLOCK, &inv.sigs, NULL);

	if (mmt_cli_parse(argc, argv, &inv.cli, err, sizeof(err)))
		return fail(MMT_EXIT_USAGE, err);
	assume_forbidden = inv.cli.assume_forbidden;
	code = answer_without_running(&inv.cli);
	if (code >= 0)
		return code;
	code = check_input(&inv, err, sizeof(err));
	if (code)
		return fail(code, err);
	if (inv.cli.dry_run)
		return dry_run(&inv);
	code = prepare(&inv, argc, argv, err, sizeof(err));
	if (code) {
		mmt_results_abandon(&inv.out);
		return fail(code, err);
	}
	code = run_all(&inv);
	if (code)
		return code;
	code = finish(&inv);
	/* Scenarios restore what they change in cleanup; this catches a run
	 * that never got there (a hung worker). */
	mmt_sysctl_restore_all();
	if (inv.tot.hung)
		_exit(code); /* hung workers still spin: do not wait for them */
	return code;
}

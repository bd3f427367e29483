/* SPDX-License-Identifier: MIT */
/* The rulers' common part (ruler.h). */
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "clock.h"
#include "exit-codes.h"
#include "parse.h"
#include "record.h"
#include "probe.h"
#include "ruler.h"
#include "record.h"
#include "timing.h"

struct ruler_flag ruler_time_up, ruler_done;
static struct ruler_flag go;

uint64_t ruler_start_together(void)
{
	__atomic_add_fetch(&go.v, 1, __ATOMIC_SEQ_CST);
	while (READ_ONCE(go.v) < 2)
		;
	return mmt_now_ns();
}

struct start {
	void (*fn)(void *, int);
	void *arg;
	int role;
};

static void *thread_main(void *p)
{
	struct start *st = p;

	st->fn(st->arg, st->role);
	return NULL;
}

/* Runs fn(arg, 0) on cpus[0] and fn(arg, 1) on cpus[1] for duration_ns,
 * then sets ruler_time_up and joins them.  -1 with a line on stderr when a
 * CPU could not be pinned or a thread started. */
static int run(const char *prog, const int cpus[2], void (*fn)(void *arg, int role), void *arg,
	       uint64_t duration_ns)
{
	struct start st[2];
	pthread_t th[2];

	for (int r = 0; r < 2; r++) {
		pthread_attr_t attr;
		int e;

		st[r] = (struct start){ fn, arg, r };
		pthread_attr_init(&attr);
		e = mmt_pin_attr(&attr, cpus[r]);
		if (!e)
			e = pthread_create(&th[r], &attr, thread_main, &st[r]);
		pthread_attr_destroy(&attr);
		if (e) {
			fprintf(stderr, "%s: CPU %d: %s\n", prog, cpus[r], strerror(e));
			return -1;
		}
	}
	/* Asleep, not spinning: the workers may have every CPU there is. */
	struct timespec until = { .tv_sec = (time_t)(duration_ns / 1000000000ull),
				  .tv_nsec = (long)(duration_ns % 1000000000ull) };

	while (clock_nanosleep(CLOCK_MONOTONIC, 0, &until, &until) == EINTR)
		;
	__atomic_store_n(&ruler_time_up.v, 1, __ATOMIC_RELEASE);
	pthread_join(th[0], NULL);
	pthread_join(th[1], NULL);
	return 0;
}

/* "A,B" in the order given.  -1 with the reason in err. */
static int parse_cpus(const char *s, int cpus[2], char *err, size_t len)
{
	char e[MMT_ERRLEN] = "";
	int n = 0;

	*err = '\0';
	if (mmt_parse_cpulist(s, cpus, 2, &n, e, sizeof(e)) || n != 2) {
		snprintf(err, len, "%s", n != 2 && !*e ? "two CPUs, A,B" : e);
		return -1;
	}
	/* parse_cpulist sorts: keep the order given */
	if (sscanf(s, "%d,%d", &cpus[0], &cpus[1]) != 2) {
		snprintf(err, len, "'%s' is not A,B", s);
		return -1;
	}
	return 0;
}

/* The probes around the run, as printed: {"before", "after", "stable"},
 * each side {cpus, round_trip_ns, one_way_ns, chunks} or null. */
struct probe_side {
	uint64_t cpus[2];
	unsigned nr_cpus;
	double round_trip_ns, one_way_ns;
	int chunks;
};
struct probe_doc {
	const struct probe_side *before, *after;	/* NULL: the probe failed */
	bool stable;
	struct probe_side sides[2];
};

static const struct mmt_field side_fields[] = {
	MMT_FIELD_COUNTS(struct probe_side, cpus, nr_cpus),
	MMT_FIELD(struct probe_side, round_trip_ns, MMT_F_REAL),
	MMT_FIELD(struct probe_side, one_way_ns, MMT_F_REAL),
	MMT_FIELD(struct probe_side, chunks, MMT_F_INT),
};
static const struct mmt_shape side_shape = MMT_SHAPE(struct probe_side, side_fields);
static const struct mmt_field probe_fields[] = {
	MMT_FIELD_OBJECT(struct probe_doc, before, MMT_F_OBJECT_PTR, side_shape),
	MMT_FIELD_OBJECT(struct probe_doc, after, MMT_F_OBJECT_PTR, side_shape),
	MMT_FIELD(struct probe_doc, stable, MMT_F_BOOL),
};
static const struct mmt_shape probe_shape = MMT_SHAPE(struct probe_doc, probe_fields);

/* What the ruler prints before its own figures, and the probe after. */
struct head {
	const char *ruler, *variant;
	uint64_t cpus[2];
	unsigned nr_cpus;
};
static const struct mmt_field head_fields[] = {
	MMT_FIELD(struct head, ruler, MMT_F_TEXT),
	MMT_FIELD(struct head, variant, MMT_F_TEXT),
	MMT_FIELD_COUNTS(struct head, cpus, nr_cpus),
};
static const struct mmt_shape head_shape = MMT_SHAPE(struct head, head_fields);
struct tail {
	const struct probe_doc *probe;
};
static const struct mmt_field tail_fields[] = {
	MMT_FIELD_OBJECT(struct tail, probe, MMT_F_OBJECT_PTR, probe_shape),
};
static const struct mmt_shape tail_shape = MMT_SHAPE(struct tail, tail_fields);

/* The probe between the two CPUs into *side; NULL when it failed. */
static const struct probe_side *probe(int a, int b, struct probe_side *side)
{
	struct mmt_probe_pair p;
	struct mmt_probe_status st;

	if (mmt_probe_pair(a, b, &p, NULL, NULL, &st) != MMT_PROBE_OK)
		return NULL;
	*side = (struct probe_side){ { (uint64_t)a, (uint64_t)b }, 2, p.round_trip_ns, p.one_way_ns, p.chunks };
	return side;
}

/* Stable: the two within MMT_PROBE_STABLE_RATIO. */
static void probe_stable(struct probe_doc *d)
{
	double before = d->before ? d->before->one_way_ns : NAN, after = d->after ? d->after->one_way_ns : NAN;
	double drift = fmax(after / before, before / after);

	d->stable = !isnan(drift) && drift <= MMT_PROBE_STABLE_RATIO;
}

static void usage(const struct ruler *r, FILE *f)
{
	const int w = r->help_column;
	char name[64];

	fprintf(f, "%s  %-*s %s (default %s):", r->synopsis, w - 1, "--variant V", r->variant_help,
		r->variants[r->default_variant].name);
	for (int v = 0, first = 1; v < r->nr_variants; v++)
		if (r->variants[v].has_ruler) {
			fprintf(f, "%s %s", first ? "" : ",", r->variants[v].name);
			first = 0;
		}
	fprintf(f, "\n  %-*s %s on A, %s on B (default 0,1)\n", w - 1, "--cpus A,B", r->roles[0], r->roles[1]);
	fprintf(f, "  %-*s 500ms, 1s, bare seconds (default 1s)\n", w - 1, "--duration D");
	for (int i = 0; i < r->nr_opts; i++) {
		const struct ruler_opt *o = &r->opts[i];

		snprintf(name, sizeof(name), "--%s %s", o->name, o->arg ? o->arg : "N");
		if (o->names) {
			fprintf(f, "  %-*s %s:", w - 1, name, o->text);
			for (int k = 0; o->names[k]; k++)
				fprintf(f, "%s %s", k ? "," : "", o->names[k]);
			fprintf(f, " (default %s)\n", o->names[o->def]);
		} else if (o->decimal)
			fprintf(f, "  %-*s %s, decimal (default %llu)\n", w - 1, name, o->text,
				(unsigned long long)o->def);
		else
			fprintf(f, "  %-*s %s, %llu-%llu (default %llu)\n", w - 1, name, o->text,
				(unsigned long long)o->min, (unsigned long long)o->max, (unsigned long long)o->def);
	}
	fprintf(f, "  %-*s the variants with a ruler built here, one a line\n%s", w - 1, "--list", r->epilogue);
}

static bool runnable(const struct ruler_variant *v)
{
	return v->has_ruler && MMT_FAMILY_BUILT(v->family) && v->family != MMT_FAMILY_INJECTED;
}

static int bad_input(const struct ruler *r, const char *what)
{
	fprintf(stderr, "%s: %s\n", r->prog, what);
	return MMT_EXIT_USAGE;
}

/* --name's choice by name into *out (its index).  -1 with the reason in err. */
static int parse_choice(const struct ruler_opt *o, const char *s, uint64_t *out, char *err, size_t len)
{
	size_t off;

	for (uint64_t k = 0; o->names[k]; k++)
		if (!strcmp(s, o->names[k])) {
			*out = k;
			return 0;
		}
	off = (size_t)snprintf(err, len, "--%s: '%s' is not one of", o->name, s);
	for (int k = 0; o->names[k] && off < len; k++)
		off += (size_t)snprintf(err + off, len - off, "%s %s", k ? "," : "", o->names[k]);
	return -1;
}

/* --name's value into *out.  -1 with the reason in err. */
static int parse_opt(const struct ruler_opt *o, const char *s, uint64_t *out, char *err, size_t len)
{
	char e[MMT_ERRLEN] = "";

	if (o->names)
		return parse_choice(o, s, out, err, len);

	if ((o->decimal ? mmt_parse_u64_decimal(s, out, e, sizeof(e)) : mmt_parse_u64(s, out, e, sizeof(e))) ||
	    *out < o->min || *out > o->max) {
		if (!*e)
			snprintf(e, sizeof(e), "%llu to %llu", (unsigned long long)o->min, (unsigned long long)o->max);
		snprintf(err, len, "--%s: %s", o->name, e);
		return -1;
	}
	if (o->power_of_two && (*out & (*out - 1))) {
		snprintf(err, len, "--%s %llu is not a power of two", o->name, (unsigned long long)*out);
		return -1;
	}
	return 0;
}

/* A variant with no ruler here: skipped with the reason (77); else -1. */
static int skip_unrunnable(const struct ruler *r, const struct ruler_variant *v)
{
	if (runnable(v))
		return -1;
	fprintf(stderr, "%s: %s: %s\n", r->prog, v->name,
		v->family == MMT_FAMILY_INJECTED ? "an injected fault has no ruler"
		: !v->has_ruler			 ? r->no_ruler
						 : mmt_family_not_built(v->family));
	return MMT_EXIT_SKIPPED;
}

enum { OPT_VARIANT = 'v', OPT_CPUS = 'c', OPT_DURATION = 'd', OPT_LIST = 'l', OPT_HELP = 'h', OPT_OWN = 256 };

/* Parses the command line into *a.  -1: run it.  Else the exit code for
 * main to return, its output printed: --help or --list (0), bad input (2,
 * one line on stderr), a variant without a ruler here (77, one line). */
static int parse(const struct ruler *r, int argc, char **argv, struct ruler_args *a)
{
	struct option longopts[5 + RULER_MAX_OPTS + 1] = {
		{ "variant", required_argument, NULL, OPT_VARIANT },
		{ "cpus", required_argument, NULL, OPT_CPUS },
		{ "duration", required_argument, NULL, OPT_DURATION },
		{ "list", no_argument, NULL, OPT_LIST },
		{ "help", no_argument, NULL, OPT_HELP },
	};
	char err[MMT_ERRLEN], msg[MMT_ERRLEN + 64];
	int opt;

	if (r->nr_opts > RULER_MAX_OPTS) {
		fprintf(stderr, "%s: %d options of its own, RULER_MAX_OPTS is %d\n", r->prog, r->nr_opts,
			RULER_MAX_OPTS);
		return MMT_EXIT_HARNESS;
	}
	*a = (struct ruler_args){ .variant = r->default_variant, .cpus = { 0, 1 }, .duration_ns = 1000000000ull };
	for (int i = 0; i < r->nr_opts; i++) {
		longopts[5 + i] = (struct option){ r->opts[i].name, required_argument, NULL, OPT_OWN + i };
		a->val[i] = r->opts[i].def;
	}
	opterr = 0;
	while ((opt = getopt_long(argc, argv, "h", longopts, NULL)) != -1) {
		switch (opt) {
		case OPT_VARIANT:
			a->variant = -1;
			for (int v = 0; v < r->nr_variants; v++)
				if (!strcmp(optarg, r->variants[v].name))
					a->variant = v;
			if (a->variant < 0) {
				snprintf(msg, sizeof(msg), "unknown variant '%s' (--help lists them)", optarg);
				return bad_input(r, msg);
			}
			break;
		case OPT_CPUS:
			if (parse_cpus(optarg, a->cpus, err, sizeof(err))) {
				snprintf(msg, sizeof(msg), "--cpus: %s", err);
				return bad_input(r, msg);
			}
			break;
		case OPT_DURATION:
			if (mmt_parse_duration(optarg, &a->duration_ns, err, sizeof(err))) {
				snprintf(msg, sizeof(msg), "--duration: %s", err);
				return bad_input(r, msg);
			}
			break;
		case OPT_LIST:
			for (int v = 0; v < r->nr_variants; v++)
				if (runnable(&r->variants[v]))
					puts(r->variants[v].name);
			return MMT_EXIT_OK;
		case OPT_HELP:
			usage(r, stdout);
			return MMT_EXIT_OK;
		default:
			if (opt >= OPT_OWN && opt < OPT_OWN + r->nr_opts) {
				if (parse_opt(&r->opts[opt - OPT_OWN], optarg, &a->val[opt - OPT_OWN], msg, sizeof(msg)))
					return bad_input(r, msg);
				break;
			}
			snprintf(msg, sizeof(msg), "unknown option '%s' (--help lists them)", argv[optind - 1]);
			return bad_input(r, msg);
		}
	}
	if (optind < argc) {
		snprintf(msg, sizeof(msg), "unexpected argument '%s'", argv[optind]);
		return bad_input(r, msg);
	}
	return skip_unrunnable(r, &r->variants[a->variant]);
}

/* The probe, the run, the probe again, into *d.  -1 when a CPU could not
 * be pinned or a thread started (a line said so). */
static int measure(const struct ruler *r, const struct ruler_args *a, void *x, struct probe_doc *d)
{
	d->before = probe(a->cpus[0], a->cpus[1], &d->sides[0]);
	if (run(r->prog, a->cpus, r->variants[a->variant].loop, x, a->duration_ns))
		return -1;
	d->after = probe(a->cpus[0], a->cpus[1], &d->sides[1]);
	probe_stable(d);
	return 0;
}

/* Prints the JSON object.  Returns the exit code. */
static int report(const struct ruler *r, const struct ruler_args *a, const void *own, const struct probe_doc *d,
		  bool mismatched)
{
	const struct ruler_variant *v = &r->variants[a->variant];
	const struct head head = { r->prog, v->name, { (uint64_t)a->cpus[0], (uint64_t)a->cpus[1] }, 2 };
	const struct tail tail = { d };
	const struct mmt_shape *const shapes[] = { &head_shape, r->result_shape, &tail_shape };
	const void *const objs[] = { &head, own, &tail };
	json_t *out = mmt_shapes_json(3, shapes, objs);

	json_dumpf(out, stdout, JSON_COMPACT);
	putchar('\n');
	json_decref(out);
	/* A mismatch where the variant forbids it is a finding, as in the scenario. */
	return mismatched && (v->forbidden_on & mmt_this_arch()) ? MMT_EXIT_WITNESSED : MMT_EXIT_OK;
}

int ruler_main(const struct ruler *r, int argc, char **argv)
{
	struct ruler_args a;
	bool mismatched = false;
	struct probe_doc probe_doc;
	const void *own;
	int rc = parse(r, argc, argv, &a);
	void *x;

	if (rc >= 0)
		return rc;
	x = r->prepare(&a);
	if (!x) {
		fprintf(stderr, "%s: out of memory\n", r->prog);
		return MMT_EXIT_HARNESS;
	}
	if (measure(r, &a, x, &probe_doc))
		return MMT_EXIT_HARNESS;
	own = r->result(x, &a, &mismatched);
	return report(r, &a, own, &probe_doc, mismatched);
}

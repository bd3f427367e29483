/* SPDX-License-Identifier: MIT */
/*
 * What the rulers (bench/msgpass-bare.c, bench/ring-bare.c,
 * bench/seqcount-bare.c, bench/litmus-bare.c) share: the command line (--variant, --cpus,
 * --duration, --list, --help and the ruler's own numbers, one row each),
 * the variants' rows and per-variant loops from the scenario's list macro,
 * two threads pinned to the CPUs given and let go together, a time-up flag
 * set after the duration, the placement probe before and after, and the
 * JSON object's frame and exit code.  A ruler keeps its protocol's loops,
 * its own options and its own keys.  None of it is on a measured loop but
 * the flags, each alone on its line.
 */
#ifndef MMT_RULER_H
#define MMT_RULER_H

#include <jansson.h>
#include <stdbool.h>
#include <stdint.h>

#include "compiler.h"
#include "scenario.h"

/* time_up: set by the main thread after the duration, read by the loops;
 * done: set by the thread that ends first, for the one waiting on it. */
struct ruler_flag {
	int v;
} __mmt_aligned;
extern struct ruler_flag ruler_time_up, ruler_done;

/* Waits until both threads are here; returns the time it let go. */
uint64_t ruler_start_together(void);

/* One variant of the scenario, from its list macro (RULER_ROW). */
struct ruler_variant {
	const char *name;
	unsigned forbidden_on;	/* MMT_ARCH_* where a mismatch is a finding */
	enum mmt_family family;
	bool has_ruler;		/* its protocol is in the scenario's header */
	void (*loop)(void *x, int role);	/* role 0 on --cpus A, 1 on B */
};

/*
 * The per-variant loops and the variants' rows, generated from the
 * scenario's list macro (whose rows begin e, name, forbidden_on, family):
 *
 *	#define RULER_HAS(v)  the variants with a ruler (a constant expression)
 *	#define RULER_ROLE0   the loop on --cpus A: void f(const int v, void *x)
 *	#define RULER_ROLE1   the loop on --cpus B
 *	RING_VARIANTS(RULER_LOOP)
 *	static const struct ruler_variant variants[] = { RING_VARIANTS(RULER_ROW) };
 *
 * One copy of the loops per variant, as in the scenario: the primitives
 * are compile-time constants.  A variant without a ruler gets an empty one
 * (never run: ruler_main refuses it).
 */
#define RULER_LOOP(e, ...)                                                                         \
	static void loop_##e(void *x, int role)                                                    \
	{                                                                                          \
		if (!(RULER_HAS(V_##e)))                                                           \
			return;                                                                    \
		if (role == 0)                                                                     \
			RULER_ROLE0(V_##e, x);                                                     \
		else                                                                               \
			RULER_ROLE1(V_##e, x);                                                     \
	}
#define RULER_ROW(e, n, forbidden, fam, ...)                                                       \
	[V_##e] = { .name = n,                                                                     \
		    .forbidden_on = forbidden,                                                     \
		    .family = MMT_FAMILY_##fam,                                                    \
		    .has_ruler = (RULER_HAS(V_##e)),                                               \
		    .loop = loop_##e },

/* A number of the ruler's own: --name N, min to max, or any decimal
 * (.decimal, a seed).  --help prints "text, min-max (default def)" or
 * "text, decimal (default def)". */
struct ruler_opt {
	const char *name;
	const char *arg;	/* --help's name for the value; NULL: N */
	const char *text;
	uint64_t def, min, max;
	bool decimal;
	bool power_of_two;
	const char *const *names;	/* a choice by name: value v is names[v], min 0; NULL-ended */
};

#define RULER_MAX_OPTS 8

struct ruler_args;

/* A ruler: its name, its --help's words, its variants, its own options
 * and its life cycle (ruler_main). */
struct ruler {
	const char *prog;		/* messages' prefix and the JSON's "ruler" */
	const char *synopsis;		/* --help's usage lines and what it measures */
	const char *variant_help;	/* --variant's help, before the default and the list */
	const char *roles[2];		/* who runs on --cpus A and on B */
	const char *epilogue;		/* --help's last lines: the JSON and the exit codes */
	int help_column;		/* where an option's help starts, from the "--" */
	const char *no_ruler;		/* why a variant without a ruler (not injected) has none */
	const struct ruler_variant *variants;	/* MMT_TABLE(variants, ...) */
	int nr_variants, default_variant;
	const struct ruler_opt *opts;	/* in --help's order, after --duration */
	int nr_opts;
	/* The shared state the loops get, for these arguments; NULL: out of
	 * memory.  Before the first probe. */
	void *(*prepare)(const struct ruler_args *a);
	/* After the run and the second probe: the ruler's own figures, a
	 * struct of result_shape (its keys in the order printed; values.h),
	 * and *mismatched when a loop saw a payload, item or snapshot that
	 * was not the one due. */
	const void *(*result)(void *x, const struct ruler_args *a, bool *mismatched);
	const struct mmt_shape *result_shape;
};

/* What the command line asked for; val[i] is opts[i]'s value. */
struct ruler_args {
	int variant, cpus[2];
	uint64_t duration_ns;
	uint64_t val[RULER_MAX_OPTS];
};

/*
 * A ruler's main: parses the command line (--help and --list answered,
 * bad input refused with one line), prepares, probes the two CPUs, runs
 * the variant's loop on them for the duration (ruler_time_up set after
 * it), probes again, and prints one JSON object: {"ruler", "variant",
 * "cpus", the ruler's own keys, "probe": {"before", "after", "stable"}}.
 * Returns the exit code: 0; 1 a mismatch on a variant that forbids it
 * here; 2 bad input; 3 out of memory, a CPU not pinned or a thread not
 * started; 77 a variant without a ruler here.
 */
int ruler_main(const struct ruler *r, int argc, char **argv);

/* The ruler's main(), as kselftest's TEST_HARNESS_MAIN. */
#define RULER_MAIN(ruler)                                                                          \
	int main(int argc, char **argv)                                                            \
	{                                                                                          \
		return ruler_main(&(ruler), argc, argv);                                           \
	}

#endif

/* SPDX-License-Identifier: MIT */
/*
 * A run's conditions (conditions.h), from /proc/loadavg and the workers'
 * own CPU time.
 */
#include "conditions.h"

#include <fcntl.h>
#include <stdio.h>
#include <unistd.h>

int mmt_loadavg_parse(const char *text, double *load1, unsigned *running)
{
	double l5, l15;
	unsigned total;

	return sscanf(text, "%lf %lf %lf %u/%u", load1, &l5, &l15, running, &total) == 5 ? 0 : -1;
}

/* One read of /proc/loadavg: no stdio buffer, the supervisor calls it
 * every 20 ms. */
static int read_loadavg(double *load1, unsigned *running)
{
	char buf[128];
	int fd = open("/proc/loadavg", O_RDONLY | O_CLOEXEC);
	ssize_t n;

	if (fd < 0)
		return -1;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return -1;
	buf[n] = '\0';
	return mmt_loadavg_parse(buf, load1, running);
}

void mmt_conditions_begin(struct mmt_conditions *c, unsigned workers)
{
	unsigned running;

	c->own = workers + 1;	/* the supervisor is runnable while it reads */
	c->samples = c->others_sum = 0;
	c->others_max = 0;
	if (read_loadavg(&c->load_before, &running))
		c->load_before = -1;
}

void mmt_conditions_sample(struct mmt_conditions *c)
{
	double load;
	unsigned running, others;

	if (read_loadavg(&load, &running))
		return;
	others = running > c->own ? running - c->own : 0;
	c->samples++;
	c->others_sum += others;
	if (others > c->others_max)
		c->others_max = others;
}

static const struct mmt_field conditions_fields[] = {
	MMT_FIELD(struct mmt_conditions_report, on_cpu, MMT_F_REAL),
	MMT_FIELD(struct mmt_conditions_report, cpu_ns_per_op, MMT_F_REAL),
	MMT_FIELD(struct mmt_conditions_report, others_running, MMT_F_REAL),
	MMT_FIELD(struct mmt_conditions_report, others_running_max, MMT_F_INT),
	MMT_FIELD(struct mmt_conditions_report, samples, MMT_F_COUNT),
	MMT_FIELD(struct mmt_conditions_report, loadavg_before, MMT_F_REAL),
	MMT_FIELD(struct mmt_conditions_report, loadavg_after, MMT_F_REAL),
};
const struct mmt_shape mmt_conditions_shape = MMT_SHAPE(struct mmt_conditions_report, conditions_fields);

static double or_nan(double v, bool known)
{
	return known ? v : NAN;
}

void mmt_conditions_report(const struct mmt_conditions *c, const uint64_t *cpu_ns, const uint64_t *t_begin,
			   const uint64_t *t_end, unsigned n, uint64_t ops, struct mmt_conditions_report *out)
{
	uint64_t cpu = 0, wall = 0;
	double load_after;
	unsigned running;
	bool after_known = !read_loadavg(&load_after, &running);

	for (unsigned i = 0; i < n; i++) {
		cpu += cpu_ns[i];
		wall += t_end[i] > t_begin[i] ? t_end[i] - t_begin[i] : 0;
	}
	*out = (struct mmt_conditions_report){
		.on_cpu = or_nan(wall ? (double)cpu / (double)wall : 0, wall > 0),
		.cpu_ns_per_op = or_nan(ops ? (double)cpu / (double)ops : 0, ops > 0),
		.others_running = or_nan(c->samples ? (double)c->others_sum / (double)c->samples : 0, c->samples > 0),
		.others_running_max = (int)c->others_max, .samples = c->samples,
		.loadavg_before = or_nan(c->load_before, c->load_before >= 0),
		.loadavg_after = or_nan(load_after, after_known),
	};
}

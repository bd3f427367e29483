/* SPDX-License-Identifier: MIT */
#include "histogram.h"
#include "values.h"

#include <math.h>

static double bucket_mid(unsigned i)
{
	unsigned shift;
	double lo;

	if (i < MMT_HIST_SUB)
		return i;
	shift = (i >> MMT_HIST_SUB_BITS) - 1;
	lo = ldexp((double)(MMT_HIST_SUB + (i & (MMT_HIST_SUB - 1))), (int)shift);
	return lo + ldexp(1.0, (int)shift) / 2 - (shift ? 0 : 0.5);
}

double mmt_hist_percentile(const struct mmt_hist *h, double p)
{
	uint64_t rank, seen = 0;

	if (!h->count)
		return NAN;
	rank = (uint64_t)ceil(p * (double)h->count);
	if (rank < 1)
		rank = 1;
	for (unsigned i = 0; i < MMT_HIST_BUCKETS; i++) {
		seen += h->bucket[i];
		if (seen >= rank)
			return bucket_mid(i);
	}
	return NAN;
}

void mmt_hist_merge(struct mmt_hist *dst, const struct mmt_hist *src)
{
	for (unsigned i = 0; i < MMT_HIST_BUCKETS; i++)
		dst->bucket[i] += src->bucket[i];
	dst->count += src->count;
}

void mmt_hist_latency(const struct mmt_hist *h, double cycles_per_ns, struct mmt_latency *out)
{
	out->count = h->count;
	out->median = h->count ? mmt_hist_percentile(h, 0.5) / cycles_per_ns : 0;
	out->p99 = h->count ? mmt_hist_percentile(h, 0.99) / cycles_per_ns : 0;
	out->p999 = h->count ? mmt_hist_percentile(h, 0.999) / cycles_per_ns : 0;
}

/* SPDX-License-Identifier: MIT */
/*
 * Log-linear histogram of u64 samples (latencies in cycles): values below
 * 32 are exact, above that each power of two is split into 32 buckets, so
 * any percentile is within about 3% of the true sample.  Fixed size, no
 * allocation, one increment per sample: cheap enough for a hot loop.
 */
#ifndef MMT_HISTOGRAM_H
#define MMT_HISTOGRAM_H

#include <stdint.h>

#define MMT_HIST_SUB_BITS 5
#define MMT_HIST_SUB (1u << MMT_HIST_SUB_BITS)
#define MMT_HIST_BUCKETS (64u * MMT_HIST_SUB)

struct mmt_hist {
	uint64_t count;
	uint64_t bucket[MMT_HIST_BUCKETS];
};

static inline unsigned mmt_hist_index(uint64_t v)
{
	unsigned msb, shift;

	if (v < MMT_HIST_SUB)
		return (unsigned)v;
	msb = 63u - (unsigned)__builtin_clzll(v);
	shift = msb - MMT_HIST_SUB_BITS;
	return ((shift + 1) << MMT_HIST_SUB_BITS) + (unsigned)((v >> shift) & (MMT_HIST_SUB - 1));
}

static inline void mmt_hist_add(struct mmt_hist *h, uint64_t v)
{
	h->bucket[mmt_hist_index(v)]++;
	h->count++;
}

/* Middle of the bucket holding the p-th fraction (0 < p <= 1) of samples. */
double mmt_hist_percentile(const struct mmt_hist *h, double p);

struct mmt_latency;
/* Its median, p99, p999 and count, in ns (values.h's latency). */
void mmt_hist_latency(const struct mmt_hist *h, double cycles_per_ns, struct mmt_latency *out);
void mmt_hist_merge(struct mmt_hist *dst, const struct mmt_hist *src);

#endif

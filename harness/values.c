/* SPDX-License-Identifier: MIT */
/* The shapes every part of the record shares (values.h). */
#include "values.h"

static const struct mmt_field latency_fields[] = {
	MMT_FIELD(struct mmt_latency, median, MMT_F_REAL),
	MMT_FIELD(struct mmt_latency, p99, MMT_F_REAL),
	MMT_FIELD(struct mmt_latency, p999, MMT_F_REAL),
	MMT_FIELD_AS("samples", struct mmt_latency, count, MMT_F_COUNT),
};
const struct mmt_shape mmt_latency_shape = MMT_SHAPE(struct mmt_latency, latency_fields);

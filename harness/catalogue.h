/* SPDX-License-Identifier: MIT */
/* The scenarios as data (--list --format json, the results' "catalogue"):
 * what the descriptors do not say in one field, worked out here; the
 * JSON is rendered by document-json.c straight from the descriptors. */
#ifndef MMT_CATALOGUE_H
#define MMT_CATALOGUE_H

struct mmt_variant;

/* What a run of v may see here: "injected" (a deliberately broken
 * variant), "forbidden" (its outcome is forbidden on this architecture),
 * "unknown" (no expectation declared) or "allowed". */
const char *mmt_variant_expectation(const struct mmt_variant *v);

/* The architecture bits (MMT_ARCH_*), in the order the catalogue names
 * them. */
struct mmt_arch_name {
	unsigned bit;
	const char *name;
};
extern const struct mmt_arch_name mmt_arch_names[];
extern const unsigned mmt_nr_arch_names;

/* The name of one architecture bit; "generic" for any other. */
const char *mmt_arch_name(unsigned bit);

#endif

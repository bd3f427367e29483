/* SPDX-License-Identifier: MIT */
/*
 * --list --format json: the scenarios as data, for the tests and scripts
 * that would otherwise read the human --list with awk.  Everything there
 * is from the scenario descriptors (struct mmt_scenario), nothing
 * restated; what is worked out from them is here.
 */
#include "catalogue.h"
#include "scenario.h"

const char *mmt_variant_expectation(const struct mmt_variant *v)
{
	if (v->injected)
		return "injected";
	if (v->forbidden_on & mmt_this_arch())
		return "forbidden";
	return v->no_expectation ? "unknown" : "allowed";
}

const struct mmt_arch_name mmt_arch_names[] = {
	{ MMT_ARCH_X86_64, "x86_64" }, { MMT_ARCH_AARCH64, "aarch64" }, { MMT_ARCH_GENERIC, "generic" },
};
const unsigned mmt_nr_arch_names = sizeof(mmt_arch_names) / sizeof(mmt_arch_names[0]);

const char *mmt_arch_name(unsigned bit)
{
	for (unsigned i = 0; i < mmt_nr_arch_names; i++)
		if (mmt_arch_names[i].bit == bit)
			return mmt_arch_names[i].name;
	return "generic";
}

// SPDX-License-Identifier: MIT
/*
 * Whether user TLB entries outlive a flush of other addresses (user-tlb.h):
 * the CPU flags the kernel itself goes by (/proc/cpuinfo: "pti" while
 * page-table isolation runs, whatever the meltdown file says of the CPU;
 * "pcid", and "invpcid_single", which native_flush_tlb_one_user() checks),
 * and Xen PV, where the hypervisor flushes and the flags say nothing.
 */
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "user-tlb.h"

#define MELTDOWN "/sys/devices/system/cpu/vulnerabilities/meltdown"

static bool xen_pv(void)
{
	char line[160] = "";
	FILE *f = fopen(MELTDOWN, "r");

	if (!f)
		return false;
	if (!fgets(line, sizeof(line), f))
		line[0] = '\0';
	fclose(f);
	return strstr(line, "XEN PV") != NULL;
}

/* Whether the first "flags" line of /proc/cpuinfo names flag. */
static bool cpu_flag(const char *flag)
{
	char line[4096];
	const size_t len = strlen(flag);
	bool found = false;
	FILE *f = fopen("/proc/cpuinfo", "r");

	if (!f)
		return false;
	while (fgets(line, sizeof(line), f)) {
		const char *s;

		if (strncmp(line, "flags", 5))
			continue;
		for (s = strstr(line, flag); s && !found; s = strstr(s + 1, flag))
			found = (s[-1] == ' ' || s[-1] == ':' || s[-1] == '\t') &&
				(s[len] == ' ' || s[len] == '\n' || s[len] == '\0');
		break;
	}
	fclose(f);
	return found;
}

const char *mmt_user_tlb_blind(void)
{
#if defined(__x86_64__) || defined(__i386__)
	if (xen_pv())
		return "Xen PV: the hypervisor does the TLB flushes, and whether one address's leaves the others is not known here";
	if (!cpu_flag("pti"))
		return NULL;
	if (!cpu_flag("pcid"))
		return "page-table isolation (PTI) without PCID: every return to user space flushes the user TLB";
	if (!cpu_flag("invpcid_single"))
		return "page-table isolation (PTI) without INVPCID: a flush of one user address flushes the whole user address space";
#endif
	return NULL;
}

const char *mmt_user_tlb_words(void)
{
	const char *why = mmt_user_tlb_blind();

	return why ? why : "kept";
}

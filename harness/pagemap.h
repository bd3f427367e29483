/* SPDX-License-Identifier: MIT */
/*
 * One page's entry of /proc/PID/pagemap (Documentation/admin-guide/mm/
 * pagemap.rst): what the hunters read to see a page present, swapped,
 * soft-dirty or moved to another frame, without touching the page (a
 * read through the mapping would fault it in and change what is looked
 * at).  The frame number is 0 unless the reader has CAP_SYS_ADMIN.
 */
#ifndef MMT_PAGEMAP_H
#define MMT_PAGEMAP_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include <unistd.h>

#define MMT_PM_PRESENT (1ull << 63)
#define MMT_PM_SWAPPED (1ull << 62)
#define MMT_PM_SOFT_DIRTY (1ull << 55)
#define MMT_PM_PFN_MASK ((1ull << 55) - 1)

/* The entry of the page holding addr (fd: a pagemap file, psz: the page
 * size) into *e; 0, or -1 when it cannot be read (errno). */
static inline int mmt_pagemap_read(int fd, const void *addr, size_t psz, uint64_t *e)
{
	*e = 0;
	return pread(fd, e, sizeof(*e), (off_t)((uintptr_t)addr / psz * sizeof(*e))) == (ssize_t)sizeof(*e) ? 0 : -1;
}

/* The frame mapping addr; 0 when it is not present, hidden (not root) or
 * the entry cannot be read. */
static inline uint64_t mmt_pagemap_pfn(int fd, const void *addr, size_t psz)
{
	uint64_t e;

	if (fd < 0 || mmt_pagemap_read(fd, addr, psz, &e))
		return 0;
	return e & MMT_PM_PRESENT ? e & MMT_PM_PFN_MASK : 0;
}

#endif

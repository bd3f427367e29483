/* SPDX-License-Identifier: MIT */
#ifndef MMT_MIX_H
#define MMT_MIX_H

#include <stdint.h>

/* splitmix64's finaliser: turns a seed and a counter into well-spread bits,
 * so each run and each payload gets a pattern no other one shares. */
static inline uint64_t mmt_mix64(uint64_t x)
{
	x += 0x9e3779b97f4a7c15ull;
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
	x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
	return x ^ (x >> 31);
}

#endif

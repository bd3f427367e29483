/* SPDX-License-Identifier: MIT */
#include "parse.h"

#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

__attribute__((format(printf, 3, 4)))
static int fail(char *err, size_t errlen, const char *fmt, ...)
{
	va_list ap;

	if (err && errlen) {
		va_start(ap, fmt);
		vsnprintf(err, errlen, fmt, ap);
		va_end(ap);
	}
	return -1;
}

int mmt_parse_u64(const char *s, uint64_t *out, char *err, size_t errlen)
{
	const char *p = s;
	uint64_t v = 0, mult = 1;

	if (!s || !isdigit((unsigned char)*p))
		return fail(err, errlen, "'%s' is not a whole number", s ? s : "");
	for (; isdigit((unsigned char)*p); p++) {
		unsigned d = (unsigned)(*p - '0');

		if (v > (UINT64_MAX - d) / 10)
			return fail(err, errlen, "'%s' is too large", s);
		v = v * 10 + d;
	}
	switch (*p) {
	case '\0': break;
	case 'k': case 'K': mult = 1000ull; p++; break;
	case 'M': mult = 1000000ull; p++; break;
	case 'G': mult = 1000000000ull; p++; break;
	default:
		return fail(err, errlen, "'%s' is not a whole number (suffixes: k, M, G)", s);
	}
	if (*p)
		return fail(err, errlen, "'%s' is not a whole number (suffixes: k, M, G)", s);
	if (v > UINT64_MAX / mult)
		return fail(err, errlen, "'%s' is too large", s);
	*out = v * mult;
	return 0;
}

int mmt_parse_duration(const char *s, uint64_t *ns, char *err, size_t errlen)
{
	static const struct { const char *unit; double ns; } units[] = {
		{ "ns", 1 }, { "us", 1e3 }, { "ms", 1e6 }, { "s", 1e9 },
		{ "m", 60e9 }, { "", 1e9 },
	};
	char *end;
	double v;

	if (!s || !(isdigit((unsigned char)*s) || *s == '.'))
		return fail(err, errlen, "'%s' is not a duration (e.g. 500ms, 5s, 2m)", s ? s : "");
	errno = 0;
	v = strtod(s, &end);
	if (errno || end == s)
		return fail(err, errlen, "'%s' is not a duration (e.g. 500ms, 5s, 2m)", s);
	for (size_t i = 0; i < sizeof(units) / sizeof(units[0]); i++) {
		if (strcmp(end, units[i].unit))
			continue;
		v *= units[i].ns;
		if (v < 1)
			return fail(err, errlen, "duration '%s' must be at least 1ns", s);
		if (v > 1e18)
			return fail(err, errlen, "duration '%s' is too long", s);
		*ns = (uint64_t)v;
		return 0;
	}
	return fail(err, errlen, "'%s' has an unknown unit (ns, us, ms, s, m)", s);
}

static int cmp_int(const void *a, const void *b)
{
	int x = *(const int *)a, y = *(const int *)b;

	return (x > y) - (x < y);
}

static int parse_cpulist(const char *s, int *cpus, int max, int *n, int strict,
			 char *err, size_t errlen)
{
	const char *p = s;
	int count = 0;

	if (!s || !*s)
		return fail(err, errlen, "empty CPU list");
	while (*p) {
		char *end;
		long lo, hi;

		if (!isdigit((unsigned char)*p))
			return fail(err, errlen, "'%s' is not a CPU list (e.g. 0-3,8)", s);
		lo = strtol(p, &end, 10);
		hi = lo;
		p = end;
		if (*p == '-') {
			p++;
			if (!isdigit((unsigned char)*p))
				return fail(err, errlen, "'%s' is not a CPU list (e.g. 0-3,8)", s);
			hi = strtol(p, &end, 10);
			p = end;
		}
		if (hi < lo || hi > 65535)
			return fail(err, errlen, "'%s' has a bad CPU range", s);
		if (*p == ',' && p[1])
			p++;
		else if (*p == '\n' && !p[1])
			p++;
		else if (*p)
			return fail(err, errlen, "'%s' is not a CPU list (e.g. 0-3,8)", s);
		for (long c = lo; c <= hi; c++) {
			if (count >= max)
				return fail(err, errlen, "CPU list '%s' is too long", s);
			cpus[count++] = (int)c;
		}
	}
	qsort(cpus, (size_t)count, sizeof(*cpus), cmp_int);
	for (int i = 1; i < count; i++) {
		if (cpus[i] != cpus[i - 1])
			continue;
		if (strict) {
			if (err && errlen)
				snprintf(err, errlen, "CPU %d is listed twice in '%s'", cpus[i], s);
			return -1;
		}
		memmove(&cpus[i], &cpus[i + 1], (size_t)(count - i - 1) * sizeof(*cpus));
		count--;
		i--;
	}
	*n = count;
	return 0;
}

int mmt_parse_cpulist(const char *s, int *cpus, int max, int *n, char *err,
		      size_t errlen)
{
	return parse_cpulist(s, cpus, max, n, 1, err, errlen);
}

int mmt_parse_cpulist_loose(const char *s, int *cpus, int max, int *n)
{
	/* A memory-only NUMA node has an empty cpulist. */
	if (!s[0] || (s[0] == '\n' && !s[1])) {
		*n = 0;
		return 0;
	}
	return parse_cpulist(s, cpus, max, n, 0, NULL, 0);
}

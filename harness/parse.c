/* SPDX-License-Identifier: MIT */
#include "parse.h"

#include <ctype.h>
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

int mmt_parse_named_u64(const char *const *names, uint64_t min, const char *s, uint64_t *out,
			char *err, size_t errlen)
{
	char list[256];
	size_t used = 0;

	for (unsigned i = 0; names && names[i]; i++)
		if (!strcmp(s, names[i])) {
			*out = min + i;
			return 0;
		}
	if (!names || isdigit((unsigned char)*s))
		return mmt_parse_u64(s, out, err, errlen);
	list[0] = '\0';
	for (unsigned i = 0; names[i] && used < sizeof(list); i++)
		used += (size_t)snprintf(list + used, sizeof(list) - used, "%s%s", i ? ", " : "", names[i]);
	return fail(err, errlen, "'%s' is neither a number nor one of %s", s, list);
}

/*
 * Digits, an optional fraction, a unit; computed exactly in integers.
 * No strtod: it takes hex ("0x10s" was 16 s), "inf", "nan" and
 * exponents, none of which anyone means on a command line.
 */
int mmt_parse_duration(const char *s, uint64_t *ns, char *err, size_t errlen)
{
	static const struct { const char *unit; uint64_t ns; } units[] = {
		{ "ns", 1 }, { "us", 1000 }, { "ms", 1000000 }, { "s", 1000000000 },
		{ "m", 60000000000ull }, { "", 1000000000 },
	};
	const char *p = s;
	unsigned __int128 whole = 0, frac = 0, scale = 1, v;

	if (!s || !isdigit((unsigned char)*p))
		return fail(err, errlen, "'%s' is not a duration (e.g. 500ms, 5s, 2m)", s ? s : "");
	for (; isdigit((unsigned char)*p); p++) {
		whole = whole * 10 + (unsigned)(*p - '0');
		if (whole > (unsigned __int128)1e18)
			return fail(err, errlen, "duration '%s' is too long (at most 1e18 ns)", s);
	}
	if (*p == '.') {
		p++;
		if (!isdigit((unsigned char)*p))
			return fail(err, errlen, "'%s' is not a duration (e.g. 500ms, 1.5s)", s);
		for (; isdigit((unsigned char)*p); p++) {
			if (scale >= (unsigned __int128)1e18)
				return fail(err, errlen, "'%s' has more decimals than a nanosecond needs", s);
			frac = frac * 10 + (unsigned)(*p - '0');
			scale *= 10;
		}
	}
	for (size_t i = 0; i < sizeof(units) / sizeof(units[0]); i++) {
		if (strcmp(p, units[i].unit))
			continue;
		if ((frac * units[i].ns) % scale)
			return fail(err, errlen, "duration '%s' is not a whole number of nanoseconds", s);
		v = whole * units[i].ns + frac * units[i].ns / scale;
		if (v < 1)
			return fail(err, errlen, "duration '%s' must be at least 1ns", s);
		if (v > (unsigned __int128)1e18)
			return fail(err, errlen, "duration '%s' is too long (at most 1e18 ns)", s);
		*ns = (uint64_t)v;
		return 0;
	}
	return fail(err, errlen, "'%s' has an unknown unit (ns, us, ms, s, m; no hex, no exponent)", s);
}

int mmt_parse_u64_decimal(const char *s, uint64_t *out, char *err, size_t errlen)
{
	uint64_t v = 0;

	if (!s || !*s)
		return fail(err, errlen, "'' is not a decimal number");
	for (const char *p = s; *p; p++) {
		unsigned d = (unsigned)(*p - '0');

		if (*p < '0' || *p > '9')
			return fail(err, errlen, "'%s' is not a decimal number (0 to 18446744073709551615)", s);
		if (v > (UINT64_MAX - d) / 10)
			return fail(err, errlen, "'%s' is larger than 18446744073709551615", s);
		v = v * 10 + d;
	}
	*out = v;
	return 0;
}

int mmt_parse_list_items(const char *s, char *err, size_t errlen)
{
	size_t n = strlen(s);

	if (!n)
		return fail(err, errlen, "an empty list");
	if (s[0] == ',' || s[n - 1] == ',' || strstr(s, ",,"))
		return fail(err, errlen, "'%s' has an empty item", s);
	return 0;
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

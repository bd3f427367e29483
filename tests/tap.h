/* SPDX-License-Identifier: MIT */
/* Minimal TAP producer for the C unit tests (automake's tap-driver reads it). */
#ifndef MMT_TAP_H
#define MMT_TAP_H

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

static int tap_n, tap_failed;

static inline void tap_ok(int cond, const char *fmt, ...)
{
	va_list ap;

	tap_n++;
	if (!cond)
		tap_failed++;
	printf("%sok %d - ", cond ? "" : "not ", tap_n);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	putchar('\n');
	fflush(stdout);
}

#define tap_is_int(got, want, ...)                                             \
	do {                                                                   \
		long long _g = (got), _w = (want);                             \
		tap_ok(_g == _w, __VA_ARGS__);                                 \
		if (_g != _w)                                                  \
			printf("#   got %lld, want %lld\n", _g, _w);           \
	} while (0)

#define tap_is_str(got, want, ...)                                             \
	do {                                                                   \
		const char *_g = (got), *_w = (want);                          \
		int _eq = _g && _w && !strcmp(_g, _w);                         \
		tap_ok(_eq, __VA_ARGS__);                                      \
		if (!_eq)                                                      \
			printf("#   got '%s', want '%s'\n", _g ? _g : "(null)",   \
			       _w ? _w : "(null)");                            \
	} while (0)

static inline int tap_done(void)
{
	printf("1..%d\n", tap_n);
	return tap_failed ? 1 : 0;
}

#endif

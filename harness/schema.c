/* SPDX-License-Identifier: MIT */
/*
 * The results schema, interpreted.  results/schema.json is the one
 * description of the results format: the Python readers validate against it
 * with python3-jsonschema, and this file interprets the same text (embedded
 * at build time) for the harness and mmtorture-result, so the two cannot
 * drift.  Only the JSON Schema 2020-12 keywords the file uses are
 * understood; a schema with any other keyword is refused as a whole, so a
 * new keyword cannot be silently ignored here while Python enforces it.
 */
#include "schema.h"
#include "schema-text.h"

#include <regex.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

/* Annotations that constrain nothing. */
static const char *const ignored[] = { "$schema", "$id", "$defs", "title", "description" };
static const char *const understood[] = {
	"type", "const", "enum", "required", "properties", "additionalProperties", "items",
	"minItems", "maxItems", "minimum", "pattern", "oneOf", "if", "then", "$ref",
};

struct ctx {
	const json_t *root;
	char path[512];
	char *err;
	size_t len;
};

static int __attribute__((format(printf, 2, 3))) fail(struct ctx *c, const char *fmt, ...)
{
	char msg[300];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	snprintf(c->err, c->len, "%s: %s", c->path[0] ? c->path : "document", msg);
	return -1;
}

static size_t push_key(struct ctx *c, const char *key)
{
	size_t n = strlen(c->path);

	snprintf(c->path + n, sizeof(c->path) - n, "%s%s", n ? "." : "", key);
	return n;
}

static size_t push_index(struct ctx *c, size_t i)
{
	size_t n = strlen(c->path);

	snprintf(c->path + n, sizeof(c->path) - n, "[%zu]", i);
	return n;
}

static bool type_is(const json_t *v, const char *t)
{
	if (!strcmp(t, "object")) return json_is_object(v);
	if (!strcmp(t, "array")) return json_is_array(v);
	if (!strcmp(t, "string")) return json_is_string(v);
	/* jansson's integer: written without fraction or exponent; 1.0 is not one. */
	if (!strcmp(t, "integer")) return json_is_integer(v);
	if (!strcmp(t, "number")) return json_is_number(v);
	if (!strcmp(t, "boolean")) return json_is_boolean(v);
	if (!strcmp(t, "null")) return json_is_null(v);
	return false;
}

static const char *kind_name(const json_t *v)
{
	switch (json_typeof(v)) {
	case JSON_OBJECT: return "an object";
	case JSON_ARRAY: return "an array";
	case JSON_STRING: return "a string";
	case JSON_INTEGER: return "an integer";
	case JSON_REAL: return "a real number";
	case JSON_TRUE: case JSON_FALSE: return "a boolean";
	default: return "null";
	}
}

static int check(struct ctx *c, const json_t *s, const json_t *v);

static int check_type(struct ctx *c, const json_t *t, const json_t *v)
{
	size_t i;
	const json_t *one;

	if (json_is_string(t))
		return type_is(v, json_string_value(t)) ? 0 : fail(c, "has the wrong type (%s)", kind_name(v));
	json_array_foreach(t, i, one)
		if (type_is(v, json_string_value(one)))
			return 0;
	return fail(c, "has the wrong type (%s)", kind_name(v));
}

static int check_pattern(struct ctx *c, const char *re, const json_t *v)
{
	regex_t rx;
	int rc;

	if (!json_is_string(v))
		return 0;
	if (regcomp(&rx, re, REG_EXTENDED | REG_NOSUB))
		return fail(c, "schema pattern %s does not compile", re);
	rc = regexec(&rx, json_string_value(v), 0, NULL, 0);
	regfree(&rx);
	return rc ? fail(c, "does not match %s", re) : 0;
}

static int check_object(struct ctx *c, const json_t *s, const json_t *v)
{
	const json_t *req = json_object_get(s, "required"), *props = json_object_get(s, "properties");
	const json_t *extra = json_object_get(s, "additionalProperties"), *sub, *x;
	const char *key;
	size_t i, mark;

	if (!json_is_object(v))
		return 0;
	json_array_foreach(req, i, x) {
		if (!json_object_get(v, json_string_value(x))) {
			mark = push_key(c, json_string_value(x));
			fail(c, "is missing");
			c->path[mark] = '\0';
			return -1;
		}
	}
	json_object_foreach((json_t *)props, key, sub) {
		if (!(x = json_object_get(v, key)))
			continue;
		mark = push_key(c, key);
		if (check(c, sub, x))
			return -1;
		c->path[mark] = '\0';
	}
	if (!extra)
		return 0;
	json_object_foreach((json_t *)v, key, x) {
		if (json_object_get(props, key))
			continue;
		mark = push_key(c, key);
		if (check(c, extra, x))
			return -1;
		c->path[mark] = '\0';
	}
	return 0;
}

static int check_array(struct ctx *c, const json_t *s, const json_t *v)
{
	const json_t *items = json_object_get(s, "items"), *x;
	const json_t *lo = json_object_get(s, "minItems"), *hi = json_object_get(s, "maxItems");
	size_t i, mark;

	if (!json_is_array(v))
		return 0;
	if ((lo && json_array_size(v) < (size_t)json_integer_value(lo)) ||
	    (hi && json_array_size(v) > (size_t)json_integer_value(hi)))
		return fail(c, "has the wrong number of items");
	if (!items)
		return 0;
	json_array_foreach(v, i, x) {
		mark = push_index(c, i);
		if (check(c, items, x))
			return -1;
		c->path[mark] = '\0';
	}
	return 0;
}

/* Exactly one branch.  When none fits, the reason given is the one that got
 * deepest into the value: it names the field that is really wrong. */
static int check_one_of(struct ctx *c, const json_t *branches, const json_t *v)
{
	char best[512] = "", why[512];
	size_t i, matched = 0, base = strlen(c->path);
	const json_t *b;
	char *saved = c->err;
	size_t saved_len = c->len;

	json_array_foreach(branches, i, b) {
		c->err = why;
		c->len = sizeof(why);
		why[0] = '\0';
		if (!check(c, b, v))
			matched++;
		else if (!best[0] || strcspn(why, " ") > strcspn(best, " ") ||
			 (strcspn(why, " ") == strcspn(best, " ") && strstr(best, "has the wrong type") &&
			  !strstr(why, "has the wrong type")))
			/* the longer field path; at one depth, the branch whose
			 * type fitted says more than "wrong type" */
			snprintf(best, sizeof(best), "%s", why);
		c->path[base] = '\0';
	}
	c->err = saved;
	c->len = saved_len;
	if (matched == 1)
		return 0;
	if (matched > 1)
		return fail(c, "matches more than one form");
	snprintf(c->err, c->len, "%s", best);
	return -1;
}

static const json_t *resolve(struct ctx *c, const char *ref)
{
	static const char prefix[] = "#/$defs/";

	if (strncmp(ref, prefix, sizeof(prefix) - 1))
		return NULL;
	return json_object_get(json_object_get(c->root, "$defs"), ref + sizeof(prefix) - 1);
}

static int check(struct ctx *c, const json_t *s, const json_t *v)
{
	const json_t *x;
	size_t i;

	if ((x = json_object_get(s, "$ref"))) {
		const json_t *target = resolve(c, json_string_value(x));

		if (!target)
			return fail(c, "schema reference %s is not in $defs", json_string_value(x));
		if (check(c, target, v))
			return -1;
	}
	if ((x = json_object_get(s, "type")) && check_type(c, x, v))
		return -1;
	if ((x = json_object_get(s, "const")) && !json_equal((json_t *)x, (json_t *)v))
		return fail(c, "is not the value required");
	if ((x = json_object_get(s, "enum"))) {
		const json_t *one;
		bool found = false;

		json_array_foreach(x, i, one)
			found |= json_equal((json_t *)one, (json_t *)v);
		if (!found)
			return fail(c, "%s%s%s is not one of the known values", json_is_string(v) ? "'" : "",
				    json_is_string(v) ? json_string_value(v) : kind_name(v), json_is_string(v) ? "'" : "");
	}
	if ((x = json_object_get(s, "minimum")) && json_is_number(v) &&
	    json_number_value(v) < json_number_value(x))
		return fail(c, "is below the minimum");
	if ((x = json_object_get(s, "pattern")) && check_pattern(c, json_string_value(x), v))
		return -1;
	if (check_object(c, s, v) || check_array(c, s, v))
		return -1;
	if ((x = json_object_get(s, "oneOf")) && check_one_of(c, x, v))
		return -1;
	if ((x = json_object_get(s, "if"))) {
		char scratch[512];
		struct ctx probe = *c;

		probe.err = scratch;
		probe.len = sizeof(scratch);
		if (!check(&probe, x, v) && (x = json_object_get(s, "then")) && check(c, x, v))
			return -1;
	}
	return 0;
}

/* Every keyword, at every level, must be one this file implements. */
static int audit(const json_t *s, char *err, size_t len)
{
	const char *key;
	const json_t *sub;
	size_t i;

	if (!json_is_object(s))
		return 0;
	json_object_foreach((json_t *)s, key, sub) {
		bool known = false;

		for (i = 0; i < sizeof(understood) / sizeof(understood[0]); i++)
			known |= !strcmp(key, understood[i]);
		for (i = 0; i < sizeof(ignored) / sizeof(ignored[0]); i++)
			known |= !strcmp(key, ignored[i]) && strcmp(key, "$defs");
		if (!strcmp(key, "$defs") || !strcmp(key, "properties")) {
			const char *name;
			const json_t *one;

			json_object_foreach((json_t *)sub, name, one)
				if (audit(one, err, len))
					return -1;
			continue;
		}
		if (!known) {
			snprintf(err, len, "results schema uses '%s', which harness/schema.c does not implement", key);
			return -1;
		}
		if (!strcmp(key, "oneOf")) {
			const json_t *branch;

			json_array_foreach(sub, i, branch)
				if (audit(branch, err, len))
					return -1;
		} else if (json_is_object(sub) && strcmp(key, "const") && audit(sub, err, len)) {
			return -1;
		}
	}
	return 0;
}

json_t *mmt_schema_parse(const char *text, char *err, size_t len)
{
	json_error_t jerr;
	json_t *schema = json_loads(text, JSON_REJECT_DUPLICATES, &jerr);

	if (!schema) {
		snprintf(err, len, "results schema is not valid JSON (line %d: %s)", jerr.line, jerr.text);
		return NULL;
	}
	if (audit(schema, err, len)) {
		json_decref(schema);
		return NULL;
	}
	return schema;
}

const json_t *mmt_schema(char *err, size_t len)
{
	static json_t *schema;

	if (!schema)
		schema = mmt_schema_parse(mmt_schema_text, err, len);
	return schema;
}

int mmt_schema_validate_with(const json_t *schema, const json_t *doc, char *err, size_t len)
{
	struct ctx c = { .root = schema, .err = err, .len = len };

	return check(&c, schema, doc);
}

int mmt_schema_validate(const json_t *doc, char *err, size_t len)
{
	const json_t *schema = mmt_schema(err, len);
	struct ctx c = { .root = schema, .err = err, .len = len };

	if (!schema)
		return -1;
	return check(&c, schema, doc);
}

int mmt_schema_validate_def(const char *def, const json_t *v, const char *where, char *err, size_t len)
{
	const json_t *schema = mmt_schema(err, len), *sub;
	struct ctx c = { .root = schema, .err = err, .len = len };

	if (!schema)
		return -1;
	sub = json_object_get(json_object_get(schema, "$defs"), def);
	if (!sub) {
		snprintf(err, len, "results schema has no definition '%s'", def);
		return -1;
	}
	snprintf(c.path, sizeof(c.path), "%s", where ? where : "");
	return check(&c, sub, v);
}

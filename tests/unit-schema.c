/* SPDX-License-Identifier: MIT */
/* harness/schema.c: the interpreter of results/schema.json refuses a schema
 * with a keyword it does not implement (so Python could never enforce a
 * rule C silently skips), applies each keyword it does, and names the
 * field; a single record checks against one definition. */
#include "schema.h"
#include "tap.h"

#include <stdbool.h>

#include <string.h>

static json_t *doc(const char *text)
{
	json_error_t e;

	return json_loads(text, 0, &e);
}

static bool refused(const json_t *schema, const char *text, const char *field)
{
	char err[512] = "";
	json_t *d = doc(text);
	bool r = mmt_schema_validate_with(schema, d, err, sizeof(err)) == -1 && strstr(err, field);

	if (!r)
		printf("# %s: '%s'\n", text, err);
	json_decref(d);
	return r;
}

static bool accepted(const json_t *schema, const char *text)
{
	char err[512] = "";
	json_t *d = doc(text);
	bool r = !mmt_schema_validate_with(schema, d, err, sizeof(err));

	if (!r)
		printf("# %s: '%s'\n", text, err);
	json_decref(d);
	return r;
}

int main(void)
{
	char err[512];
	json_t *s, *run;

	tap_ok(mmt_schema(err, sizeof(err)) != NULL, "the embedded results/schema.json parses and passes the audit");
	s = mmt_schema_parse("{\"type\":\"object\",\"properties\":{\"a\":{\"maxLength\":3}}}", err, sizeof(err));
	tap_ok(!s && strstr(err, "'maxLength'"), "a schema keyword the interpreter lacks is refused: %s", err);
	s = mmt_schema_parse("{\"type\":\"object\",\"required\":[\"a\"],\"properties\":{"
			     "\"a\":{\"type\":\"integer\",\"minimum\":0},"
			     "\"b\":{\"oneOf\":[{\"type\":\"integer\"},{\"type\":\"string\",\"pattern\":\"^[0-9]+$\"}]},"
			     "\"c\":{\"enum\":[\"x\",\"y\"]},"
			     "\"d\":{\"type\":\"array\",\"items\":{\"$ref\":\"#/$defs/pos\"},\"minItems\":1},"
			     "\"e\":{\"type\":\"object\",\"additionalProperties\":{\"type\":\"boolean\"}}},"
			     "\"if\":{\"properties\":{\"c\":{\"const\":\"y\"}}},\"then\":{\"required\":[\"d\"]},"
			     "\"$defs\":{\"pos\":{\"type\":\"number\",\"minimum\":1}}}",
			     err, sizeof(err));
	tap_ok(s != NULL, "a schema of the implemented keywords parses (%s)", s ? "" : err);
	tap_ok(accepted(s, "{\"a\":1,\"b\":\"12\",\"c\":\"x\",\"d\":[1.5],\"e\":{\"k\":true}}"), "a valid document");
	tap_ok(refused(s, "{}", "a: is missing"), "required");
	tap_ok(refused(s, "{\"a\":1.0}", "a: has the wrong type (a real number)"), "type: 1.0 is not an integer");
	tap_ok(refused(s, "{\"a\":-1}", "a: is below the minimum"), "minimum");
	tap_ok(refused(s, "{\"a\":1,\"b\":\"1x\"}", "b: does not match"), "oneOf reports the deeper branch");
	tap_ok(refused(s, "{\"a\":1,\"c\":\"z\"}", "c: 'z' is not one of"), "enum");
	tap_ok(refused(s, "{\"a\":1,\"d\":[]}", "d: has the wrong number of items"), "minItems");
	tap_ok(refused(s, "{\"a\":1,\"d\":[2,0]}", "d[1]: is below the minimum"), "items through $ref");
	tap_ok(refused(s, "{\"a\":1,\"e\":{\"k\":1}}", "e.k: has the wrong type"), "additionalProperties");
	tap_ok(refused(s, "{\"a\":1,\"c\":\"y\"}", "d: is missing"), "if/then");
	tap_ok(accepted(s, "{\"a\":1,\"c\":\"x\"}"), "if/then: the condition false, nothing required");
	json_decref(s);

	run = doc("{\"scenario\":\"msgpass\"}");
	tap_ok(mmt_schema_validate_def("run", run, "runs[3]", err, sizeof(err)) == -1 &&
		       strstr(err, "runs[3].variant: is missing"),
	       "one record against the run definition names it: %s", err);
	json_decref(run);
	tap_ok(mmt_schema_validate_def("nosuch", NULL, "x", err, sizeof(err)) == -1 && strstr(err, "no definition"),
	       "an unknown definition is an error");
	return tap_done();
}

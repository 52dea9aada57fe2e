/* SPDX-License-Identifier: MIT */
/* value: scalar resolution, comparison and rendering. */
#include "base/value.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "base/mem.h"

const struct value value_unknown = {.kind = V_UNKNOWN};
const struct value value_null = {.kind = V_NULL};

struct value value_bool(bool b)
{
	return (struct value){.kind = V_BOOL, .b = b};
}

struct value value_str(const char *s)
{
	return (struct value){.kind = V_STR, .s = s};
}

static bool is_one_of(const char *s, const char *const *words)
{
	for (; *words; words++)
		if (!strcmp(s, *words))
			return true;
	return false;
}

/* PyYAML resolver tables (resolver.py, Resolver.add_implicit_resolver). */
static const char *const yaml_true[] = {"yes", "Yes", "YES", "true", "True", "TRUE", "on", "On", "ON", NULL};
static const char *const yaml_false[] = {"no", "No", "NO", "false", "False", "FALSE", "off", "Off", "OFF", NULL};
static const char *const yaml_null[] = {"", "~", "null", "Null", "NULL", NULL};

static bool parse_int(const char *s, long long *out)
{
	char digits[64];
	size_t n = 0;
	const char *p = s;
	if (*p == '+' || *p == '-')
		digits[n++] = *p++;
	if (!*p)
		return false;
	int base = 10;
	if (p[0] == '0' && (p[1] == 'x' || p[1] == 'X'))
		base = 16, p += 2;
	else if (p[0] == '0' && (p[1] == 'o'))
		base = 8, p += 2;
	else if (p[0] == '0' && p[1])
		base = 8, p += 1;
	if (!*p)
		return false;
	for (; *p; p++) {
		if (*p == '_')
			continue;
		if (!(base == 16 ? isxdigit((unsigned char)*p) : (*p >= '0' && *p <= (base == 8 ? '7' : '9'))))
			return false;
		if (n >= sizeof(digits) - 1)
			return false;
		digits[n++] = *p;
	}
	digits[n] = '\0';
	errno = 0;
	char *end;
	long long v = strtoll(digits, &end, base);
	if (errno || *end)
		return false;
	*out = v;
	return true;
}

static bool parse_float(const char *s, double *out)
{
	if (is_one_of(s, (const char *const[]){".inf", ".Inf", ".INF", "+.inf", "+.Inf", "+.INF", NULL})) {
		*out = (double)INFINITY;
		return true;
	}
	if (is_one_of(s, (const char *const[]){"-.inf", "-.Inf", "-.INF", NULL})) {
		*out = -(double)INFINITY;
		return true;
	}
	if (is_one_of(s, (const char *const[]){".nan", ".NaN", ".NAN", NULL})) {
		*out = (double)NAN;
		return true;
	}
	/* PyYAML 1.1 float: needs a '.', digits around it, optional exponent */
	const char *p = s;
	if (*p == '+' || *p == '-')
		p++;
	bool dot = false, digit = false;
	for (const char *q = p; *q && *q != 'e' && *q != 'E'; q++) {
		if (*q == '.')
			dot = true;
		else if (isdigit((unsigned char)*q))
			digit = true;
		else if (*q != '_')
			return false;
	}
	if (!dot || !digit)
		return false;
	char *end;
	errno = 0;
	double v = strtod(s, &end);
	if (*end || errno == ERANGE)
		return false;
	*out = v;
	return true;
}

struct value value_from_plain(struct arena *a, const char *s)
{
	struct value v = {.kind = V_STR, .s = s};
	if (is_one_of(s, yaml_null))
		return value_null;
	if (is_one_of(s, yaml_true))
		return value_bool(true);
	if (is_one_of(s, yaml_false))
		return value_bool(false);
	long long i;
	if (parse_int(s, &i))
		return (struct value){.kind = V_INT, .i = i};
	double f;
	if (parse_float(s, &f))
		return (struct value){.kind = V_FLOAT, .f = f};
	(void)a;
	return v;
}

enum tri value_truth(const struct value *v)
{
	switch (v->kind) {
	case V_UNKNOWN: return TRI_UNKNOWN;
	case V_NULL: return TRI_FALSE;
	case V_BOOL: return v->b ? TRI_TRUE : TRI_FALSE;
	case V_INT: return v->i ? TRI_TRUE : TRI_FALSE;
	case V_FLOAT: return v->f != 0.0 ? TRI_TRUE : TRI_FALSE;
	case V_STR: return *v->s ? TRI_TRUE : TRI_FALSE;
	case V_LIST: case V_MAP: return v->n ? TRI_TRUE : TRI_FALSE;
	}
	return TRI_UNKNOWN;
}

bool value_is_number(const struct value *v, double *out)
{
	switch (v->kind) {
	case V_INT: *out = (double)v->i; return true;
	case V_FLOAT: *out = v->f; return true;
	case V_BOOL: *out = v->b; return true;     /* Python: True == 1 */
	default: return false;
	}
}

bool value_equal(const struct value *a, const struct value *b)
{
	double x, y;
	if (value_is_number(a, &x) && value_is_number(b, &y))
		return x == y;
	if (a->kind != b->kind)
		return false;
	switch (a->kind) {
	case V_UNKNOWN: case V_NULL: return true;
	case V_STR: return !strcmp(a->s, b->s);
	case V_LIST:
		if (a->n != b->n)
			return false;
		for (size_t k = 0; k < a->n; k++)
			if (!value_equal(&a->items[k], &b->items[k]))
				return false;
		return true;
	default: return false;
	}
}

bool value_list_has(const struct value *list, const struct value *item)
{
	for (size_t k = 0; k < list->n; k++)
		if (value_equal(&list->items[k], item))
			return true;
	return false;
}

const char *value_kind_name(enum val_kind k)
{
	static const char *const names[] = {"unknown", "null", "bool", "int", "float", "string", "list", "mapping"};
	return names[k];
}

void value_render(struct sbuf *sb, const struct value *v, bool bare)
{
	switch (v->kind) {
	case V_UNKNOWN: sbuf_adds(sb, "<unset>"); break;
	case V_NULL: sbuf_adds(sb, "None"); break;
	case V_BOOL: sbuf_adds(sb, v->b ? "True" : "False"); break;
	case V_INT: sbuf_printf(sb, "%lld", v->i); break;
	case V_FLOAT: sbuf_printf(sb, "%g", v->f); break;
	case V_STR:
		if (bare)
			sbuf_adds(sb, v->s);
		else
			sbuf_printf(sb, "'%s'", v->s);
		break;
	case V_LIST:
		sbuf_addc(sb, '[');
		for (size_t k = 0; k < v->n; k++) {
			if (k)
				sbuf_adds(sb, ", ");
			value_render(sb, &v->items[k], false);
		}
		sbuf_addc(sb, ']');
		break;
	case V_MAP: sbuf_adds(sb, "{...}"); break;
	}
}

const char *value_string(struct arena *a, const struct value *v, bool bare)
{
	struct sbuf sb;
	sbuf_init(&sb);
	value_render(&sb, v, bare);
	const char *s = arena_strdup(a, sb.buf);
	sbuf_release(&sb);
	return s;
}

struct value value_split(struct arena *a, const struct value *v, const struct value *sep)
{
	if (v->kind != V_STR || sep->kind != V_STR || !*sep->s)
		return *v;
	size_t n = 1, seplen = strlen(sep->s);
	for (const char *p = v->s; (p = strstr(p, sep->s)); p += seplen)
		n++;
	struct value out = {.kind = V_LIST, .n = n, .loc = v->loc};
	out.items = arena_alloc(a, n * sizeof(*out.items));
	const char *p = v->s;
	for (size_t k = 0; k < n; k++) {
		const char *q = strstr(p, sep->s);
		size_t len = q ? (size_t)(q - p) : strlen(p);
		out.items[k] = value_str(arena_strndup(a, p, len));
		out.items[k].loc = v->loc;
		p = q ? q + seplen : p + len;
	}
	return out;
}

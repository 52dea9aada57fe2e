/* SPDX-License-Identifier: MIT */
/* fe_py_lit: Python literals to values (see fe_py_lit.h). */
#include "front/py/fe_py_lit.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "base/mem.h"
#include "front/py/py_node.h"

#define is py_is
#define text py_node_text
#define loc_of py_loc

bool fe_py_lit_string(struct arena *a, const char *src, TSNode n, struct value *out)
{
	if (is(n, "concatenated_string")) {
		struct sbuf sb;
		sbuf_init(&sb);
		bool ok = true;
		for (uint32_t k = 0; ok && k < ts_node_named_child_count(n); k++) {
			struct value part;
			ok = fe_py_lit_string(a, src, ts_node_named_child(n, k), &part);
			if (ok)
				sbuf_adds(&sb, part.s);
		}
		if (ok)
			*out = value_str(arena_strdup(a, sb.buf ? sb.buf : ""));
		sbuf_release(&sb);
		return ok;
	}
	if (!is(n, "string"))
		return false;
	uint32_t s = ts_node_start_byte(n), e = ts_node_end_byte(n);
	const char *p = src + s, *end = src + e;
	bool raw = false;
	while (p < end && isalpha((unsigned char)*p)) {
		char c = (char)tolower((unsigned char)*p++);
		if (c == 'f' || c == 'b')
			return false;   /* f-strings and bytes are not config strings cglint reads */
		raw |= c == 'r';
	}
	if (p >= end)
		return false;
	char q = *p;
	size_t ql = (end - p >= 6 && p[1] == q && p[2] == q) ? 3 : 1;
	if ((size_t)(end - p) < 2 * ql)
		return false;
	p += ql;
	end -= ql;
	struct sbuf sb;
	sbuf_init(&sb);
	sbuf_addn(&sb, "", 0);
	for (; p < end; p++) {
		if (*p != '\\' || raw || p + 1 >= end) {
			sbuf_addc(&sb, *p);
			continue;
		}
		char c = *++p;
		switch (c) {
		case 'n': sbuf_addc(&sb, '\n'); break;
		case 't': sbuf_addc(&sb, '\t'); break;
		case '\\': case '\'': case '"': sbuf_addc(&sb, c); break;
		case '\n': break;
		default:
			sbuf_addc(&sb, '\\');
			sbuf_addc(&sb, c);
		}
	}
	*out = value_str(arena_strdup(a, sb.buf ? sb.buf : ""));
	sbuf_release(&sb);
	return true;
}

bool fe_py_lit_value(struct arena *a, const char *path, const char *src, TSNode n, struct value *out, unsigned depth)
{
	if (depth > FE_PY_MAX_NEST || ts_node_is_null(n))      /* an absent field: no literal */
		return false;
	struct loc at = loc_of(path, n);
	const char *t = ts_node_type(n);
	if (!strcmp(t, "parenthesized_expression") && ts_node_named_child_count(n) == 1)
		return fe_py_lit_value(a, path, src, ts_node_named_child(n, 0), out, depth + 1);
	if (!strcmp(t, "string") || !strcmp(t, "concatenated_string")) {
		if (!fe_py_lit_string(a, src, n, out))
			return false;
	} else if (!strcmp(t, "true") || !strcmp(t, "false")) {
		*out = value_bool(t[0] == 't');
	} else if (!strcmp(t, "none")) {
		*out = value_null;
	} else if (!strcmp(t, "integer") || !strcmp(t, "float") ||
		   (!strcmp(t, "unary_operator") && ts_node_named_child_count(n) == 1 &&
		    (is(ts_node_named_child(n, 0), "integer") || is(ts_node_named_child(n, 0), "float")))) {
		const char *s = text(a, src, n);
		char *clean = arena_strdup(a, s), *w = clean;
		for (const char *r = s; *r; r++)
			if (*r != '_' && !isspace((unsigned char)*r))
				*w++ = *r;
		*w = '\0';
		char *endp;
		bool is_float = !strcmp(t, "float") ||
				(!strcmp(t, "unary_operator") && is(ts_node_named_child(n, 0), "float"));
		if (strpbrk(clean, "jJ"))
			return false;   /* complex */
		if (is_float) {
			*out = (struct value){.kind = V_FLOAT, .f = strtod(clean, &endp)};
		} else {
			long long v = strtoll(clean, &endp, 0);
			if (clean[0] == '0' && clean[1] && isdigit((unsigned char)clean[1]))
				return false;   /* not Python 3 */
			if (*endp && !(clean[0] == '0' && (clean[1] == 'o' || clean[1] == 'O')))
				return false;
			if (clean[0] == '0' && (clean[1] == 'o' || clean[1] == 'O'))
				v = strtoll(clean + 2, &endp, 8);
			*out = (struct value){.kind = V_INT, .i = v};
		}
		if (*endp)
			return false;
	} else if (!strcmp(t, "list") || !strcmp(t, "tuple")) {
		uint32_t n_items = ts_node_named_child_count(n);
		struct value *items = arena_alloc(a, (n_items ? n_items : 1) * sizeof(*items));
		size_t m = 0;
		for (uint32_t k = 0; k < n_items; k++) {
			TSNode c = ts_node_named_child(n, k);
			if (is(c, "comment"))
				continue;
			if (!fe_py_lit_value(a, path, src, c, &items[m], depth + 1))
				return false;
			m++;
		}
		*out = (struct value){.kind = V_LIST, .items = items, .n = m};
	} else {
		return false;
	}
	out->loc = at;
	return true;
}

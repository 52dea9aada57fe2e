/* SPDX-License-Identifier: MIT */
/*
 * sg_patch: a suggestion as edits in its input's own language, applied through fix.h (a unified
 * diff, or each file replaced atomically). Python: assignments to the config the recipe function
 * returns, just before its return, so they win over what the function and its helpers wrote
 * (or in place, where the function writes the key on a line of its own). YAML: the key's value
 * where the file writes it, else a key under its section. A deprecated key the suggestion renames
 * (sg_set.renames) is set to None and the new key written, where the recipe writes the old one
 * or else before its return; a YAML likewise where it writes the old key, or keeps the old name. Harness command
 * lines: the flag's word where given, else the flag after the command. Anything else is said on
 * stderr and left alone: a patch is never guessed.
 */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "base/mem.h"
#include "base/value.h"
#include "front/py/py_bridge.h"
#include "input/text.h"
#include "report/fix.h"
#include "suggest/sg.h"
#include "suggest/sg_int.h"


static void edit(struct fix_edits *ed, size_t start, size_t end, const char *text)
{
	fix_edits_add(ed, (struct fix_edit){start, end, text, NULL});
}

/* Python's spelling of a value (YAML's is the same but for true/false/null and quotes). */
static void render(struct sbuf *sb, const struct value *v, enum sg_lang lang)
{
	bool py = lang == SG_PY;
	switch (v->kind) {
	case V_BOOL: sbuf_adds(sb, py ? (v->b ? "True" : "False") : (v->b ? "true" : "false")); break;
	case V_NULL: sbuf_adds(sb, py ? "None" : "null"); break;
	case V_INT: sbuf_printf(sb, "%lld", v->i); break;
	case V_FLOAT: sbuf_printf(sb, "%g", v->f); break;
	case V_STR: sbuf_printf(sb, py ? "\"%s\"" : "%s", v->s); break;
	case V_LIST:
		sbuf_addc(sb, '[');
		for (size_t k = 0; k < v->n; k++) {
			sbuf_adds(sb, k ? ", " : "");
			render(sb, &v->items[k], lang);
		}
		sbuf_addc(sb, ']');
		break;
	default: sbuf_adds(sb, "?"); break;
	}
}

static const char *spelled(struct arena *a, const struct value *v, enum sg_lang lang)
{
	struct sbuf sb;
	sbuf_init(&sb);
	if (lang == SG_HARNESS && v->kind == V_LIST)    /* the harness splits one word on ',' */
		for (size_t k = 0; k < v->n; k++)
			sbuf_printf(&sb, "%s%s", k ? "," : "", v->items[k].kind == V_STR ? v->items[k].s : "?");
	else if (lang == SG_HARNESS && v->kind == V_STR)
		sbuf_adds(&sb, v->s);
	else
		render(&sb, v, lang);
	const char *s = arena_strdup(a, sb.buf);
	sbuf_release(&sb);
	return s;
}

static size_t indent_of(const char *line, size_t n)
{
	size_t k = 0;
	while (k < n && (line[k] == ' ' || line[k] == '\t'))
		k++;
	return k;
}

static bool blank(const char *line, size_t n)
{
	size_t k = indent_of(line, n);
	return k == n || line[k] == '#';
}

/* ---- Python: before the function's last top-level `return NAME` ---- */

/* One assignment to the returned config 'name' (env_vars and dict fields as items). */
static void py_set(struct sbuf *sb, const struct sg_set *s, size_t ind, const char *name, size_t name_len)
{
	size_t dict = sgt_dict_key(s->key);
	sbuf_printf(sb, "%*s%.*s", (int)ind, "", (int)name_len, name);
	if (!strncmp(s->key, "env.", 4))
		sbuf_printf(sb, ".env_vars[\"%s\"] = ", s->key + 4);
	else if (dict)  /* an item of a dict field that may still be None */
		sbuf_printf(sb, ".%.*s = {**(%.*s.%.*s or {}), \"%s\": ", (int)dict, s->key, (int)name_len, name, (int)dict,
			    s->key, s->key + dict + 1);
	else
		sbuf_printf(sb, ".%s = ", s->key);
	render(sb, &s->val, SG_PY);
	sbuf_adds(sb, dict ? "}\n" : "\n");
}

/* The value on line 'l' in [from, to), where the key's value now comes from, if that line
 * assigns NAME.KEY on its own at indent 'ind' ("    cfg.model.cuda_graph_impl = "none""): its
 * offsets in buf, or false. A write that a later call may override is another line (the call's
 * or the helper's), and a line with a comment, an open bracket or a continuation is left alone:
 * the new value then goes before the return. */
static bool py_assigned(const char *buf, size_t len, unsigned l, unsigned from, unsigned to, size_t ind,
			const char *name, size_t name_len, const char *key, size_t *start, size_t *end)
{
	size_t n, kl = strlen(key);
	const char *s = l >= from && l < to ? text_line(buf, len, l, &n) : NULL;
	if (!s || indent_of(s, n) != ind || n < ind + name_len + 1 + kl || strncmp(s + ind, name, name_len) ||
	    s[ind + name_len] != '.' || strncmp(s + ind + name_len + 1, key, kl))
		return false;
	size_t k = ind + name_len + 1 + kl;
	while (k < n && s[k] == ' ')
		k++;
	if (k + 1 >= n || s[k] != '=' || s[k + 1] == '=')
		return false;
	for (k++; k < n && s[k] == ' ';)
		k++;
	size_t e = n;
	while (e > k && (s[e - 1] == ' ' || s[e - 1] == '\r'))
		e--;
	int depth = 0;
	bool plain = e > k && s[e - 1] != '\\';
	for (size_t i = k; i < e && plain; i++) {
		depth += s[i] == '(' || s[i] == '[' || s[i] == '{' ? 1 : s[i] == ')' || s[i] == ']' || s[i] == '}' ? -1 : 0;
		plain = s[i] != '#';
	}
	if (!plain || depth)
		return false;
	*start = (size_t)(s - buf) + k;
	*end = (size_t)(s - buf) + e;
	return true;
}

/* The offset of line 'l' in buf; its length past the last line. */
static size_t line_off(const char *buf, size_t len, unsigned l)
{
	size_t n;
	const char *s = text_line(buf, len, l, &n);
	return s ? (size_t)(s - buf) : len;
}

/* The first parameter's name of the def at 'def' ("def f(\n    cfg: ConfigContainer, ..."), or NULL. */
static const char *param(const char *def, const char *end, size_t *len)
{
	const char *p = memchr(def, '(', (size_t)(end - def));
	if (!p)
		return NULL;
	while (++p < end && (*p == ' ' || *p == '\n' || *p == '\r'))
		;
	size_t m = 0;
	while (p + m < end && (isalnum((unsigned char)p[m]) || p[m] == '_'))
		m++;
	*len = m;
	return m && !(m == 4 && !strncmp(p, "self", 4)) ? p : NULL;
}

/* The class NAME is built from in the body ("NAME = TransformerConfig(" at indent 'ind', the last
 * one before 'to'), or NULL. */
static const char *py_built_from(struct arena *a, const char *buf, size_t len, unsigned from, unsigned to,
				 size_t ind, const char *name, size_t name_len)
{
	const char *cls = NULL;
	for (unsigned l = from; l < to; l++) {
		size_t n, k;
		const char *s = text_line(buf, len, l, &n);
		if (!s || indent_of(s, n) != ind || n < ind + name_len + 3 || strncmp(s + ind, name, name_len))
			continue;
		for (k = ind + name_len; k < n && s[k] == ' ';)
			k++;
		if (k + 1 >= n || s[k] != '=' || s[k + 1] == '=')
			continue;
		for (k++; k < n && s[k] == ' ';)
			k++;
		size_t m = 0;
		while (k + m < n && (isalnum((unsigned char)s[k + m]) || s[k + m] == '_' || s[k + m] == '.'))
			m++;
		cls = k + m < n && s[k + m] == '(' ? arena_printf(a, "%.*s", (int)m, s + k) : NULL;
	}
	return cls;
}

static const char *py_patch(struct arena *a, const char *buf, size_t len, const struct sg_unit *u,
			    const struct sg_choice *c, struct fix_edits *ed)
{
	size_t n;
	const char *def = text_line(buf, len, u->line, &n);
	if (!def)
		return "the function's line is not in the file";
	size_t def_ind = indent_of(def, n);
	int depth = 0;
	unsigned l = u->line;
	for (;; l++) {          /* the header may run over several lines */
		const char *s = text_line(buf, len, l, &n);
		if (!s)
			return "the function's header does not end";
		for (size_t k = 0; k < n; k++)
			depth += s[k] == '(' || s[k] == '[' ? 1 : s[k] == ')' || s[k] == ']' ? -1 : 0;
		size_t e = n;
		while (e && (s[e - 1] == ' ' || s[e - 1] == '\r'))
			e--;
		if (depth <= 0 && e && s[e - 1] == ':')
			break;
	}
	unsigned ret = 0, body = l + 1, last = 0, bare = 0;
	size_t body_ind = 0, name_len = 0;
	const char *name = NULL;
	bool returns = false;   /* a body-level return of some value */
	for (l++;; l++) {
		const char *s = text_line(buf, len, l, &n);
		if (!s)
			break;
		if (blank(s, n))
			continue;
		size_t ind = indent_of(s, n);
		if (ind <= def_ind)
			break;
		last = l;
		if (!body_ind)
			body_ind = ind;
		if (ind != body_ind || n - ind < 6 || strncmp(s + ind, "return", 6) ||
		    (n - ind > 6 && s[ind + 6] != ' ' && s[ind + 6] != '#' && s[ind + 6] != '\r'))
			continue;
		size_t k = ind + 6 + (n - ind > 6 && s[ind + 6] == ' '), m = 0;
		while (k + m < n && (isalnum((unsigned char)s[k + m]) || s[k + m] == '_'))
			m++;
		size_t rest = indent_of(s + k + m, n - k - m) + k + m;
		bool alone = rest == n || s[rest] == '#' || s[rest] == '\r';
		bool none = alone && (!m || (m == 4 && !strncmp(s + k, "None", 4)));
		bare = none ? l : 0;
		returns |= !none;
		if (m && alone && !none) {
			ret = l;
			name = s + k;
			name_len = m;
		} else {
			ret = 0;        /* a later return of an expression: nothing named to assign to */
		}
	}
	size_t end = len;       /* where appended settings go */
	if (ret) {
		end = line_off(buf, len, ret);
	} else if (!returns && last && (name = param(def, buf + len, &name_len))) {
		/* a helper that changes the config it is given (def f(cfg) -> None): at its end */
		ret = bare ? bare : last + 1;
		end = line_off(buf, len, ret);
	} else {
		return "the function does not end in 'return NAME', nor changes the config it is given";
	}
	/* a function that returns the model's own config (a TransformerConfig, a provider) holds
	 * the model section alone: the other sections' keys have nowhere to go */
	const char *cls = py_built_from(a, buf, len, body, ret, body_ind, name, name_len);
	const char *section = cls ? py_bridge_section(strrchr(cls, '.') ? strrchr(cls, '.') + 1 : cls) : NULL;
	if (section && *section)
		return arena_printf(a, "the function returns a %s config (%s), not the ConfigContainer the settings go in",
				    section, cls);
	struct sbuf sb;
	sbuf_init(&sb);
	for (size_t k = 0; k < c->n_sets; k++) {
		const struct sg_set *st = &c->sets[k];
		size_t from, to;
		if (st->only_if)
			continue;
		if (st->renames) {      /* NAME.model.cuda_graph_scope = X becomes NAME.model.cuda_graph_modules = X */
			struct sg_set old = *st;
			old.key = st->renames;
			old.renames = NULL;
			/* in place, the old key cleared first: a helper or base recipe the function called
			 * before may have written it too, and would still reach MCore's migration */
			if (st->at.path && !strcmp(st->at.path, u->path) &&
			    py_assigned(buf, len, st->at.line, body, ret, body_ind, name, name_len, st->renames, &from, &to)) {
				size_t ln, line = (size_t)(text_line(buf, len, st->at.line, &ln) - buf);
				struct sbuf v;
				sbuf_init(&v);
				old.val = value_null;
				py_set(&v, &old, body_ind, name, name_len);
				py_set(&v, st, body_ind, name, name_len);
				v.buf[--v.len] = '\0';         /* the line keeps its own end */
				edit(ed, line, to, arena_strdup(a, v.buf));
				sbuf_release(&v);
				continue;
			}
			/* written elsewhere (a helper other recipes share, a constructor): the old key set to
			 * None, which MCore then leaves alone, and the new one set, before the return. A
			 * write of the old key on a line of the function's own is overridden by that call:
			 * it goes, so that the function writes the key once */
			for (unsigned own = body; own < ret; own++)
				if (py_assigned(buf, len, own, body, ret, body_ind, name, name_len, st->renames, &from, &to))
					edit(ed, line_off(buf, len, own), line_off(buf, len, own + 1), "");
			old.val = value_null;
			py_set(&sb, &old, body_ind, name, name_len);
			py_set(&sb, st, body_ind, name, name_len);
			continue;
		}
		/* a value the function writes itself changes where it is written: the key once */
		if (strncmp(st->key, "env.", 4) && !sgt_dict_key(st->key) && st->at.path && !strcmp(st->at.path, u->path) &&
		    py_assigned(buf, len, st->at.line, body, ret, body_ind, name, name_len, st->key, &from, &to)) {
			struct sbuf v;
			sbuf_init(&v);
			render(&v, &st->val, SG_PY);
			edit(ed, from, to, arena_strdup(a, v.buf));
			sbuf_release(&v);
			continue;
		}
		py_set(&sb, st, body_ind, name, name_len);
	}
	/* companions that apply only where a key cglint cannot see is set: under an if on it */
	for (size_t k = 0; k < c->n_sets; k++) {
		const char *g = c->sets[k].only_if;
		bool first = g != NULL;
		for (size_t i = 0; i < k && first; i++)
			first = !c->sets[i].only_if || strcmp(c->sets[i].only_if, g);
		if (!first)
			continue;
		const char *leaf = strrchr(g, '.');
		sbuf_printf(&sb, "%*sif getattr(%.*s.%.*s, \"%s\", None) is not None:\n", (int)body_ind, "", (int)name_len,
			    name, (int)(leaf - g), g, leaf + 1);
		for (size_t i = k; i < c->n_sets; i++)
			if (c->sets[i].only_if && !strcmp(c->sets[i].only_if, g))
				py_set(&sb, &c->sets[i], body_ind + 4, name, name_len);
	}
	if (sb.len)
		edit(ed, end, end, arena_printf(a, "%s%s", end == len && len && buf[len - 1] != '\n' ? "\n" : "", sb.buf));
	sbuf_release(&sb);
	return NULL;
}

/* ---- YAML ---- */

/* The line of key 'name' (a leaf) at indent 'ind' in [from, to), or 0. */
static unsigned yaml_find(const char *buf, size_t len, unsigned from, unsigned to, size_t ind, const char *name)
{
	size_t m = strlen(name), n;
	for (unsigned l = from; l < to; l++) {
		const char *s = text_line(buf, len, l, &n);
		if (!s)
			break;
		if (blank(s, n))
			continue;
		size_t i = indent_of(s, n);
		if (i < ind && l > from)
			break;
		if (i == ind && n > i + m && !strncmp(s + i, name, m) && s[i + m] == ':')
			return l;
	}
	return 0;
}

/* The end of the block under the key at line l (its last line + 1). */
static unsigned yaml_block_end(const char *buf, size_t len, unsigned l, size_t ind)
{
	size_t n;
	unsigned last = l;
	for (unsigned k = l + 1;; k++) {
		const char *s = text_line(buf, len, k, &n);
		if (!s)
			break;
		if (blank(s, n))
			continue;
		if (indent_of(s, n) <= ind && !(indent_of(s, n) == ind && s[ind] == '-'))
			break;
		last = k;
	}
	return last + 1;
}

/* 'key' set to 'val': where the file writes it, else under its section. With 'sibling' (a
 * deprecated key renamed), a key the file writes becomes null and 'sibling' gets 'val' below it. */
static void yaml_set(struct arena *a, const char *buf, size_t len, unsigned first, const char *key, const char *val,
		     const char *sibling, struct fix_edits *ed)
{
	char *path = arena_strdup(a, key);
	if (!strncmp(path, "env.", 4))
		path = arena_printf(a, "env_vars.%s", key + 4);
	unsigned from = first, to = ~0u;
	size_t ind = 0;
	for (char *part = path, *dot;; part = dot + 1) {
		dot = strchr(part, '.');
		if (dot)
			*dot = '\0';
		unsigned l = yaml_find(buf, len, from, to, ind, part);
		if (!l) {       /* write the rest of the path here: nested keys, the leaf last */
			if (dot)
				*dot = '.';
			struct sbuf sb;
			sbuf_init(&sb);
			size_t i = ind;
			for (char *p = part;; i += 2) {
				char *d = strchr(p, '.');
				if (d)
					*d = '\0';
				sbuf_printf(&sb, "%*s%s:%s%s\n", (int)i, "", p, d ? "" : " ", d ? "" : val);
				if (!d)
					break;
				p = d + 1;
			}
			size_t off = to == ~0u ? len : line_off(buf, len, to);
			const char *nl = off && buf[off - 1] != '\n' ? "\n" : "";
			if (from > first) {     /* first under the section, after its header line */
				off = line_off(buf, len, from);
				nl = "";
			}
			edit(ed, off, off, arena_printf(a, "%s%s", nl, sb.buf));
			sbuf_release(&sb);
			return;
		}
		size_t n;
		const char *s = text_line(buf, len, l, &n);
		if (!dot) {     /* the leaf: its value, inline or a block below */
			if (sibling)    /* the old key null (what the file overrides may set it too), the new below */
				val = arena_printf(a, "null\n%*s%s: %s", (int)indent_of(s, n), "", sibling, val);
			size_t v = indent_of(s, n) + strlen(part) + 1;
			size_t end = n, cpos = v;
			while (cpos < n && !(s[cpos] == '#' && (s[cpos - 1] == ' ' || s[cpos - 1] == '\t')))
				cpos++;
			end = cpos;
			while (end > v && (s[end - 1] == ' ' || s[end - 1] == '\r'))
				end--;
			size_t base = (size_t)(s - buf);
			unsigned bend = yaml_block_end(buf, len, l, ind);
			if (end == v && bend > l + 1)   /* a block value: replace its lines */
				edit(ed, base + v, line_off(buf, len, bend) - (bend <= l ? 0 : 1),
				     arena_printf(a, " %s", val));
			else
				edit(ed, base + v, base + end, arena_printf(a, " %s", val));
			return;
		}
		/* into the section: its children's indent from its first child */
		from = l + 1;
		to = yaml_block_end(buf, len, l, ind);
		size_t child = ind + 2;
		for (unsigned k = from; k < to; k++) {
			const char *cs = text_line(buf, len, k, &n);
			if (cs && !blank(cs, n)) {
				child = indent_of(cs, n);
				break;
			}
		}
		ind = child;
	}
}

/* ---- harness command lines ---- */
static const char *harness_flag(const char *key)
{
	if (!strcmp(key, "perf.cuda_graph_impl"))
		return "--cuda_graph_impl";
	if (!strcmp(key, "perf.cuda_graph_scope"))
		return "--cuda_graph_scope";
	return NULL;
}

static const char *harness_patch(struct arena *a, const char *buf, size_t len, const struct sg_choice *c,
				 struct fix_edits *ed)
{
	unsigned cmd = 0;
	struct sbuf tail;
	sbuf_init(&tail);
	for (size_t k = 0; k < c->n_sets; k++) {
		const struct sg_set *s = &c->sets[k];
		const char *word = spelled(a, &s->val, SG_HARNESS);
		if (s->at.path && s->at.line && strncmp(s->key, "env.", 4)) {
			size_t n;
			const char *line = text_line(buf, len, s->at.line, &n);
			size_t st = s->at.col ? s->at.col - 1 : 0, e = st;
			while (line && e < n && !isspace((unsigned char)line[e]))
				e++;
			if (line && e > st) {
				edit(ed, (size_t)(line - buf) + st, (size_t)(line - buf) + e, word);
				cmd = cmd ? cmd : s->at.line;
				continue;
			}
		}
		const char *flag = harness_flag(s->key);
		if (flag)
			sbuf_printf(&tail, " %s %s", flag, word);
		else if (!strncmp(s->key, "env.", 4))
			sbuf_printf(&tail, " --custom_env_vars %s=%s", s->key + 4, word);
	}
	for (size_t k = 0; !cmd && k < c->n_sets; k++)
		cmd = c->sets[k].at.line;
	if (tail.len) {         /* after the command's last line (its '\' continuations followed) */
		size_t n;
		const char *s;
		if (!cmd) {
			for (unsigned l = 1; (s = text_line(buf, len, l, &n)); l++)
				if (strstr(arena_strndup(a, s, n), "run_script.py")) {
					cmd = l;
					break;
				}
		}
		if (!cmd) {
			sbuf_release(&tail);
			return "no harness command found to add the flags to";
		}
		while ((s = text_line(buf, len, cmd, &n)) && n && s[n - 1] == '\\')
			cmd++;
		if (!s) {
			sbuf_release(&tail);
			return "the command does not end";
		}
		size_t off = (size_t)(s - buf) + sg_sh_code_end(s, n);
		edit(ed, off, off, arena_strdup(a, tail.buf));
	}
	sbuf_release(&tail);
	return NULL;
}

/* ---- Megatron-LM launch scripts: pretrain_*.py flags ---- */

/* A value as the flag's words: a list as nargs='+' words, true as the bare flag. */
static const char *mlm_words(struct arena *a, const struct value *v)
{
	if (v->kind == V_BOOL)
		return v->b ? "" : NULL;        /* store_true flags: false has no spelling */
	if (v->kind != V_LIST)
		return spelled(a, v, SG_HARNESS);
	struct sbuf sb;
	sbuf_init(&sb);
	for (size_t k = 0; k < v->n; k++)
		sbuf_printf(&sb, "%s%s", k ? " " : "", v->items[k].kind == V_STR ? v->items[k].s : "?");
	const char *w = arena_strdup(a, sb.buf);
	sbuf_release(&sb);
	return w;
}

static bool word_end(char c)
{
	return isspace((unsigned char)c) || c == '"' || c == '\'' || c == ')' || c == '\\' || c == ';';
}

/* The end of a flag's value words on its line, from 'p' just after the flag (its '=' form too). */
static size_t mlm_values_end(const char *s, size_t n, size_t p)
{
	size_t end = p;
	if (p < n && s[p] == '=')
		p++;
	for (size_t k = p;;) {
		while (k < n && (s[k] == ' ' || s[k] == '\t'))
			k++;
		if (k < n && (s[k] == '"' || s[k] == '\'')) {        /* a quoted word: --cuda-graph-impl "local" */
			const char *close = memchr(s + k + 1, s[k], n - k - 1);
			if (!close)
				return end;
			end = k = (size_t)(close - s) + 1;
			continue;
		}
		if (k >= n || s[k] == '-' || s[k] == '#' || word_end(s[k]))
			return end;
		while (k < n && !word_end(s[k]))
			k++;
		end = k;
	}
}

/* Whether a shell line runs the training: a torchrun, python or srun word, or a pretrain_*.py
 * word, in a line that is not an assignment (PRETRAIN_SCRIPT_PATH="pretrain_gpt.py"), a comment
 * or an echo. */
static bool mlm_runs(struct arena *a, const char *s, size_t n)
{
	static const char *const launchers[] = {"torchrun", "python", "python3", "srun", NULL};
	size_t k = indent_of(s, n), first = k;
	for (bool head = true; k < n; head = false) {
		size_t e = k;
		while (e < n && !isspace((unsigned char)s[e]))
			e++;
		const char *w = arena_strndup(a, s + k, e - k);
		if (head && (w[0] == '#' || !strcmp(w, "echo") || (strchr(w, '=') && w[0] != '$' && s[first] != '-')))
			return false;
		for (size_t i = 0; launchers[i]; i++)
			if (!strcmp(w, launchers[i]) || (strlen(w) > 9 && !strcmp(w + strlen(w) - 9, "/torchrun")))
				return true;
		if (strstr(w, "pretrain_") && strstr(w, ".py"))
			return true;
		for (k = e; k < n && isspace((unsigned char)s[k]); k++)
			;
	}
	return false;
}

/* The first line of the unit's training command (its program's word is on 'line'), or 0: a
 * script may run several. */
static unsigned mlm_command(struct arena *a, const char *buf, size_t len, unsigned line)
{
	size_t n;
	const char *s;
	while (line > 1 && (s = text_line(buf, len, line - 1, &n)) && n && s[n - 1] == '\\')
		line--;
	for (unsigned l = line ? line : 1; (s = text_line(buf, len, l, &n)); l++)
		if (mlm_runs(a, s, n))
			return l;
	return 0;
}

static const char *mlm_patch(struct arena *a, const char *buf, size_t len, unsigned line,
			     const struct sg_choice *c, struct fix_edits *ed)
{
	struct sbuf tail, env;
	sbuf_init(&tail);
	sbuf_init(&env);
	size_t anchor = 0;              /* where new flags go: after the impl flag's values */
	const char *why = NULL;
	for (size_t k = 0; k < c->n_sets && !why; k++) {
		const struct sg_set *st = &c->sets[k];
		if (!strncmp(st->key, "env.", 4)) {
			sbuf_printf(&env, "export %s=%s\n", st->key + 4, spelled(a, &st->val, SG_HARNESS));
			continue;
		}
		const char *flag = sgt_mlm_flag(a, st->key), *words = mlm_words(a, &st->val);
		if (!flag || !words) {
			why = arena_printf(a, "%s = %s has no flag spelling", st->key, spelled(a, &st->val, SG_YAML));
			break;
		}
		/* where the unit writes it: this flag, or the deprecated one it replaces */
		const char *old = st->renames ? sgt_mlm_flag(a, st->renames) : flag;
		size_t n, m = strlen(old);
		const char *s = st->at.path && st->at.line ? text_line(buf, len, st->at.line, &n) : NULL;
		size_t col = st->at.col ? st->at.col - 1 : 0;
		if (s && col + m <= n && !strncmp(s + col, old, m) && (col + m == n || s[col + m] == '=' ||
								       word_end(s[col + m]))) {
			size_t from = col + m, to = mlm_values_end(s, n, from), base = (size_t)(s - buf);
			if (!*words && !strcmp(st->key, "model.cuda_graph_modules")) {  /* none: no flag (nargs '+') */
				size_t cut = col;
				while (cut && (s[cut - 1] == ' ' || s[cut - 1] == '\t'))
					cut--;
				edit(ed, base + cut, base + to, "");
			} else if (st->renames) {
				edit(ed, base + col, base + to, arena_printf(a, "%s%s%s", flag, s[from] == '=' ? "=" : " ", words));
			} else {
				edit(ed, base + from, base + to, arena_printf(a, "%s%s", s[from] == '=' ? "=" : " ", words));
			}
			if (!strcmp(st->key, "model.cuda_graph_impl"))
				anchor = base + to;
			continue;
		}
		if (st->renames) {
			why = arena_printf(a, "%s is not where the script writes it", sgt_mlm_flag(a, st->renames));
			break;
		}
		if (!*words && !strcmp(st->key, "model.cuda_graph_modules"))
			continue;       /* no modules: the default, and the flag takes at least one */
		sbuf_printf(&tail, " %s%s%s", flag, *words ? " " : "", words);
	}
	unsigned cmd = mlm_command(a, buf, len, line);
	if (!why && (tail.len || env.len) && !cmd)
		why = "no training command (pretrain_*.py) found to add the flags to";
	if (!why && tail.len && !anchor) {  /* after the command's last line ('\' continuations followed) */
		size_t n, last_n = 0;
		const char *s, *last = NULL;
		unsigned l = cmd;
		while ((s = text_line(buf, len, l, &n)) && n && s[n - 1] == '\\') {
			last = s;
			last_n = n;
			l++;
		}
		if (s)
			anchor = (size_t)(s - buf) + sg_sh_code_end(s, n);
		else    /* a '\' on the file's last line: bash ends the command there; before the '\' */
			anchor = (size_t)(last - buf) + sg_sh_code_end(last, last_n - 1);
	}
	if (!why && tail.len)
		edit(ed, anchor, anchor, arena_strdup(a, tail.buf));
	if (!why && env.len)
		edit(ed, line_off(buf, len, cmd), line_off(buf, len, cmd), arena_strdup(a, env.buf));
	sbuf_release(&tail);
	sbuf_release(&env);
	return why;
}

static const char *unit_patch(struct arena *a, const char *buf, size_t len, const struct sg_unit *u,
			      const struct sg_choice *c, struct fix_edits *ed)
{
	switch (u->lang) {
	case SG_PY: return py_patch(a, buf, len, u, c, ed);
	case SG_YAML:
		for (size_t k = 0; k < c->n_sets; k++) {
			const struct sg_set *st = &c->sets[k];
			const char *val = spelled(a, &st->val, SG_YAML);
			/* a renamed key: null where the file writes it, the new one below; else the old name */
			yaml_set(a, buf, len, u->line, st->renames ? st->renames : st->key, val,
				 st->renames ? strrchr(st->key, '.') + 1 : NULL, ed);
		}
		return NULL;
	case SG_HARNESS: return harness_patch(a, buf, len, c, ed);
	case SG_RUNNER: return sg_runner_patch(a, u->path, u->line, buf, len, c, ed);
	case SG_MLM:
		if (strstr(u->path, ".yaml") || strstr(u->path, ".yml"))
			return sg_mlm_yaml_patch(a, buf, len, c, ed);
		return mlm_patch(a, buf, len, u->line, c, ed);
	default: return "cglint writes no patch for this kind of input yet";
	}
}

/* A unit's edits, all of them or none (a refused patch leaves no partial edits). */
static const char *unit_edits(struct arena *a, const char *buf, size_t len, const struct sg_unit *u,
			      const struct sg_choice *c, struct fix_edits *ed)
{
	size_t before = ed->n;
	const char *why = unit_patch(a, buf, len, u, c, ed);
	if (why)
		ed->n = before;
	return why;
}

/* 'respelled': the unit's spelling is patched, its setting is not. */
static void say(FILE *notes, const struct sg_unit *u, bool respelled, const char *why)
{
	if (notes)
		fprintf(notes, "cglint suggest: %s:%u%s%s: %s: %s\n", u->path, u->line, u->function ? ": " : "",
			u->function ? u->function : "", respelled ? "setting not patched (its spelling is)" : "not patched", why);
}

int sg_patch(const struct sg *s, const struct text_store *texts, bool diff, FILE *f, FILE *notes, size_t *files,
	     bool (*may_write)(void *ctx, const char *path), void *ctx)
{
	int rc = 0;
	*files = 0;
	struct arena *a = arena_new();
	for (size_t t = 0; t < text_count(texts); t++) {
		const char *buf;
		size_t len;
		const char *path = text_at(texts, t, &buf, &len);
		struct fix_edits ed = {0};
		for (size_t k = 0; k < sg_count(s); k++) {
			const struct sg_unit *u = sg_at(s, k);
			if (strcmp(u->path, path) || u->n_choices == 0)
				continue;
			const struct sg_choice *c = &u->choices[0];
			if (u->n_choices > 1)
				say(notes, u, u->spelling != NULL, u->unknown ? arena_printf(a, "the answer depends on %s; cglint suggest shows each branch, "
								 "and %.*s=VALUE on the command line picks one",
								 u->unknown, (int)strcspn(u->unknown, " "), u->unknown)
						  : "the answer depends on keys cglint cannot know (cglint suggest shows each branch)");
			/* a setting left as it is still takes the target's spelling */
			if (u->n_choices > 1 || !c->n_sets || (c->status != SG_SUGGEST && c->status != SG_NONE_FITS))
				c = u->spelling;
			if (!c)
				continue;
			if (!strcmp(path, "<stdin>") || path[0] == '<') {
				say(notes, u, false, "no file to change");
				continue;
			}
			const char *why = unit_edits(a, buf, len, u, c, &ed);
			if (why)
				say(notes, u, false, why);
		}
		size_t new_len;
		char *out = ed.n ? fix_apply(a, buf, len, ed.e, ed.n, &new_len) : NULL;
		free(ed.e);
		if (!out)
			continue;
		(*files)++;
		const char *why = NULL;
		if (diff)
			fix_diff(f, path, buf, len, out, new_len);
		else if (!may_write(ctx, path))
			rc = 2;
		else if (fix_write(path, out, new_len, &why)) {
			fprintf(stderr, "cglint suggest: --fix: cannot write %s: %s\n", path, why ? why : "write failed");
			rc = 2;
		}
	}
	arena_free(a);
	return rc;
}

const char *sg_spelled(struct arena *a, const struct value *v, enum sg_lang lang)
{
	return spelled(a, v, lang);
}

/* SPDX-License-Identifier: MIT */
/*
 * sg_runner: a suggestion for a script that runs Bridge's recipe runner (scripts/training/
 * run_recipe.py, train.sh, setup_experiment.py) as Hydra overrides on its command line, which
 * run_recipe.py applies last (training/utils/omegaconf_utils.py parse_hydra_overrides: "the
 * trailing KEY=VALUE override takes precedence"). A key the command line gives is changed in
 * place; a new one goes after the command's last word; a key inside a dict field
 * (dataset.dataset_kwargs.x) is added with '++', which Hydra takes whether or not the key is
 * there; the environment goes in export lines before the command. A companion that applies only
 * where a key cglint cannot see is set has no spelling on a command line and is left out (the
 * suggestion's text says where it applies).
 */
#include <ctype.h>
#include <string.h>

#include "base/mem.h"
#include "base/value.h"
#include "input/text.h"
#include "report/fix.h"
#include "suggest/sg_int.h"

/* The words a script runs Bridge's recipe runner with (args.c's program_of). */
static bool runs_runner(const char *s, size_t n)
{
	static const char *const names[] = {"run_recipe.py", "train.sh", "setup_experiment.py"};
	size_t k = 0;
	while (k < n && isspace((unsigned char)s[k]))
		k++;
	if (k < n && s[k] == '#')
		return false;
	for (size_t i = 0; i < sizeof(names) / sizeof(*names); i++) {
		size_t m = strlen(names[i]);
		for (size_t p = k; p + m <= n; p++)
			if (!memcmp(s + p, names[i], m) && (p + m == n || !isalnum((unsigned char)s[p + m])))
				return true;
	}
	return false;
}

/* Hydra's spelling of a value: lists in brackets without blanks, booleans and null lower case. */
static void hydra(struct sbuf *sb, const struct value *v)
{
	switch (v->kind) {
	case V_BOOL: sbuf_adds(sb, v->b ? "true" : "false"); break;
	case V_NULL: sbuf_adds(sb, "null"); break;
	case V_INT: sbuf_printf(sb, "%lld", v->i); break;
	case V_FLOAT: sbuf_printf(sb, "%g", v->f); break;
	case V_STR: sbuf_adds(sb, v->s); break;
	case V_LIST:
		sbuf_addc(sb, '[');
		for (size_t k = 0; k < v->n; k++) {
			sbuf_adds(sb, k ? "," : "");
			hydra(sb, &v->items[k]);
		}
		sbuf_addc(sb, ']');
		break;
	default: sbuf_adds(sb, "?"); break;
	}
}

/* One override as a shell word, quoted where the shell would glob or split it. */
static const char *override(struct arena *a, const struct sg_set *st)
{
	struct sbuf sb;
	sbuf_init(&sb);
	sbuf_printf(&sb, "%s%s=", sgt_dict_key(st->key) ? "++" : "", st->key);
	hydra(&sb, &st->val);
	bool plain = true;
	for (const char *p = sb.buf; *p; p++)
		plain &= isalnum((unsigned char)*p) || strchr("_.=+,/:-", *p);
	const char *w = plain ? arena_strdup(a, sb.buf) : arena_printf(a, "'%s'", sb.buf);
	sbuf_release(&sb);
	return w;
}

/* The word of the command line at 'col' (1-based) when it overrides 'key', as [*from, *to). */
static bool key_word(const char *s, size_t n, unsigned col, const char *key, size_t *from, size_t *to)
{
	if (!col || col > n)
		return false;
	size_t b = col - 1;
	while (b && !isspace((unsigned char)s[b - 1]))
		b--;
	size_t e = b;
	char q = 0;
	while (e < n && (q || !isspace((unsigned char)s[e]))) {
		if (s[e] == '\'' || s[e] == '"')
			q = q == s[e] ? 0 : q ? q : s[e];
		e++;
	}
	size_t k = b, m = strlen(key);
	while (k < e && strchr("'\"+", s[k]))
		k++;
	if (k + m >= e || strncmp(s + k, key, m) || s[k + m] != '=')
		return false;
	*from = b;
	*to = e;
	return true;
}

size_t sg_sh_code_end(const char *s, size_t n)
{
	size_t e = 0;
	for (char q = 0; e < n && (q || s[e] != '#' || !e || !isspace((unsigned char)s[e - 1])); e++)
		if (s[e] == '\'' || s[e] == '"')
			q = q == s[e] ? 0 : q ? q : s[e];
	while (e && isspace((unsigned char)s[e - 1]))
		e--;
	return e;
}

const char *sg_runner_patch(struct arena *a, const char *path, unsigned line, const char *buf, size_t len,
			    const struct sg_choice *c, struct fix_edits *ed)
{
	size_t ln;
	const char *s;
	unsigned first = line, last = line;     /* the command's lines, '\\' continuations followed */
	while (first > 1 && (s = text_line(buf, len, first - 1, &ln)) && ln && s[ln - 1] == '\\')
		first--;
	bool runner = false;
	for (;; last++) {
		if (!(s = text_line(buf, len, last, &ln)))
			return "the command does not end";
		runner |= runs_runner(s, ln);
		if (!ln || s[ln - 1] != '\\')
			break;
	}
	if (!runner)
		return "no recipe runner (run_recipe.py, train.sh, setup_experiment.py) on the command's lines";
	size_t ind = 0;         /* 's' is the last line */
	while (ind < ln && (s[ind] == ' ' || s[ind] == '\t'))
		ind++;
	struct sbuf tail, env;
	sbuf_init(&tail);
	sbuf_init(&env);
	for (size_t k = 0; k < c->n_sets; k++) {
		const struct sg_set *st = &c->sets[k];
		if (st->only_if)
			continue;
		if (!strncmp(st->key, "env.", 4)) {
			sbuf_printf(&env, "export %s=", st->key + 4);
			hydra(&env, &st->val);
			sbuf_addc(&env, '\n');
			continue;
		}
		const char *word = override(a, st), *at;
		size_t from, to, m;
		if (st->at.path && !strcmp(st->at.path, path) && st->at.line >= first && st->at.line <= last &&
		    (at = text_line(buf, len, st->at.line, &m)) && key_word(at, m, st->at.col, st->key, &from, &to)) {
			size_t base = (size_t)(at - buf);
			fix_edits_add(ed, (struct fix_edit){base + from, base + to, word, NULL});
			continue;
		}
		if (last > first)       /* a command over several lines: one override a line, at its indent */
			sbuf_printf(&tail, " \\\n%.*s%s", (int)ind, s, word);
		else
			sbuf_printf(&tail, " %s", word);
	}
	if (tail.len) {         /* after the last word, before a trailing comment */
		size_t at_end = (size_t)(s - buf) + sg_sh_code_end(s, ln);
		fix_edits_add(ed, (struct fix_edit){at_end, at_end, arena_strdup(a, tail.buf), NULL});
	}
	if (env.len) {
		size_t off = (size_t)(text_line(buf, len, first, &ln) - buf);
		fix_edits_add(ed, (struct fix_edit){off, off, arena_strdup(a, env.buf), NULL});
	}
	sbuf_release(&tail);
	sbuf_release(&env);
	return NULL;
}

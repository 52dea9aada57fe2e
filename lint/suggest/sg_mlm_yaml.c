/* SPDX-License-Identifier: MIT */
/*
 * sg_mlm_yaml: a suggestion as edits to a Megatron-LM functional-test model_config.yaml, written so
 * that tests/functional_tests/shell_test_utils/_run_training.sh (core_v0.19.0 L113-140) turns it
 * into the suggested command line: each MODEL_ARGS entry becomes the words "KEY VALUE", `true` the
 * bare switch, "[a b]" the words a b; ENV_VARS entries are exported as written. A flag the file
 * has gets its value in place (in the quotes it used); a new one goes under MODEL_ARGS after the
 * impl's entry, else after the map's last entry; an environment variable under ENV_VARS (made
 * before MODEL_ARGS when missing). A switch that must be off and an empty list have no spelling:
 * their entries are removed. A deprecated flag the suggestion renames (--cuda-graph-scope on
 * 0.18+) becomes the new one in its entry.
 *
 * The two sections are read line by line: these files are flat maps of one line an entry.
 * Anything else in the way (a value over several lines, a merge key, a section written on its
 * key's line, MODEL_ARGS_2 for a later run) is said, not guessed at.
 */
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "base/mem.h"
#include "base/value.h"
#include "report/fix.h"
#include "suggest/sg_int.h"

/* One 'KEY: VALUE' entry of a section; offsets in the text. */
struct entry {
	size_t key, key_len;
	size_t val, val_end;    /* the value, quotes included; equal when it is empty */
	size_t start, next;     /* its first line, and the offset after its last line */
	char quote;             /* '"', '\'' or 0 */
	bool one_line;          /* the value ends on the key's line */
};

/* A top-level map of the file. */
struct section {
	bool found, inline_value;       /* inline: 'KEY: {...}', 'KEY: *anchor' */
	bool odd;                       /* a line under it that is no entry, comment or continuation */
	size_t header, header_next;     /* its key's line, and the offset after it */
	size_t indent;                  /* its entries' */
	struct entry *e;
	size_t n, cap;
};

/* The line at 'at': its length without the line end; *next is the offset of the line after. */
static size_t line_at(const char *buf, size_t len, size_t at, size_t *next)
{
	const char *nl = memchr(buf + at, '\n', len - at);
	size_t end = nl ? (size_t)(nl - buf) : len;
	*next = nl ? end + 1 : len;
	return end - at - (end > at && buf[end - 1] == '\r');
}

/* The length of a plain key at s[0..n): up to ':' before a blank or the line's end; 0 if none. */
static size_t key_len(const char *s, size_t n)
{
	for (size_t k = 0; k < n; k++) {
		if (s[k] == ':' && (k + 1 == n || s[k + 1] == ' ' || s[k + 1] == '\t'))
			return k;
		if (s[k] == '#' && k && s[k - 1] == ' ')
			return 0;
	}
	return 0;
}

/* The end of the value at s[0..n): after its closing quote, else before a comment and blanks.
 * *closed is false for a quoted value that goes on past the line. */
static size_t value_end(const char *s, size_t n, char quote, bool *closed)
{
	*closed = true;
	if (quote) {
		for (size_t k = 1; k < n; k++) {
			if (quote == '"' && s[k] == '\\')
				k++;
			else if (s[k] == quote && quote == '\'' && k + 1 < n && s[k + 1] == '\'')
				k++;    /* '' inside single quotes */
			else if (s[k] == quote)
				return k + 1;
		}
		*closed = false;
		return n;
	}
	size_t e = 0;
	while (e < n && !(s[e] == '#' && (!e || s[e - 1] == ' ' || s[e - 1] == '\t')))
		e++;
	while (e && (s[e - 1] == ' ' || s[e - 1] == '\t'))
		e--;
	return e;
}

static size_t blanks(const char *s, size_t n)
{
	size_t k = 0;
	while (k < n && (s[k] == ' ' || s[k] == '\t'))
		k++;
	return k;
}

static void add_entry(struct section *sec, const char *buf, size_t at, size_t n, size_t next)
{
	const char *s = buf + at;
	size_t i = sec->indent, k = key_len(s + i, n - i);
	if (!k) {
		sec->odd = true;
		return;
	}
	if (sec->n == sec->cap)
		sec->e = mem_realloc(sec->e, (sec->cap = sec->cap ? 2 * sec->cap : 64) * sizeof(*sec->e));
	size_t v = i + k + 1;
	v += blanks(s + v, n - v);
	char q = v < n && (s[v] == '"' || s[v] == '\'') ? s[v] : 0;
	bool closed = true;
	size_t ve = v + value_end(s + v, n - v, q, &closed);
	sec->e[sec->n++] = (struct entry){.key = at + i, .key_len = k, .val = at + v, .val_end = at + ve,
					  .start = at, .next = next, .quote = q, .one_line = closed};
}

/* The top-level map 'name' (its first line at column 0 that is 'name:'). */
static void scan(const char *buf, size_t len, const char *name, struct section *sec)
{
	*sec = (struct section){.found = false};
	size_t m = strlen(name), next, n;
	for (size_t at = 0; at < len; at = next) {
		n = line_at(buf, len, at, &next);
		if (!sec->found) {
			if (n > m && !strncmp(buf + at, name, m) && key_len(buf + at, n) == m) {
				size_t v = m + 1 + blanks(buf + at + m + 1, n - m - 1);
				*sec = (struct section){.found = true, .header = at, .header_next = next,
							.inline_value = v < n && buf[at + v] != '#'};
			}
			continue;
		}
		size_t i = blanks(buf + at, n);
		if (i == n || buf[at + i] == '#')
			continue;               /* blank or a comment: inside the section either way */
		if (!i)
			break;                  /* the next top-level key */
		sec->indent = sec->indent ? sec->indent : i;
		if (i > sec->indent && sec->n) {        /* the previous value goes on here */
			sec->e[sec->n - 1].one_line = false;
			sec->e[sec->n - 1].next = next;
		} else if (i == sec->indent) {
			add_entry(sec, buf, at, n, next);
		} else {
			sec->odd = true;
		}
	}
}

/* The last entry named 'key' (argparse and cglint's front-end let the last one win), or NULL. */
static const struct entry *find(const char *buf, const struct section *sec, const char *key)
{
	size_t m = strlen(key);
	for (size_t k = sec->n; k-- > 0;)
		if (sec->e[k].key_len == m && !strncmp(buf + sec->e[k].key, key, m))
			return &sec->e[k];
	return NULL;
}

/* Whether a word reads back as itself unquoted. */
static bool plain_safe(const char *w)
{
	if (!*w || strchr("!&*|>'\"%@`{}[]?:#,-", w[0]))
		return false;
	for (const char *p = w; *p; p++)
		if (*p == ' ' || *p == '\t' || *p == '#' || (*p == ':' && (!p[1] || p[1] == ' ')))
			return false;
	return true;
}

/* A value as an entry writes it, in the quotes the file used there (a list always in some: bare
 * [a b] would be a YAML list); NULL for an off switch and an empty list, which have none. */
static const char *spelling(struct arena *a, const struct value *v, char quote)
{
	if ((v->kind == V_BOOL && !v->b) || (v->kind == V_LIST && !v->n))
		return NULL;
	if (v->kind == V_BOOL)
		return "true";
	const char *w;
	if (v->kind == V_LIST) {
		struct sbuf sb;
		sbuf_init(&sb);
		for (size_t k = 0; k < v->n; k++)
			sbuf_printf(&sb, "%s%s", k ? " " : "[", value_string(a, &v->items[k], true));
		sbuf_addc(&sb, ']');
		w = arena_strdup(a, sb.buf);
		sbuf_release(&sb);
		quote = quote ? quote : '"';
	} else {
		w = value_string(a, v, true);
		quote = quote || plain_safe(w) ? quote : '"';
	}
	if (quote == '\'' || (quote == '"' && strpbrk(w, "\"\\")))
		return strchr(w, '\'') ? NULL : arena_printf(a, "'%s'", w);
	return quote ? arena_printf(a, "\"%s\"", w) : w;
}

struct out {
	struct fix_edits *ed;
	size_t from;            /* the unit's first edit in ed */
	const char *eol;        /* the file's line end: "\r\n" where its first line has one */
};

/* An edit. fix_apply keeps one of two edits that start at one offset: an insertion there joins
 * the other, before the text it replaces; false for a second replacement there. */
static bool put(struct arena *a, struct out *o, size_t start, size_t end, const char *text)
{
	for (size_t k = o->from; k < o->ed->n; k++) {
		struct fix_edit *e = &o->ed->e[k];
		if (e->start != start)
			continue;
		if (start != end && e->start != e->end)
			return false;
		if (start != end)
			e->end = end;
		bool first = start == end && e->start != e->end;        /* before what the other replaces */
		e->text = arena_printf(a, "%s%s", first ? text : e->text, first ? e->text : text);
		return true;
	}
	fix_edits_add(o->ed, (struct fix_edit){start, end, text, NULL});
	return true;
}

/* One setting into a section: the value in place, its entries removed, or a line onto 'add'.
 * 'rename': the entry of 'key' the file has gets this key too (a deprecated flag renamed). */
static const char *set_one(struct arena *a, const char *buf, const struct section *sec, const char *key,
			   const struct value *v, const char *setting, struct out *o, struct sbuf *add, const char *rename)
{
	const struct entry *e = find(buf, sec, key);
	if (e && !e->one_line)
		return arena_printf(a, "%s: its value runs over several lines", key);
	bool none = (v->kind == V_BOOL && !v->b) || (v->kind == V_LIST && !v->n);
	const char *w = spelling(a, v, e ? e->quote : 0);
	if (!w && !none)
		return arena_printf(a, "%s has no spelling in its quotes", setting);
	if (w && e) {
		bool ok = !rename || put(a, o, e->key, e->key + e->key_len, rename);
		ok = ok && put(a, o, e->val, e->val_end, e->val == e->val_end ? arena_printf(a, " %s", w) : w);
		return ok ? NULL : "two edits replace the same text";
	}
	if (w) {
		sbuf_printf(add, "%*s%s: %s%s", (int)sec->indent, "", key, w, o->eol);
		return NULL;
	}
	if (!e && v->kind == V_BOOL)    /* off and not written: only a --no- flag could say it */
		return arena_printf(a, "%s has no spelling in MODEL_ARGS", setting);
	size_t m = strlen(key);
	for (size_t k = 0; k < sec->n; k++)     /* every entry of it: a duplicate would still set it */
		if (sec->e[k].key_len == m && !strncmp(buf + sec->e[k].key, key, m) &&
		    !put(a, o, sec->e[k].start, sec->e[k].next, ""))
			return "two edits replace the same text";
	return NULL;
}

/* 'text' at 'at', on a line of its own where the file's last line has no line end. */
static void insert(struct arena *a, struct out *o, const char *buf, size_t len, size_t at, const char *text)
{
	bool open = at == len && len && buf[len - 1] != '\n';
	put(a, o, at, at, arena_printf(a, "%s%s", open ? o->eol : "", text));     /* an insertion always joins */
}

/* A top-level key MODEL_ARGS_<digits>: the flags of a later run of the test. */
static const char *later_run(struct arena *a, const char *buf, size_t len)
{
	size_t next, n;
	for (size_t at = 0; at < len; at = next) {
		n = line_at(buf, len, at, &next);
		size_t k = 11;
		if (n <= k || strncmp(buf + at, "MODEL_ARGS_", k))
			continue;
		while (k < n && buf[at + k] >= '0' && buf[at + k] <= '9')
			k++;
		if (k > 11 && k < n && buf[at + k] == ':')
			return arena_strndup(a, buf + at, k);
	}
	return NULL;
}

static const char *sections_refused(struct arena *a, const char *buf, size_t len, const struct section *args,
				    const struct section *env)
{
	if (!args->found || args->inline_value || args->odd || !args->n)
		return "MODEL_ARGS is not a map of one 'KEY: VALUE' line an entry";
	if (env->found && (env->inline_value || env->odd))
		return "ENV_VARS is not a map of one 'KEY: VALUE' line an entry";
	if (find(buf, args, "<<"))
		return "MODEL_ARGS merges another map ('<<:'): the change belongs where that map is written";
	const char *later = later_run(a, buf, len);
	if (later)
		return arena_printf(a, "%s gives a later run of the test flags of its own, which cglint does not read",
				    later);
	return NULL;
}

static const char *patch(struct arena *a, const char *buf, size_t len, const struct sg_choice *c,
			 struct section *args, struct section *env, struct out *o)
{
	const char *why = sections_refused(a, buf, len, args, env);
	if (why)
		return why;
	env->indent = env->indent ? env->indent : args->indent;
	struct sbuf add_args, add_env;
	sbuf_init(&add_args);
	sbuf_init(&add_env);
	for (size_t k = 0; k < c->n_sets && !why; k++) {
		const struct sg_set *s = &c->sets[k];
		const char *setting = arena_printf(a, "%s = %s", s->key, s->val.kind == V_BOOL ? (s->val.b ? "true" : "false")
										: value_string(a, &s->val, true));
		const char *flag = sgt_mlm_flag(a, s->key);
		/* the file is the whole command line: a deprecated flag is written only here, if at all */
		const char *old = s->renames ? sgt_mlm_flag(a, s->renames) : NULL;
		if (old && !find(buf, args, old))
			old = NULL;
		if (s->only_if)
			why = arena_printf(a, "%s is written only where %s is set", setting, s->only_if);
		else if (!strncmp(s->key, "env.", 4))
			why = set_one(a, buf, env, s->key + 4, &s->val, setting, o, &add_env, NULL);
		else if (flag)
			why = set_one(a, buf, args, old ? old : flag, &s->val, setting, o, &add_args, old ? flag : NULL);
		else
			why = arena_printf(a, "%s has no flag spelling", setting);
	}
	if (!why && add_args.len) {     /* after the impl's entry, else after the map's last */
		const struct entry *impl = find(buf, args, sgt_mlm_flag(a, "model.cuda_graph_impl"));
		size_t at = impl ? impl->next : args->e[args->n - 1].next;
		insert(a, o, buf, len, at, add_args.buf);
	}
	if (!why && add_env.len) {      /* a new ENV_VARS goes before MODEL_ARGS, as the files order them */
		size_t at = !env->found ? args->header : env->n ? env->e[env->n - 1].next : env->header_next;
		insert(a, o, buf, len, at, env->found ? add_env.buf : arena_printf(a, "ENV_VARS:%s%s", o->eol, add_env.buf));
	}
	sbuf_release(&add_args);
	sbuf_release(&add_env);
	return why;
}

const char *sg_mlm_yaml_patch(struct arena *a, const char *buf, size_t len, const struct sg_choice *c,
			      struct fix_edits *ed)
{
	struct section args, env;
	scan(buf, len, "MODEL_ARGS", &args);
	scan(buf, len, "ENV_VARS", &env);
	const char *nl = memchr(buf, '\n', len);
	struct out o = {.ed = ed, .from = ed->n, .eol = nl && nl > buf && nl[-1] == '\r' ? "\r\n" : "\n"};
	const char *why = patch(a, buf, len, c, &args, &env, &o);
	free(args.e);
	free(env.e);
	if (why)
		ed->n = o.from; /* all of the unit's edits, or none */
	return why;
}

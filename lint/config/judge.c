/* SPDX-License-Identifier: MIT */
/* judge: one rule against one unit's facts. */
#include "config/judge.h"

#include <string.h>

#include "base/diag.h"
#include "base/mem.h"
#include "config/expr.h"
#include "config/fact.h"
#include "config/pack.h"
#include "config/target.h"

static struct expr_env env_of(const struct judge *j)
{
	return (struct expr_env){.facts = j->facts, .target = j->target, .arena = j->arena};
}

struct value judge_value(const struct judge *j, const char *key)
{
	return facts_value(j->facts, key);
}

bool judge_when(const struct judge *j, const struct rule *r)
{
	if (!r->when)
		return true;
	struct expr_env env = env_of(j);
	return expr_truth(pack_cond(r->when), &env) == TRI_TRUE;
}

struct first_loc {
	const char *key;                /* the key the position came from */
	const struct facts *facts;
	const struct fact *fact;        /* the fact it came from */
	const struct fact *placed;      /* take only a fact written on a line of its own, in its layer and file */
	struct loc loc;
};

static void take_loc(const char *path, void *ctx)
{
	struct first_loc *fl = ctx;
	const struct fact *f = fl->loc.path ? NULL : facts_get(fl->facts, path);
	const struct fact *p = fl->placed;
	if (f && p && (f->origin.path || strcmp(f->layer ? f->layer : "", p->layer ? p->layer : "") ||
		       strcmp(f->loc.path ? f->loc.path : "", p->loc.path)))
		return;
	if (f && f->loc.path) {
		fl->fact = f;
		fl->loc = f->loc;
		fl->key = f->key;
	}
}

void judge_expr_loc(const struct facts *f, const struct expr *x, const char **key, struct loc *loc)
{
	if (loc->path || !x)
		return;
	struct first_loc fl = {.facts = f};
	expr_each_path(x, take_loc, &fl);
	*loc = fl.loc;
	*key = fl.key;
}

/* Where a rule's diagnostic goes: its 'at' keys, then the keys its condition reads, in order. An
 * 'at' key placed at the call of a base recipe or helper (written in another file, an installed
 * package) gives way to a later one that the same function writes on a line of its own, so that
 * where a finding lands does not depend on which of them the environment lets cglint follow. */
static void take_at(const struct rule *r, const struct expr_env *env, struct first_loc *fl)
{
	for (size_t k = 0; k < r->n_at && !fl->loc.path; k++)
		if (!r->at_when[k] || expr_truth(pack_cond(r->at_when[k]), env) == TRI_TRUE)
			take_loc(r->at[k], fl);
}

static struct first_loc rule_at(const struct judge *j, const struct rule *r)
{
	struct first_loc fl = {.facts = j->facts};
	struct expr_env env = env_of(j);
	take_at(r, &env, &fl);
	if (fl.fact && fl.fact->origin.path) {  /* placed at a call: the function's own line wins */
		struct first_loc own = {.facts = j->facts, .placed = fl.fact};
		take_at(r, &env, &own);
		if (own.loc.path)
			fl = own;
	}
	if (!fl.loc.path && r->key)
		take_loc(r->key, &fl);
	if (!fl.loc.path && r->when)
		expr_each_path(pack_cond(r->when), take_loc, &fl);
	if (!fl.loc.path)
		fl.loc = (struct loc){j->unit_path, j->unit_line ? j->unit_line : 1, 1};
	return fl;
}

/* The keys an expression reads that are unknown, each with why. */
struct open_keys {
	const struct facts *facts;
	const struct target *target;    /* may be NULL */
	struct sbuf sb;
	size_t n, hidden;       /* listed; internal ones (facts_internal) left out */
	unsigned depth;         /* steps followed back (a step may read what an earlier one derived) */
	const char *seen[32];   /* the keys looked at, once each (an expression may read one twice) */
	size_t n_seen;
	bool given;             /* an input sets a key the expression reads */
	bool quiet;             /* only counting: the list is not written */
};

/* The nearest section above 'path' that is unknown for a reason (a model built from a Hugging
 * Face config), or NULL. */
static const struct fact *unknown_section(const struct facts *t, const char *path)
{
	char sect[256];
	if (strlen(path) >= sizeof(sect))
		return NULL;
	strcpy(sect, path);
	for (char *dot; (dot = strrchr(sect, '.'));) {
		*dot = '\0';
		const struct fact *s = facts_get(t, sect);
		if (s && s->val.kind == V_UNKNOWN && s->why)
			return s;
	}
	return NULL;
}

struct still_open {
	const struct facts *facts;
	bool any;
};

static void still_unknown(const char *path, void *ctx)
{
	struct still_open *so = ctx;
	so->any |= facts_value(so->facts, path).kind == V_UNKNOWN;
}

/* One more entry of the list: counted, and true where it is to be written (its separator is). */
static bool entry(struct open_keys *o)
{
	if (o->n++ && !o->quiet)
		sbuf_adds(&o->sb, ", ");
	return !o->quiet;
}

static void open_key(const char *path, void *ctx)
{
	struct open_keys *o = ctx;
	for (size_t k = 0; k < o->n_seen; k++)
		if (!strcmp(o->seen[k], path))
			return;
	if (o->n_seen < sizeof(o->seen) / sizeof(*o->seen))
		o->seen[o->n_seen++] = path;
	if (!strncmp(path, "target.", 7)) {     /* the run's target: only the GPU and TE may be unnamed */
		if (!strcmp(path + 7, "gpu_major") && o->target && !o->target->gpu_major && entry(o))
			sbuf_printf(&o->sb, "%s (no --gpu names the GPU)", path);
		if (!strcmp(path + 7, "te") && o->target && !o->target->te && entry(o))
			sbuf_printf(&o->sb, "%s (no --te names the Transformer Engine release)", path);
		return;
	}
	const struct fact *f = facts_get(o->facts, path);
	/* behind a step, a value a later step wrote (BR-04's cleared modules) is not the input's */
	if (f && f->loc.path && f->val.kind != V_UNKNOWN && !(o->depth && !strcmp(f->layer, "normalized")))
		o->given = true;
	if (facts_value(o->facts, path).kind != V_UNKNOWN)
		return;
	if (facts_internal(path)) {     /* derived by a step: the keys it was computed from instead */
		if (f && f->from && o->depth < 8) {
			struct still_open so = {o->facts, false};
			expr_each_path(f->from, still_unknown, &so);
			/* the keys it was computed from are known by now (a later step wrote them, as
			 * MC-04 writes the modules it read): what they were when it was */
			if (!so.any && f->why) {
				if (entry(o))
					sbuf_adds(&o->sb, f->why);
				return;
			}
			o->depth++;
			expr_each_path(f->from, open_key, o);
			o->depth--;
		} else {
			o->hidden++;
		}
		return;
	}
	if (!entry(o))
		return;
	const struct fact *up = f ? NULL : unknown_section(o->facts, path);
	const char *why = !strncmp(path, "runtime.", 8) ? "known only when the job runs"
			: up ? up->why : !f ? "no input sets it" : f->why ? f->why : "its value is not known";
	sbuf_printf(&o->sb, "%s (%s%s%s)", path, up ? up->key : "", up ? " is " : "", why);
}

/* 'quiet': only o->given, o->n and o->hidden, the list left unwritten */
static void open_keys(struct open_keys *o, const struct facts *f, const struct target *t, const struct expr *x,
		      const char *key, bool quiet)
{
	*o = (struct open_keys){.facts = f, .target = t, .quiet = quiet};
	sbuf_init(&o->sb);
	if (x)
		expr_each_path(x, open_key, o);
	if (key)
		open_key(key, o);
	if (!o->n && o->hidden && !quiet)
		sbuf_adds(&o->sb, "values derived from the config that are not known");
}

static const char *unknown_keys(const struct facts *f, const struct target *t, const struct expr *x, const char *key,
				struct arena *a)
{
	struct open_keys o;
	open_keys(&o, f, t, x, key, false);
	const char *s = o.sb.len ? arena_strdup(a, o.sb.buf) : NULL;
	sbuf_release(&o.sb);
	return s;
}

const char *judge_unknown_keys(const struct facts *f, const struct target *t, const struct expr *x, struct arena *a)
{
	return unknown_keys(f, t, x, NULL, a);
}

const char *judge_unknown_key(const struct facts *f, const struct target *t, const char *key, struct arena *a)
{
	return unknown_keys(f, t, NULL, key, a);
}

void judge_undecided(struct judge *j, const struct rule *r)
{
	struct open_keys o;
	/* counted first: most undecided checks read no key an input sets, and say nothing */
	open_keys(&o, j->facts, j->target, pack_cond(r->when), NULL, true);
	if (o.given && (o.n || o.hidden))
		open_keys(&o, j->facts, j->target, pack_cond(r->when), NULL, false);
	if (o.given && o.sb.len) {
		struct first_loc fl = rule_at(j, r);
		struct diag *d = diag_report(j->diags, r, fl.loc,
					     arena_printf(j->diags->arena, "check undecided: it depends on %s", o.sb.buf),
					     NULL, pack_mirror_for(r->mirrors, r->n_mirrors, j->target));
		if (d) {
			d->sev = SEV_NOTE;
			d->supp = DIAG_OPEN;
		}
	}
	sbuf_release(&o.sb);
}

/* Expand {key.path}, {value} and {suggestion} in a message or fix template. */
struct fill {
	const struct judge *j;
	const char *value, *suggestion;
};

static void put_fact(struct sbuf *sb, const char *name, size_t len, const void *ctx)
{
	const struct fill *f = ctx;
	if (len == 5 && !strncmp(name, "value", 5)) {
		sbuf_adds(sb, f->value ? f->value : "");
	} else if (len == 10 && !strncmp(name, "suggestion", 10)) {
		if (f->suggestion)
			sbuf_printf(sb, "; did you mean '%s'?", f->suggestion);
	} else {
		struct value v = facts_value(f->j->facts, arena_strndup(f->j->arena, name, len));
		value_render(sb, &v, true);
	}
}

static const char *interpolate(const struct judge *j, const char *tmpl, const char *value, const char *suggestion)
{
	if (!tmpl)
		return NULL;
	struct sbuf sb;
	sbuf_init(&sb);
	struct fill f = {j, value, suggestion};
	sbuf_template(&sb, tmpl, put_fact, &f);
	const char *s = arena_strdup(j->diags->arena, sb.buf);
	sbuf_release(&sb);
	return s;
}

/* The other keys a finding comes from: each one its condition (or its 'at' keys) reads that is
 * set on another line than the finding's, as a note saying what it holds there. */
#define JUDGE_MAX_NOTES 8

struct roles {
	const struct judge *j;
	struct loc at;                  /* the finding's own position */
	const char *keys[JUDGE_MAX_NOTES];
	struct diag_note notes[JUDGE_MAX_NOTES];
	size_t n;
};

static void add_role(const char *path, void *ctx)
{
	struct roles *rs = ctx;
	const struct fact *f = facts_get(rs->j->facts, path);
	const char *leaf = strrchr(path, '.');
	if (!f || !f->loc.path || !f->loc.line || rs->n == JUDGE_MAX_NOTES || (leaf ? leaf[1] : path[0]) == '_')
		return;
	if (!strcmp(f->loc.path, rs->at.path ? rs->at.path : "") && f->loc.line == rs->at.line)
		return;
	for (size_t k = 0; k < rs->n; k++)
		if (!strcmp(rs->keys[k], f->key) || (rs->notes[k].loc.line == f->loc.line &&
						      !strcmp(rs->notes[k].loc.path, f->loc.path)))
			return;
	/* the value as written, and as the checks see it when normalization changed it */
	struct sbuf sb, now, was;
	sbuf_init(&sb);
	sbuf_init(&now);
	sbuf_init(&was);
	struct value v = facts_value(rs->j->facts, path);
	value_render(&now, &v, true);
	value_render(&was, &f->raw, true);
	const struct fact *w = f->written_as ? facts_get(rs->j->facts, f->written_as) : NULL;
	if (w) {                        /* this line writes another key, which the rule reads as this one */
		struct sbuf wrote;
		sbuf_init(&wrote);
		value_render(&wrote, &w->raw, true);
		sbuf_printf(&sb, "%s is %s here (read as %s: %s)", w->key, wrote.buf, f->key, now.buf);
		sbuf_release(&wrote);
	} else if (f->raw.kind == V_UNKNOWN) { /* computed from what this line sets (a renamed key) */
		sbuf_printf(&sb, "%s comes from this line (%s once normalized)", f->key, now.buf);
	} else {
		sbuf_printf(&sb, "%s is %s here", f->key, was.buf);
	}
	if (!w && f->raw.kind != V_UNKNOWN && strcmp(was.buf, now.buf))
		sbuf_printf(&sb, " (%s once normalized)", now.buf);
	sbuf_release(&now);
	sbuf_release(&was);
	sbuf_adds(&sb, ", which the rule's condition reads");
	rs->keys[rs->n] = f->key;
	rs->notes[rs->n++] = (struct diag_note){f->loc, arena_strdup(rs->j->diags->arena, sb.buf)};
	sbuf_release(&sb);
}

static void attach_roles(const struct judge *j, const struct rule *r, struct diag *d)
{
	if (d->n_notes || !d->loc.path)
		return;
	struct roles rs = {.j = j, .at = d->loc};
	for (size_t k = 0; k < r->n_at; k++)
		add_role(r->at[k], &rs);
	if (r->key)
		add_role(r->key, &rs);
	if (r->when)
		expr_each_path(pack_cond(r->when), add_role, &rs);
	if (!rs.n)
		return;
	struct diag_note *notes = arena_alloc(j->diags->arena, rs.n * sizeof(*notes));
	memcpy(notes, rs.notes, rs.n * sizeof(*notes));
	d->notes = notes;
	d->n_notes = rs.n;
}

static const char *leaf_of(const char *key)
{
	const char *dot = strrchr(key, '.');
	return dot ? dot + 1 : key;
}

static bool word_char(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
}

/* A finding on a line where the input wrote another key than the one the message names (MCore's
 * message says cuda_graph_modules, the line cuda_graph_scope): the message names the key as
 * written, and the one it is read as only in the reason. */
static const char *as_written(const struct judge *j, const char *key, const char *msg)
{
	const struct fact *f = key && msg ? facts_get(j->facts, key) : NULL;
	if (!f || !f->written_as)
		return msg;
	const char *from = leaf_of(f->key), *to = leaf_of(f->written_as);
	size_t n = strlen(from);
	struct sbuf sb;
	sbuf_init(&sb);
	bool any = false;
	for (const char *p = msg; *p;) {
		const char *hit = strstr(p, from);
		while (hit && ((hit > msg && word_char(hit[-1])) || word_char(hit[n])))
			hit = strstr(hit + 1, from);
		if (!hit) {
			sbuf_adds(&sb, p);
			break;
		}
		sbuf_printf(&sb, "%.*s%s", (int)(hit - p), p, to);
		p = hit + n;
		any = true;
	}
	if (any)
		sbuf_printf(&sb, " (%s is read as %s: %s)", to, from, f->moved_by ? f->moved_by : "normalized");
	const char *out = any ? arena_strdup(j->diags->arena, sb.buf) : msg;
	sbuf_release(&sb);
	return out;
}

/* The rule's fix in the language of the input the finding is in. */
static const char *fix_text(const struct judge *j, const struct rule *r, struct loc loc)
{
	struct value harness = facts_value(j->facts, "perf._harness"), mlm = facts_value(j->facts, "args._validate_args");
	size_t n = loc.path ? strlen(loc.path) : 0;
	if (r->fix_harness && harness.kind == V_BOOL && harness.b)
		return r->fix_harness;
	if (r->fix_mlm && mlm.kind == V_BOOL && mlm.b)
		return r->fix_mlm;
	if (r->fix_python && n > 3 && !strcmp(loc.path + n - 3, ".py"))
		return r->fix_python;
	return r->head.fix;
}

void judge_report(struct judge *j, const struct rule *r, struct loc loc, const char *value, const char *suggestion)
{
	const char *key = NULL;
	if (!loc.path) {
		struct first_loc fl = rule_at(j, r);
		loc = fl.loc;
		key = fl.key;
	}
	struct diag *d = diag_report(j->diags, r, loc, as_written(j, key, interpolate(j, r->message, value, suggestion)),
				     interpolate(j, fix_text(j, r, loc), value, suggestion),
				     pack_mirror_for(r->mirrors, r->n_mirrors, j->target));
	if (d && key)
		d->key = arena_strdup(j->diags->arena, key);
	if (d)
		attach_roles(j, r, d);
}

/* SPDX-License-Identifier: MIT */
/* recipe: Python recipe functions as units, and the recipes launchers name (see recipe.h). */
#define _DEFAULT_SOURCE /* realpath */
#include "run/recipe.h"

#include <ctype.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "base/mem.h"
#include "config/expr.h"
#include "config/fact.h"
#include "config/fields.h"
#include "config/pack.h"
#include "config/target.h"
#include "front/py/fe_py.h"
#include "front/py/py_mod.h"
#include "front/py/py_text.h"
#include "input/pyenv.h"
#include "input/text.h"
#include "run/bridge_py.h"
#include "run/bridge_src.h"
#include "run/lint.h"
#include "run/paths.h"
#include "run/unit.h"

/* The GPU a recipe names, where no --gpu or .cglint.yaml gpu is given: Bridge names recipes and
 * their folders after it (perf_recipes/llama/b200/llama3.py, ..._8gpu_gb200_bf16_config). The
 * function's name first, then the file name and the three folders above it (the real path, so
 * that 'cglint llama3.py' inside b200/ sees it), nearest last wins. Names only, never "sm_90". */
static const char *recipe_gpu(const char *path, const char *fn, int *major, const char **from)
{
	static const char *const names[] = {"gb300", "gb200", "b300", "b200", "h200", "h100", "a100"};
	char *real = realpath(path, NULL);
	const char *tail = real ? real : path;
	int slashes = 0;        /* keep the file name and the three folders above it */
	for (const char *p = tail + strlen(tail); p > tail; p--)
		if (p[-1] == '/' && ++slashes == 4) {
			tail = p;
			break;
		}
	const char *where[2] = {fn, tail}, *found = NULL;
	for (int w = 0; w < 2 && !found; w++) {
		for (const char *p = where[w]; *p;) {
			while (*p && !isalnum((unsigned char)*p))
				p++;
			const char *start = p;
			while (isalnum((unsigned char)*p))
				p++;
			for (size_t k = 0; k < sizeof(names) / sizeof(names[0]); k++)
				if ((size_t)(p - start) == strlen(names[k]) && !strncasecmp(start, names[k], strlen(names[k])))
					found = names[k];
		}
		if (found && !target_parse_gpu(found, major))
			*from = w == 0 ? "the function name" : "the recipe path";
		else
			found = NULL;
	}
	free(real);
	return found;
}

/* A YAML mapping is a fact of its own ("given(env_vars)", "comm_overlap != null" ask of it): a
 * recipe that sets keys under a section sets the section too, at its first key, with as many
 * entries as it names: the distinct "section.child" heads among its keys, counted in one pass.
 * A key set again adds nothing: each key is read at its first write ('first' holds its index).
 * A section placed as its keys are: at 'place' when given, at the call in this file for one a
 * followed base recipe or helper wrote (its line the origin), never in the installed file. */
static void python_sections(struct facts *t, const struct py_key *keys, size_t n, const struct loc *place)
{
	struct strmap first = {0}, heads = {0}, sections = {0};  /* borrowed ranges of the keys */
	size_t *entries = NULL, n_sections = 0, at;
	bool *firsts = mem_alloc((n ? n : 1) * sizeof(*firsts)), added;
	for (size_t k = 0; k < n; k++) {
		const char *key = keys[k].key;
		size_t len = strlen(key);
		strmap_ref(&first, key, len, strmap_hash(key, len), k, &firsts[k]);
		if (!firsts[k])
			continue;
		for (const char *dot = strchr(key, '.'); dot; dot = strchr(dot + 1, '.')) {
			size_t m = (size_t)(dot - key), head = m + 1 + strcspn(dot + 1, ".");
			strmap_ref(&heads, key, head, strmap_hash(key, head), 0, &added);
			if (!added)
				continue;
			size_t *sec = strmap_ref(&sections, key, m, strmap_hash(key, m), n_sections, &added);
			if (added) {
				entries = mem_realloc(entries, (n_sections + 1) * sizeof(*entries));
				entries[n_sections++] = 0;
			}
			entries[*sec]++;
		}
	}
	for (size_t k = 0; k < n; k++) {
		const char *key = keys[k].key;
		if (!firsts[k])
			continue;
		for (const char *dot = strchr(key, '.'); dot; dot = strchr(dot + 1, '.')) {
			const char *prefix = arena_strndup(t->arena, key, (size_t)(dot - key));
			if (facts_get(t, prefix) || !strmap_get(&sections, key, (size_t)(dot - key), &at))
				continue;
			struct loc l = place ? *place : keys[k].via.path ? keys[k].via : keys[k].loc;
			struct fact *f = facts_set(t, prefix, (struct value){.kind = V_MAP, .n = entries[at], .loc = l}, l,
						   "config");
			f->origin = place || keys[k].via.path ? keys[k].loc : (struct loc){0};
		}
	}
	strmap_release(&first);
	strmap_release(&heads);
	strmap_release(&sections);
	free(entries);
	free(firsts);
}

static void reads_gpu(const char *path, void *ctx)
{
	*(bool *)ctx |= !strncmp(path, "target.gpu", 10);
}

/* A finding placed at a call in this file about a key the callee wrote: the callee's line as a
 * related location (the call carries the finding, so a suppression there covers it). */
static void where_written(struct lint_run *r, struct diag *d, const struct py_unit *pu)
{
	const struct py_key *src = NULL;
	size_t m = d->key ? strlen(d->key) : 0;
	for (size_t k = 0; d->key && k < pu->n_keys; k++)       /* the key, or one under it (env_vars.X) */
		if (pu->keys[k].via.path && !strncmp(pu->keys[k].key, d->key, m) &&
		    (!pu->keys[k].key[m] || pu->keys[k].key[m] == '.') && (!src || !pu->keys[k].key[m]))
			src = &pu->keys[k];     /* the last write wins, as in the facts */
	if (!src || src->via.line != d->loc.line || strcmp(src->via.path, d->loc.path ? d->loc.path : ""))
		return;
	struct diag_note *notes = arena_alloc(r->arena, (d->n_notes + 1) * sizeof(*notes));
	if (d->n_notes)
		memcpy(notes, d->notes, d->n_notes * sizeof(*notes));
	notes[d->n_notes] = (struct diag_note){src->loc, arena_printf(r->arena, "%s is written here", src->key)};
	d->notes = notes;
	d->n_notes++;
}

/* The modules read to follow calls since the k-th, into the run's texts: findings, suppressions
 * and fixes may point into them. */
static void keep_texts(struct lint_run *r, size_t k)
{
	for (; k < fe_py_session_count(r->py); k++) {
		const char *mpath, *mbuf;
		size_t mlen;
		fe_py_session_file(r->py, k, &mpath, &mbuf, &mlen);
		text_put(r->texts, mpath, mbuf, mlen);
	}
}

/* The Megatron-Bridge a recipe's imports reached, once a run: said with -v, and a warning when
 * the target is another release (the packs judge what that release does, not this one). */
static void bridge_release(struct lint_run *r, struct loc at, const struct target *tg)
{
	for (; !r->bridge_root && r->bridge_scanned < fe_py_session_count(r->py); r->bridge_scanned++) {
		const char *mpath, *mbuf, *root;
		size_t mlen;
		fe_py_session_file(r->py, r->bridge_scanned, &mpath, &mbuf, &mlen);
		int rel = py_mod_bridge_release(r->arena, mpath, &root);
		if (!rel)
			continue;
		r->bridge_root = root;
		char v[16], t[16];
		target_version_str(rel, v);
		if (r->opts->verbose)
			unit_say(r, "cglint: Megatron-Bridge %s at %s\n", v, root);
		if (tg->bridge != rel && tg->bridge != TARGET_NO_BRIDGE)
			diag_input(&r->diags, "CG922", at, "this recipe imports Megatron-Bridge %s (%s), but the target is "
				   "Bridge %s: findings follow %s's checks; pass --bridge %s", v, root,
				   target_version_str(tg->bridge, t), t, v);
		else
			bridge_src_check(r, at, tg);    /* the same release: does its source say what the packs do? */
	}
}

/* "sys.path of /venv/bin/python (cached): /a, /b" for -v. */
static const char *python_path(struct arena *a)
{
	size_t n;
	const char *const *dirs = pyenv_path(&n);
	struct sbuf sb;
	sbuf_init(&sb);
	sbuf_printf(&sb, "%s: %zu %s", pyenv_describe(), n, n == 1 ? "folder" : "folders");
	for (size_t k = 0; k < n; k++)
		sbuf_printf(&sb, "%s%s", k ? ", " : " (", dirs[k]);
	sbuf_adds(&sb, n ? ")" : "");
	const char *s = arena_strdup(a, sb.buf);
	sbuf_release(&sb);
	return s;
}

/* A function's keys as facts under 'layer': a key a followed base recipe or helper wrote is placed
 * at the call in this file, or at 'at' when given (a launcher's --recipe word); the sections a
 * config class of known defaults built keep those defaults (RNGConfig(te_rng_tracker=True)). */
static void unit_facts(struct lint_run *r, const struct py_unit *pu, struct facts *t, const struct target *tg,
		       const struct loc *at, const char *layer)
{
	for (size_t k = 0; k < pu->n_keys; k++) {
		const struct py_key *pk = &pu->keys[k];
		bool placed = at || pk->via.path;
		struct fact *f = facts_set(t, pk->key, pk->val, at ? *at : placed ? pk->via : pk->loc, layer);
		f->why = pk->why;
		f->origin = placed ? pk->loc : (struct loc){0};
		f->form = pk->form == PY_KEYWORD ? FACT_KEYWORD : pk->form == PY_DECLARED ? FACT_DECLARED : FACT_SET;
	}
	python_sections(t, pu->keys, pu->n_keys, at);
	for (size_t c = 0; c < pu->n_closed; c++)       /* env_vars left at ConfigContainer's dict() */
		if (!strcmp(pu->closed[c], "env_vars") && !pu->env_spread)
			facts_close_under(t, "env_vars");
	for (size_t c = 0; c < pu->n_closed; c++)
		for (size_t k = 0; k < r->pack->n_defaults; k++) {
			const struct pack_default *d = &r->pack->defaults[k];
			size_t m = strlen(pu->closed[c]);
			if (!strncmp(d->key, pu->closed[c], m) && d->key[m] == '.' &&
			    pack_applies(&d->mcore, &d->bridge, tg) && !facts_get(t, d->key))
				facts_set(t, d->key, d->val, (struct loc){0}, "default");
		}
}

struct py_session *recipe_py_session(const struct pack *p, struct arena *a)
{
	struct py_session *py = fe_py_session_new(a);
	const char **fields = NULL;
	size_t n = 0;
	for (size_t k = 0; k < p->n_steps; k++)
		for (size_t i = 0; i < p->steps[k]->n; i++) {
			const char *key = p->steps[k]->keys[i];
			if (strncmp(key, "model.", 6) || strchr(key + 6, '.') || facts_internal(key))
				continue;
			fields = mem_realloc(fields, (n + 1) * sizeof(*fields));
			fields[n++] = key + 6;
		}
	fe_py_session_replayed(py, fields, n);
	free(fields);
	return py;
}

/* The run's Python modules, made once (or the session's, kept across runs). */
static struct py_session *py_session_of(struct lint_run *r)
{
	if (!r->py)
		r->py = recipe_py_session(r->pack, r->arena);
	return r->py;
}

/* The first of the modules read from disk that this run has not put in its texts yet: all of a
 * session kept across runs (an earlier run may have read what this one follows). */
static size_t read_so_far(const struct lint_run *r)
{
	return r->py_kept ? 0 : fe_py_session_count(r->py);
}

bool recipe_launch(struct lint_run *r, const char *script, const char *name, struct loc at, struct facts *t,
		   const struct target *tg)
{
	py_session_of(r);
	size_t read_before = read_so_far(r);
	struct arena *a = arena_new();
	/* as Bridge's load_recipe: a benchmark recipe first, else a library one */
	static const char *const packages[] = {"megatron.bridge.perf_recipes", "megatron.bridge.recipes"};
	const struct py_unit *pu = NULL;
	const char *found;
	for (size_t k = 0; k < 2 && !pu; k++)
		pu = bridge_py_import(r, a, script, packages[k], name, "    return _imported()\n");
	keep_texts(r, read_before);
	if (pu) {
		unit_facts(r, pu, t, tg, &at, "recipe");
		bridge_release(r, at, tg);
		if (r->opts->verbose)
			unit_say(r, "%s:%u:%u: note: recipe %s: %zu keys read\n", at.path, at.line, at.col, name, pu->n_keys);
	} else if (fe_py_session_full(r->py)) {
		diag_input(&r->diags, "CG921", at, "cannot find recipe '%s': this run reached cglint's limit of %u "
			   "Python modules (%u MiB) read, so its module went unread; lint this script with fewer files at "
			   "once; what it sets is unknown", name, FE_PY_MAX_FILES, FE_PY_MAX_BYTES >> 20);
	} else if ((found = py_mod_find(a, script, "megatron.bridge.recipes", 0))) {
		diag_input(&r->diags, "CG921", at, "cannot find recipe '%s': %s defines or exports no such function "
			   "that cglint can read; what it sets is unknown", name, found);
	} else {
		diag_input(&r->diags, "CG924", at, "cannot find recipe '%s': no megatron.bridge package above this "
			   "script, in its src/, nor on the Python path%s; what it sets is unknown", name,
			   r->opts->verbose ? "" : " (-v shows the path)");
		if (r->opts->verbose && !r->said_python_path) {
			unit_say(r, "cglint: Python search path: %s\n", python_path(r->arena));
			r->said_python_path = true;
		}
	}
	arena_free(a);
	return pu != NULL;
}

/* One recipe function judged: its facts, the layers over them, its findings named after it. */
static void judge_unit(struct lint_run *r, const char *path, const struct py_unit *pu, const struct target *tg,
		       bool say)
{
	struct target utg = *tg;
	const char *gpu = NULL, *gpu_from = NULL;
	if (!tg->gpu && (gpu = recipe_gpu(path, pu->name, &utg.gpu_major, &gpu_from)))
		utg.gpu = gpu;
	size_t unknown = 0;
	for (size_t k = 0; k < pu->n_keys; k++)
		unknown += pu->keys[k].val.kind == V_UNKNOWN;
	if (say)
		unit_say(r, "%s:%u:%u: note: %s: %zu keys read, %zu unknown%s%s%s%s\n", path, pu->loc.line,
			pu->loc.col, pu->name, pu->n_keys, unknown, gpu ? "; GPU " : "", gpu ? gpu : "",
			gpu ? " from " : "", gpu ? gpu_from : "");
	struct arena *ua = arena_new();
	struct facts t;
	facts_init(&t, ua);
	unit_facts(r, pu, &t, &utg, NULL, "config");
	bridge_py_mixed_precision(r, path, &t);
	size_t first = r->diags.n;
	/* a finding no key places goes on the def line */
	unit_bridge_layers(r, &(struct unit_at){path, pu->loc.line, pu->name}, &t, &utg, false, pu->env_spread);
	/* findings name the function they are about, and the GPU where the recipe named it; the
	 * name outlives the parse ('Class.method' is made in the parse's arena) */
	const char *name = first < r->diags.n ? arena_strdup(r->arena, pu->name) : NULL;
	for (size_t k = first; k < r->diags.n; k++) {
		struct diag *d = &r->diags.items[k];
		const struct rule *rule = (const struct rule *)d->rule;
		bool arch = false;
		if (gpu && rule && rule->when)
			expr_each_path(pack_cond(rule->when), reads_gpu, &arch);
		d->message = arch ? arena_printf(r->arena, "%s (GPU %s, from %s) (in %s)", d->message, gpu,
						 gpu_from, name)
				  : arena_printf(r->arena, "%s (in %s)", d->message, name);
		d->unit = name;
		where_written(r, d, pu);
	}
	facts_release(&t);
	arena_free(ua);
}

#define MAX_PATHS 4     /* paths judged apart, a unit: the first undecided ifs whose branches multiply to it */

/* The unit again on each path through its first undecided if statements (paths.h). */
static void judge_paths(struct lint_run *r, const char *path, const char *buf, size_t len, const struct py_unit *pu,
			const struct target *tg, size_t first)
{
	size_t nf = 0, total = 1;
	while (nf < pu->n_forks && total * pu->forks[nf].n_paths <= MAX_PATHS)
		total *= pu->forks[nf++].n_paths;
	if (total < 2)
		return;
	struct diag_list lists[MAX_PATHS];
	const char *names[MAX_PATHS];
	struct arena *arenas[MAX_PATHS];
	unsigned bytes[MAX_PATHS], picks[MAX_PATHS];
	for (size_t p = 0; p < total; p++) {
		struct sbuf sb;
		sbuf_init(&sb);
		for (size_t k = 0, rest = p; k < nf; k++, rest /= pu->forks[k - 1].n_paths) {
			const struct py_fork *fk = &pu->forks[k];
			bytes[k] = fk->byte;
			picks[k] = (unsigned)(rest % fk->n_paths);
			if (fk->n_paths == 2)
				sbuf_printf(&sb, "%s'%s' is %s", k ? " and " : "", fk->cond, picks[k] ? "false" : "true");
			else
				sbuf_printf(&sb, "%sthe if at line %u takes its branch %u of %u", k ? " and " : "", fk->loc.line,
					    picks[k] + 1, fk->n_paths);
		}
		names[p] = arena_strdup(r->arena, sb.buf);
		sbuf_release(&sb);
		diag_init(&lists[p], r->diags.arena, r->diags.rules, r->diags.filter);
		arenas[p] = arena_new();
		struct py_file py;
		if (fe_py_parse(arenas[p], r->py, &(struct py_choice){bytes, picks, nf, pu->name}, path, buf, len, &py))
			continue;
		for (size_t u = 0; u < py.n_units; u++)
			if (!strcmp(py.units[u].name, pu->name)) {
				size_t s = r->diags.n;
				judge_unit(r, path, &py.units[u], tg, false);
				for (size_t k = s; k < r->diags.n; k++)
					diag_push(&lists[p], &r->diags.items[k]);
				r->diags.n = s;
				break;
			}
	}
	paths_merge(&r->diags, first, lists, names, total);
	for (size_t p = 0; p < total; p++) {
		diag_release(&lists[p]);
		arena_free(arenas[p]);
	}
}

static bool sets_graph_key(const struct py_unit *pu)
{
	for (size_t k = 0; k < pu->n_keys; k++)
		if (py_text_is_graph_key(pu->keys[k].key))
			return true;
	return false;
}

/* Whether a function of the file builds a Bridge config without a CUDA-graph key of its own: more
 * of the sections it writes are fields of the target's ConfigContainer than are not (unit.c's
 * test on a unit's facts, here on its keys). */
static bool builds_config(struct lint_run *r, const struct py_file *py, const struct target *tg)
{
	for (size_t u = 0; u < py->n_units; u++) {
		const struct py_unit *pu = &py->units[u];
		if (pu->over || sets_graph_key(pu))
			continue;
		int vote = 0;
		for (size_t k = 0; k < pu->n_keys; k++) {
			const char *key = pu->keys[k].key, *prev = k ? pu->keys[k - 1].key : "";
			size_t len = strcspn(key, ".");
			if (strncmp(prev, key, len) || prev[len] != key[len])   /* once for a run of its keys */
				vote += fields_section_vote(r->pack, tg, key);
		}
		if (vote > 0)
			return true;
	}
	return false;
}

/* For a file no unit of which was reported: its Megatron imports not followed (CG924) where a
 * function builds a Bridge config through them, which may get its CUDA-graph keys there (a base
 * recipe, a helper): said, never a silent pass. A call of one of Bridge's recipes builds one,
 * whatever the caller writes (return llama3_8b_pretrain_config()). */
static void unread_base(struct lint_run *r, const struct py_file *py, const struct target *tg)
{
	bool megatron = false, recipe = false;
	for (size_t k = 0; k < py->n_notes; k++) {
		megatron |= py->notes[k].megatron;
		recipe |= py->notes[k].recipe;
	}
	if (recipe || (megatron && builds_config(r, py, tg)))
		for (size_t k = 0; k < py->n_notes; k++)
			if (py->notes[k].megatron)
				diag_input(&r->diags, "CG924", py->notes[k].loc, "%s", py->notes[k].text);
}

/* A Python recipe: each function that sets a CUDA-graph key (itself, or through a helper or a
 * base recipe fe_py follows) is a Bridge config of its own, judged like a partial override
 * (keys it does not set are unknown unless --assume-defaults), except the sections a config
 * class of known defaults built. A file without one gives no unit and no diagnostic, except its
 * syntax errors when its text mentions a CUDA-graph key: the broken statement may be the one that
 * set it, so such a file is never said to have no settings (CG917, as python3 -m py_compile
 * refuses it); and the Megatron imports not followed (CG924) of a function that builds a Bridge
 * config through them, as a team's recipe on Bridge's base recipe does. Python that never names
 * a key stays quiet, broken or not. */
void recipe_units(struct lint_run *r, const char *path, const char *buf, size_t len, const struct target *tg)
{
	struct arena *a = arena_new();
	struct py_file py;
	py_session_of(r);
	size_t read_before = read_so_far(r);
	if (fe_py_parse(a, r->py, NULL, path, buf, len, &py)) {
		diag_input(&r->diags, "CG917", (struct loc){path, 1, 1}, "the Python parser could not run on this file");
		arena_free(a);
		return;
	}
	keep_texts(r, read_before);
	bool reported = false;
	for (size_t u = 0; u < py.n_units; u++) {
		const struct py_unit *pu = &py.units[u];
		if (pu->over) {         /* whatever it sets, it is not read: never a silent pass */
			diag_input(&r->diags, "CG903", pu->loc,
				   "'%s' writes more than %u config records (an object copied into itself, or "
				   "helpers that repeat one another); refusing to read it", pu->name, FE_PY_MAX_RECS);
			continue;
		}
		bool graph = sets_graph_key(pu);
		if ((!graph || pu->helper) && !r->opts->on_facts &&   /* cglint facts shows every function */
		    (pu->helper || !r->opts->on_unit))                /* suggest every recipe */
			continue;
		if (graph)
			unit_bridge_input(r, path, pu->loc, tg, "recipe");
		if (!reported) {
			for (size_t k = 0; k < py.n_errors; k++)
				diag_input(&r->diags, "CG917", py.errors[k], "Python syntax error: %s", py.error_what[k]);
			for (size_t k = 0; k < py.n_notes; k++)
				diag_input(&r->diags, py.notes[k].megatron ? "CG924" : "CG921", py.notes[k].loc, "%s",
					   py.notes[k].text);
			bridge_release(r, pu->loc, tg);
			if (r->opts->verbose && !r->said_python_path && strcmp(pyenv_describe(), "not needed")) {
				unit_say(r, "cglint: Python search path: %s\n", python_path(r->arena));
				r->said_python_path = true;
			}
			reported = true;
		}
		size_t first = r->diags.n;
		judge_unit(r, path, pu, tg, r->opts->verbose);
		if (pu->n_forks && !r->opts->on_facts && !r->opts->on_unit)
			judge_paths(r, path, buf, len, pu, tg, first);
	}
	if (!reported)
		unread_base(r, &py, tg);
	if (!reported && py.n_errors && py_text_mentions_graph_key(buf, len))
		for (size_t k = 0; k < py.n_errors; k++)
			diag_input(&r->diags, "CG917", py.errors[k], "Python syntax error: %s", py.error_what[k]);
	arena_free(a);
}

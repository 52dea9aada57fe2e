/* SPDX-License-Identifier: MIT */
/* bridge_py: what Megatron-Bridge's Python does to a recipe beyond its own code (see bridge_py.h). */
#include "run/bridge_py.h"

#include <ctype.h>
#include <string.h>

#include "base/mem.h"
#include "config/fact.h"
#include "front/py/fe_py.h"
#include "run/lint.h"

/* The recipe function 'name' of 'package' as a launcher in 'script' would import it: a stand-in
 * module beside the script calls it, so the search is Python's from there (py_mod.h). */
const struct py_unit *bridge_py_import(struct lint_run *r, struct arena *a, const char *script, const char *package,
				       const char *name, const char *body)
{
	const char *slash = strrchr(script, '/');
	const char *dir = slash ? arena_strndup(a, script, (size_t)(slash - script)) : ".";
	/* the module stays in the run's cache of parsed modules: its path and text live as long */
	const char *path = arena_printf(r->arena, "%s/<cglint: %s.%s>.py", dir, package, name);
	const char *text = arena_printf(r->arena, "from %s import %s as _imported\n\n\ndef _launch():\n%s", package, name, body);
	struct py_file py;
	if (fe_py_parse(a, r->py, NULL, path, text, strlen(text), &py))
		return NULL;
	for (size_t u = 0; u < py.n_units; u++)
		if (!strcmp(py.units[u].name, "_launch") && py.units[u].n_keys && !py.units[u].over)
			return &py.units[u];
	return NULL;
}

/* cfg.mixed_precision = "bf16_mixed": Bridge builds the preset registered under that name,
 * '-' read as '_' (training/mixed_precision.py, get_mixed_precision_config, 0.6: L432-447); its
 * fields are the section's, placed where the name is written. A name cglint cannot find leaves
 * them unknown, as before. */
void bridge_py_mixed_precision(struct lint_run *r, const char *path, struct facts *t)
{
	const struct fact *f = facts_get(t, "mixed_precision");
	if (!f || f->val.kind != V_STR || !*f->val.s || strlen(f->val.s) > 128)
		return;
	struct arena *a = arena_new();
	char *name = arena_strdup(a, f->val.s);
	for (char *c = name; *c; c++)
		if (*c == '-')
			*c = '_';
		else if (!isalnum((unsigned char)*c) && *c != '_')
			goto out;
	struct loc at = f->loc;
	const struct py_unit *pu = bridge_py_import(r, a, path, "megatron.bridge.training.mixed_precision", name,
					    "    cfg = ConfigContainer()\n    cfg.mixed_precision = _imported()\n    return cfg\n");
	/* the preset's writes in order, a later one winning; the string replaced whatever the recipe
	 * wrote under the section before, and Python lets nothing be written under a string after */
	for (size_t k = 0; pu && k < pu->n_keys; k++)
		if (!strncmp(pu->keys[k].key, "mixed_precision.", 16))
			facts_set(t, pu->keys[k].key, pu->keys[k].val, at, "config")->why = pu->keys[k].why;
out:
	arena_free(a);
}


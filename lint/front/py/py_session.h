/* SPDX-License-Identifier: MIT */
/*
 * py_session: what the Python front-end keeps for a whole run (fe_py.h's struct py_session):
 * the parser, every module parsed and where imports led, the budgets, and what the evaluator
 * read once for every file (classes and Enum members held as values, Bridge's model bridges).
 * Nothing in it belongs to one parse: the file being linted and the path walked travel with the
 * walk (struct py_pass, py_fn.h), and a note lives with the module it is about (struct mod).
 * Private to the front-end's files.
 */
#ifndef CGLINT_PY_SESSION_H
#define CGLINT_PY_SESSION_H

#include <stdbool.h>
#include <stddef.h>
#include <tree_sitter/api.h>

#include "base/strmap.h"
#include "front/py/fe_py_mod.h"

struct py_obj;
struct py_bridge_reg;

struct py_session {
	struct arena *a;        /* the run's: modules, texts, summaries */
	TSParser *parser;
	struct mod **mods;      /* every module parsed, linted or read to follow a call */
	size_t n, cap;
	struct strmap texts;    /* a module's text -> its index in 'mods': a file linted and imported
				 * under another path (recipes/x.py, ../../bridge/recipes/x.py) is parsed once */
	struct strmap found;    /* "level:folder\nname" -> index in 'found_at' (py_mod_find's answer, */
	const char **found_at;  /* NULL: none): a folder's files import the same modules */
	size_t n_found, cap_found;
	size_t files, bytes, walks;
	bool full;              /* a module was not read: FE_PY_MAX_FILES or FE_PY_MAX_BYTES reached */
	const char **replayed;  /* model fields the packs' steps recompute (fe_py_session_replayed) */
	size_t n_replayed;
	struct py_obj *objs;    /* classes and Enum members held as values (py_obj.c) */
	size_t n_objs, cap_objs;
	struct py_bridge_reg *bridges; /* Bridge's model bridge files, read once a run (py_bridge_reg.c) */
};

#endif

/* SPDX-License-Identifier: MIT */
/*
 * fe_py_mod: the Python modules a run has parsed (the files it lints, and the modules it reads
 * to follow calls), each with its module-level functions and imports, and what each function
 * does once the evaluator has walked it (struct sum, py_call.c). The table is the session's
 * (py_session.h). Private to the Python front-end's files, the only ones that include
 * tree-sitter.
 */
#ifndef CGLINT_FE_PY_MOD_H
#define CGLINT_FE_PY_MOD_H

#include <stdbool.h>
#include <stddef.h>
#include <tree_sitter/api.h>

#include "base/strmap.h"
#include "front/py/fe_py.h"
#include "front/py/py_unit.h"

/* A key a function read from its caller's object (a parameter's), and what it found: a summary
 * is reused only where the caller's objects still read so. */
struct py_read {
	const char *key;        /* in the callee's namespaces */
	bool found;
	struct value val;
	const char *why;
};

/* What one module-level function does with the values its caller passes ('sig': them
 * rendered, "" for none), recorded once for each and replayed at each call. */
struct sum {
	const char *sig;
	struct sum *next;
	int state;              /* 0 not yet, 1 being walked (recursion), 2 recorded */
	struct py_rec *recs;
	size_t n;
	const char **params;    /* its parameters, in order, and each one's namespace */
	const char **param_ns;
	size_t n_params, n_positional;
	struct py_ret ret;      /* what it returns */
	unsigned next_ns;       /* the namespaces it made */
	bool over;              /* its log was cut at PY_UNIT_MAX_RECS */
	struct py_read *reads;  /* what it read through its parameters, in order */
	size_t n_reads;
	struct py_fork *forks;  /* its undecided if statements, where it is in the file linted */
	size_t n_forks;
};

struct def {
	const char *name;
	TSNode node;
	struct sum *sums;
	bool called;            /* a function of the same module calls it */
};

/* 'import a.b as local' (attr NULL) or 'from ..a.b import attr as local' (level 2). */
struct imp {
	const char *local, *module, *attr;
	unsigned level;
	TSNode at;
	unsigned guard;         /* 1 + the index of the 'try:' it is under (struct guard); 0: none */
	bool handler;           /* under that try's ImportError handler, not its body */
	uint32_t scope[2];      /* an import in a function: that function's bytes (0, 0: module level) */
};

/* A module-level 'try:' with a handler that catches ImportError ('except ImportError:',
 * 'except Exception:', a bare 'except:', the first that does): the names it binds come from its
 * body when every import there succeeds, from that handler when one fails (Python's ImportError),
 * and are not known where cglint cannot tell (fe_py_mod_live). */
struct guard {
	TSNode st;
	int state;              /* 0 not yet, 1 being decided, 2 decided */
	enum tri body;          /* TRI_TRUE: the body's bindings hold; TRI_FALSE: the handler's */
	const char *why;        /* what decided it, or why it cannot be decided */
};

/* A module-level 'NAME = value' (the last one wins), evaluated when first read. */
struct glob {
	const char *name;
	TSNode value;
	int state;              /* 0 not yet, 1 being evaluated, 2 'val' holds it */
	struct value val;
	const char *why;
	unsigned guard;         /* as struct imp's */
	bool handler;
};

/* A module-level class, read once a run for the field defaults its constructor leaves
 * (py_class.c; 'info' is that file's, NULL until then). */
struct klass {
	const char *name;
	TSNode node;            /* the class_definition */
	int state;              /* 0 not yet, 1 being read (a class among its own bases), 2 read */
	struct klass_info *info;
};

struct mod {
	const char *path, *src;
	size_t len;
	TSTree *tree;
	bool from_disk;         /* read to follow a call */
	long long disk_size, disk_mtime_ns; /* from_disk: the file as read (fe_py_session_current) */
	struct def *defs;
	size_t n_defs;
	struct imp *imps;
	size_t n_imps;
	struct glob *globs;
	size_t n_globs;
	struct klass *classes;
	size_t n_classes;
	struct guard *guards;
	size_t n_guards;
	struct imp *locals;     /* imports in functions, which bind names in those functions alone */
	size_t n_locals;
	bool opaque;            /* binds names in ways cglint does not record (a loop, an if, globals(),
				 * __getattr__, 'import *'): a name it does not show may still be there */
	struct py_session *session; /* the run's, to decide its guards */
	struct py_note *notes;  /* what the walks of its functions could not follow, about its lines */
	size_t n_notes, cap_notes;
};

/* Parse 'buf' (kept by the caller) as the module at 'path' and keep it; NULL if it cannot. */
struct mod *fe_py_mod_add(struct py_session *c, const char *path, const char *buf, size_t len, bool from_disk);
/* Whether 'm' is the file 'path' names: its path, a leading "./" aside ("./base.py" is "base.py";
 * py_mod.h names a module as an input is named). */
bool fe_py_mod_named(const struct mod *m, const char *path);
/* A module imported from 'from' (py_mod.h), read and parsed once a run; NULL when it is not on
 * disk, not readable, or past the budget (fe_py.h). */
struct mod *fe_py_mod_load(struct py_session *c, const struct mod *from, const char *name, unsigned level);
/* The module-level function 'name' of 'm', through its imports (a re-export of a re-export):
 * its module and index in that module's defs. */
bool fe_py_mod_lookup(struct py_session *c, struct mod *m, const char *name, unsigned hops, struct mod **out,
		      size_t *def);
/* The module-level class 'name' of 'm', found as fe_py_mod_lookup finds functions. */
bool fe_py_mod_class(struct py_session *c, struct mod *m, const char *name, unsigned hops, struct mod **out,
		     size_t *cls);
/* The import of 'm' that binds 'local', or NULL; one under a try whose other branch binds the
 * name is skipped (fe_py_mod_live). */
const struct imp *fe_py_mod_import(struct mod *m, const char *local);
/* The import that binds 'local' for code at byte 'at' of 'm': one in the innermost function
 * holding 'at' that imports the name (Python makes it local to the whole function), else the
 * module's (fe_py_mod_import); 'inner' only the former. */
const struct imp *fe_py_mod_import_at(struct mod *m, const char *local, uint32_t at, bool inner);
/* Whether a binding under guard 'guard' (1-based; 0 none: TRI_TRUE) of 'm', in its body or its
 * ImportError handler, holds; '*why' says which branch and why (NULL allowed). */
enum tri fe_py_mod_live(struct mod *m, unsigned guard, bool handler, const char **why);
/* Whether module 'm' binds 'name' at module level: TRI_UNKNOWN where it may without cglint
 * seeing it (opaque). */
enum tri fe_py_mod_binds(struct mod *m, const char *name);
/* A function whose result says whether some module imports on the machine that runs it (a
 * 'try:' that imports, with a handler that catches ImportError): the modules it tries, quoted
 * and joined ("'transformer_engine.pytorch' or 'fused_weight_gradient_mlp_cuda'"); NULL for any
 * other function. */
const char *fe_py_mod_import_probe(struct arena *a, const char *src, TSNode def);

#endif

/* SPDX-License-Identifier: MIT */
/*
 * py_mod: where a Python import points on disk, without running Python. An absolute module
 * ("megatron.bridge.recipes.llama.llama3") is looked for under each folder above the importing
 * file, nearest first, so the package root is found wherever the tree is unpacked (the folder
 * holding the top package, or its src/ subfolder), then on the environment's search path (input/pyenv.h: an
 * installed package, PYTHONPATH, --python-path); a relative one (level 1 for "from .common import f")
 * from the importing file's package. A module is NAME.py or NAME/__init__.py. Paths are joined
 * and '..' folded as text, so a tree named relatively gives relative paths; a path that leaves the
 * working folder and comes back into it is named without the detour, and one found from a file
 * named "./x.py" starts with "./" too: a module that is also an input has the input's name.
 */
#ifndef CGLINT_PY_MOD_H
#define CGLINT_PY_MOD_H

struct arena;

#define PY_MOD_MAX_UP 16        /* folders walked up from the importing file */

/* The file of module 'name' ("" with level > 0: the package itself) imported from the file
 * 'from', in 'a'; NULL when no such file exists. */
const char *py_mod_find(struct arena *a, const char *from, const char *name, unsigned level);

/* The release of the Megatron-Bridge a module file belongs to (".../megatron/bridge/..."), from
 * its package_info.py MAJOR and MINOR (0.6 -> 60, as target.h); '*root' gets the folder holding megatron/,
 * in 'a'. 0 when the file is not in a Bridge package or the version cannot be read. */
int py_mod_bridge_release(struct arena *a, const char *module, const char **root);

#endif

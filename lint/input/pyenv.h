/* SPDX-License-Identifier: MIT */
/*
 * pyenv: the folders Python searches for modules in the environment the user runs, in
 * Python's order, for following a recipe's imports into an installed package (Megatron-Bridge
 * in a virtual environment, an editable install's .pth, PYTHONPATH):
 *   1. --python-path and .cglint.yaml python-path: folders (pyenv_add);
 *   2. $PYTHONPATH;
 *   3. the interpreter's sys.path, .pth files included: $CGLINT_PYTHON (a path, or "none" to ask
 *      no interpreter), else the active virtual or conda environment's ($VIRTUAL_ENV,
 *      $CONDA_PREFIX), else python3 on PATH. Asked once, only when a module is not found by
 *      other means, and kept in $XDG_CACHE_HOME/cglint (else ~/.cache/cglint) with the times of
 *      its folders: a package installed or a .pth added asks again (as mypy and pyright do).
 * Process-wide, like the working directory; strings are owned here.
 */
#ifndef CGLINT_PYENV_H
#define CGLINT_PYENV_H

#include <stdbool.h>
#include <stddef.h>

/* A folder searched before $PYTHONPATH (in the order added). */
void pyenv_add(const char *dir);
/* How many folders pyenv_add has been given, ever: a change says the search path may have. */
size_t pyenv_added(void);
/* The search path, each folder once; computed on the first call. */
const char *const *pyenv_path(size_t *n);
/* What the path was made of, for -v: "python3 (/venv/bin/python3, cached): 12 folders". */
const char *pyenv_describe(void);

#endif

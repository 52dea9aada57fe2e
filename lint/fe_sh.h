/* SPDX-License-Identifier: MIT */
/*
 * fe_sh: the commands of a bash/sh launch script (sbatch, torchrun, python), with the variables
 * they use expanded. Only as much shell as launch scripts use: comments, quoting ('...', "...",
 * $'...'), backslash-newline continuations, NAME=value and export NAME=value, arrays NAME=(...)
 * and NAME+=(...), $NAME ${NAME} ${NAME:-default} ${NAME[@]} "${NAME[@]}" with word splitting
 * of unquoted expansions, inline NAME=value before a command, and ; && || | & separators.
 *
 * What a static reader cannot know ($(...), `...`, $1, $@, variables never assigned in the
 * script) marks the word unresolved rather than being guessed. Control flow (if/for/case,
 * functions) is read straight through: every assignment applies from its line on.
 */
#ifndef CGLINT_FE_SH_H
#define CGLINT_FE_SH_H

#include <stdbool.h>
#include <stddef.h>

#include "loc.h"

struct arena;
struct diag_list;

struct sh_word {
	const char *text;       /* after quote removal and expansion */
	struct loc loc;         /* where its first character was written: inside the assignment
				   of the variable it came from, for an expanded word */
	bool unresolved;        /* an expansion that could not be resolved took part in it */
};

struct sh_var {
	const char *name, *value;
	struct loc loc;         /* of the value in the assignment */
};

struct sh_cmd {
	struct sh_word *argv;   /* argv[0] is the program; assignments before it are in env */
	size_t argc;
	struct sh_var *env;     /* exported variables in effect, then inline NAME=value, in order */
	size_t n_env;
	struct loc loc;         /* of argv[0] */
};

struct sh_script {
	struct sh_cmd *cmds;
	size_t n_cmds;
};

/*
 * Read 'text' (len bytes, need not be NUL-terminated) of 'path'. Everything lives in 'a';
 * 'path' is borrowed for the locations. A construct that cannot be read (an unterminated
 * quote, an unbalanced array or ${...}) is reported as CG908 at its position and ends the
 * read; the commands before it are kept. Returns 0, or -1 after such a report.
 */
int fe_sh_parse(struct arena *a, struct diag_list *d, const char *path, const char *text, size_t len,
		struct sh_script *out);

#endif

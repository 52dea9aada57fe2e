/* SPDX-License-Identifier: MIT */
/*
 * fe_sh: the commands of a bash/sh launch script (sbatch, torchrun, python), with the variables
 * they use expanded. Only as much shell as launch scripts use: comments, quoting ('...', "...",
 * $'...'), backslash-newline continuations, NAME=value and export NAME=value, arrays NAME=(...)
 * and NAME+=(...), $NAME ${NAME} ${NAME:-default} ${NAME[@]} "${NAME[@]}" with word splitting
 * of unquoted expansions, inline NAME=value before a command, and ; && || | & separators.
 *
 * What a static reader cannot know ($(...), `...`, $1, $@, variables never assigned in the
 * script) marks the word unresolved rather than being guessed; cglint's own environment is never
 * read. One exception: ${X:-word} (and ${X-word}, ${X:=word}) of a variable the script never
 * sets expands to 'word', resolved: the value the script runs with unless its caller overrides
 * it (${X:+word} of such a variable is empty). Control flow (if/for/case, functions) is read
 * straight through: every assignment applies from its line on. Headers (for/case/[[ ]], a
 * function's name) and heredoc bodies produce no command.
 *
 * Expansions are bounded: ${...} nested deeper than 32 levels, values past 1 Mi bytes and
 * commands past 65536 words end in an unresolved word; a script whose expansion exceeds the
 * total budget is reported as CG908 where it ran out.
 */
#ifndef CGLINT_FE_SH_H
#define CGLINT_FE_SH_H

#include <stdbool.h>
#include <stddef.h>

#include "base/loc.h"

struct arena;
struct diag_list;

struct sh_word {
	const char *text;       /* after quote removal and expansion */
	struct loc loc;         /* where its first character was written: inside the assignment
				   of the variable it came from, for an expanded word; for an empty
				   word, the '$' or quote it came from */
	bool unresolved;        /* an expansion that could not be resolved took part in it */
};

struct sh_var {
	const char *name;
	const char *value;      /* NULL when unresolved (it came from $(...), an unknown $X, ...) */
	struct loc loc;         /* of the value's first character in its assignment */
};

struct sh_cmd {
	struct sh_word *argv;   /* argv[0] is the program (a wrapper such as env or srun stays
				   argv[0]); assignments before it are in env; redirections are
				   not in argv */
	size_t argc;
	struct sh_var *env;     /* exported variables in effect (in order of first export, latest
				   value), then inline NAME=value, in order: a later entry for the
				   same name wins. Commands may share one array: read only. */
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
 * quote, $(...), `...` or ${...}, an unbalanced array) is reported as CG908 at the position
 * where it opened (the innermost one) and ends the read, as does running out of the expansion
 * budget; the commands before it are kept, the one being read is dropped. Returns 0, or -1
 * after exactly one such report.
 */
int fe_sh_parse(struct arena *a, struct diag_list *d, const char *path, const char *text, size_t len,
		struct sh_script *out);

#endif

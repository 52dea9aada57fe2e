/* SPDX-License-Identifier: MIT */
/*
 * opts: the command line's options as one table, from which --help, the man page (help2man
 * reads --help) and the shell completions are all made, so they cannot drift apart.
 */
#ifndef CGLINT_OPTS_H
#define CGLINT_OPTS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

enum opt_id {
	O_MCORE = 256, O_BRIDGE, O_GPU, O_TE, O_ENV, O_ENV_FILE, O_ASSUME, O_FORMAT, O_SELECT, O_IGNORE, O_FAIL_ON,
	O_RULES, O_CONFIG_FILE, O_STDIN_NAME, O_COLOR, O_VERBOSE, O_EXIT_ZERO, O_HELP, O_VERSION,
	O_CUDA_PATH, O_CDB, O_JOBS, O_SHOW_ARGS, O_PROBE_BIN, O_FROM, O_ONLY, O_CONFIG, O_TIMEOUT,
	O_OUTPUT, O_FIX, O_DIFF, O_BASELINE, O_WRITE_BASELINE, O_NO_INLINE, O_ISOLATED, O_QUIET, O_NO_IGNORE,
	O_SRC_TIMEOUT, O_SRC_MEMORY, O_RANKS, O_FUNCTION, O_PYTHON_PATH, O_ALLOW, O_NO_CACHE, O_SHOW_UNDECIDED,
};

struct opt {
	const char *name;
	int shrt;               /* the short letter, or 0 */
	const char *arg;        /* the argument's placeholder, or NULL for a flag */
	enum opt_id id;
	const char *help;
};

extern const struct opt opts[];
extern const size_t opts_n;
#define OPTS_MAX 64             /* the table's size is checked against it */

/* The subcommands, "lint" first (the default). */
extern const char *const opts_commands[];
extern const size_t opts_n_commands;
/* Whether 'w' names a subcommand. */
bool opts_is_command(const char *w);

void opts_usage(FILE *f);
/* The table's line for one option: '  -f, --format FMT    help'. */
void opts_print_one(FILE *f, const struct opt *o);
/* For an unknown '--name' or '--name=value', the closest option's name, or NULL. */
const char *opts_closest(const char *arg);
/* The release, and the Megatron Core and Megatron-Bridge releases this build knows. */
void opts_version(FILE *f);
/* A completion script for 'shell' (bash, zsh or fish); -1 for another shell. */
int opts_completion(FILE *f, const char *shell);

#endif

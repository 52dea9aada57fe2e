/* SPDX-License-Identifier: MIT */
/* help: one subcommand's help (see help.h). */
#include "cli/help.h"

#include <string.h>

#include "cli/opts.h"

/* The options every input-reading subcommand shares: the target and what the job runs with. */
#define TARGET_OPTS O_MCORE, O_BRIDGE, O_GPU, O_TE, O_ENV, O_ENV_FILE, O_CONFIG_FILE, O_ASSUME, O_PYTHON_PATH
#define INPUT_OPTS O_RULES, O_ISOLATED, O_NO_IGNORE, O_STDIN_NAME, O_JOBS

struct help {
	const char *cmd;
	const char *usage;      /* after "Usage: " */
	const char *what;
	enum opt_id ids[32];    /* 0 ends the list */
};

static const struct help helps[] = {
	{"explain", "cglint explain RULE [--mcore X.Y] [--bridge X.Y|none]",
	 "What rule RULE (an id such as CG101, or its name) checks, why, and how to fix it. A rule with\n"
	 "variants per version shows each, the target's first; with --mcore or --bridge, only the variant\n"
	 "of that target.",
	 {O_MCORE, O_BRIDGE, O_RULES, O_HELP}},
	{"rules", "cglint rules [--format json] [--mcore X.Y] [--bridge X.Y|none] [--select RULES]",
	 "The rules that apply to the target: id, severity, name and the source line each mirrors.",
	 {O_FORMAT, O_MCORE, O_BRIDGE, O_SELECT, O_IGNORE, O_RULES, O_HELP}},
	{"probe", "cglint probe [--format json] [--from FILE] [--only ROWS] [--ranks N]\n"
		  "  or:  cglint probe --config FILE...",
	 "Runs the GPU probe (cglint-probe) on this machine's GPU and judges what the rules claim about\n"
	 "capture against what the driver does. --from judges a recording of cglint-probe's output instead;\n"
	 "--config lints files with this machine's GPU and environment.\n"
	 "Exit status: 0 every rule doc holds on this GPU, 1 one does not, 2 usage error or a --from file\n"
	 "that is not a recording, 4 no CUDA device (or no probe in this build).",
	 {O_FORMAT, O_FROM, O_ONLY, O_TIMEOUT, O_RANKS, O_JOBS, O_CONFIG, O_PROBE_BIN, O_RULES, O_HELP}},
	{"facts", "cglint facts [--function NAME] [--format json] [OPTIONS] PATH...",
	 "What cglint holds for each unit (a config file, a recipe function, a launch command): every key,\n"
	 "its value or why it is unknown, and its origin.",
	 {O_FUNCTION, O_FORMAT, TARGET_OPTS, INPUT_OPTS, O_HELP}},
	{"suggest", "cglint suggest [--allow full-iteration] [--diff|--fix] [--format json] [OPTIONS] PATH...",
	 "The strongest CUDA-graph setting each unit passes the rules with, as a patch in its own language\n"
	 "(--diff prints it, --fix writes it).",
	 {O_ALLOW, O_DIFF, O_FIX, O_FUNCTION, O_FORMAT, TARGET_OPTS, INPUT_OPTS, O_HELP}},
	{"lsp", "cglint lsp [OPTIONS]",
	 "A language server on stdin/stdout (LSP 3.17): findings as diagnostics, hover, code actions. The\n"
	 "editor sends the documents. Exit status: 0 after a shutdown request, 1 otherwise.",
	 {TARGET_OPTS, O_RULES, O_ISOLATED, O_CUDA_PATH, O_CDB, O_SRC_TIMEOUT, O_SRC_MEMORY, O_HELP}},
	{"completion", "cglint completion bash|zsh|fish",
	 "Writes a completion script for the shell: options, their values, subcommands and, after\n"
	 "explain, rule ids. For example: cglint completion bash > ~/.local/share/bash-completion/completions/cglint",
	 {0}},
};

void help_print(FILE *f, const char *cmd)
{
	const struct help *h = NULL;
	for (size_t k = 0; cmd && k < sizeof(helps) / sizeof(helps[0]); k++)
		if (!strcmp(cmd, helps[k].cmd))
			h = &helps[k];
	if (!h) {
		opts_usage(f);
		return;
	}
	fprintf(f, "Usage: %s\n\n%s\n", h->usage, h->what);
	if (h->ids[0])
		fputs("\nOptions:\n", f);
	for (size_t k = 0; k < sizeof(h->ids) / sizeof(h->ids[0]) && h->ids[k]; k++)
		for (size_t o = 0; o < opts_n; o++)
			if (opts[o].id == h->ids[k])
				opts_print_one(f, &opts[o]);
	fputs("\n'cglint --help' lists every option.\n", f);
}

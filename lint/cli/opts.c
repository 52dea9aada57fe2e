/* SPDX-License-Identifier: MIT */
/* opts: the option table, and --help, --version and completions made from it. */
#include "cli/opts.h"

#include <stdlib.h>
#include <string.h>

#include "base/mem.h"
#include "base/suggest.h"
#include "config/pack.h"
#include "config/target.h"

#ifndef CGLINT_VERSION
#define CGLINT_VERSION "0.0.0"
#endif

const struct opt opts[] = {
	{"mcore", 0, "X.Y", O_MCORE, "target Megatron Core version (default: newest supported)"},
	{"bridge", 0, "X.Y|none", O_BRIDGE, "target Megatron-Bridge release (default: the one shipping --mcore)"},
	{"gpu", 0, "ARCH|auto", O_GPU, "GPU the job runs on: sm_90, h100, b200, ..., or auto (this machine's; default unknown)"},
	{"te", 0, "X.Y", O_TE, "Transformer Engine release the job runs, e.g. 2.12 (default unknown)"},
	{"env", 'E', "KEY=VALUE", O_ENV, "an environment variable the job runs with (repeatable)"},
	{"env-file", 0, "FILE", O_ENV_FILE, "environment file of KEY=VALUE lines (repeatable)"},
	{"config-file", 'c', "FILE", O_CONFIG_FILE, "override YAML layered over every input, as Bridge's --config-file"},
	{"assume-defaults", 0, NULL, O_ASSUME, "keys no input sets take the target's defaults"},
	{"format", 'f', "FMT", O_FORMAT, "output format on stdout: text, concise (one line a finding), json, sarif, github, gitlab or junit (default text)"},
	{"output", 'o', "FMT=PATH", O_OUTPUT, "also write the findings in format FMT to PATH (repeatable)"},
	{"select", 0, "RULES", O_SELECT, "only these rules: ids, id prefixes or names, comma-separated"},
	{"ignore", 0, "RULES", O_IGNORE, "skip these rules"},
	{"fail-on", 0, "SEV", O_FAIL_ON, "exit 1 on findings at or above: error, warning or note; undecided: on any finding or undecided check (default error, or .cglint.yaml's fail-on)"},
	{"exit-zero", 0, NULL, O_EXIT_ZERO, "exit 0 even with findings (2 and 3 still report broken input)"},
	{"rules", 0, "FILE", O_RULES, "an extra rule pack (repeatable)"},
	{"isolated", 0, NULL, O_ISOLATED, "ignore .cglint.yaml files"},
	{"no-ignore", 0, NULL, O_NO_IGNORE, "walk folders whole: also what .gitignore, .git/info/exclude and git's global excludes leave out"},
	{"no-inline-suppressions", 0, NULL, O_NO_INLINE, "report what '# cglint: disable=' comments hide (audits)"},
	{"baseline", 0, "FILE", O_BASELINE, "leave out the findings recorded in FILE"},
	{"write-baseline", 0, NULL, O_WRITE_BASELINE, "record every current finding in the --baseline FILE, and exit 0"},
	{"fix", 0, NULL, O_FIX, "apply the mechanical fixes to the files, then report what is left"},
	{"diff", 0, NULL, O_DIFF, "print the mechanical fixes as a unified diff instead (exit 1 if there is one)"},
	{"cuda-path", 0, "DIR|auto|none", O_CUDA_PATH, "CUDA headers to parse sources against (default auto: $CGLINT_CUDA_PATH, the build's, $CUDA_PATH, /usr/local/cuda, nvcc's; none: cglint's shim)"},
	{"build-path", 'p', "DIR", O_CDB, "folder holding compile_commands.json (default: searched upward from each source)"},
	{"jobs", 'j', "N", O_JOBS, "N worker processes at once: a source each, other inputs in chunks once there are enough; the output is the same for any N (probe: N rows at once) (default: one per CPU; probe: 1)"},
	{"source-timeout", 0, "SECONDS", O_SRC_TIMEOUT, "stop analysing a source after SECONDS (default 60)"},
	{"source-memory", 0, "MIB", O_SRC_MEMORY, "stop analysing a source past MIB of address space (default 4096)"},
	{"no-cache", 0, NULL, O_NO_CACHE, "neither read nor write the precompiled headers kept between runs in $XDG_CACHE_HOME/cglint (default ~/.cache/cglint; entries unused for 30 days are deleted, and the oldest past 8 GiB)"},
	{"show-clang-args", 0, NULL, O_SHOW_ARGS, "print the arguments each source would be parsed with, and stop"},
	{"config", 0, "FILE", O_CONFIG, "probe: lint FILE with this machine's GPU and environment instead (repeatable)"},
	{"from", 0, "FILE", O_FROM, "probe: judge a recording of cglint-probe's output instead of running it"},
	{"only", 0, "ROWS", O_ONLY, "probe: run only these rows (comma-separated ids)"},
	{"timeout", 0, "SECONDS", O_TIMEOUT, "probe: time limit per row (default 30)"},
	{"ranks", 0, "N", O_RANKS, "probe: the multi-GPU section instead: NCCL in captured graphs, a process on each of N GPUs"},
	{"probe-bin", 0, "PATH", O_PROBE_BIN, "the probe program (default: $CGLINT_PROBE, else cglint-probe beside cglint)"},
	{"python-path", 0, "DIR", O_PYTHON_PATH, "also look for a recipe's imports in DIR, before $PYTHONPATH and the sys.path of the environment's python (repeatable)"},
	{"function", 0, "NAME", O_FUNCTION, "facts, suggest: only the units of the recipe function NAME"},
	{"allow", 0, "WHAT", O_ALLOW, "suggest: also consider full-iteration graphs (WHAT: full-iteration)"},
	{"stdin-filename", 0, "NAME", O_STDIN_NAME, "the name to report for '-' (stdin)"},
	{"color", 0, "WHEN", O_COLOR, "auto, always or never (auto honours NO_COLOR)"},
	{"show-undecided", 0, NULL, O_SHOW_UNDECIDED, "first list the checks no input decided, grouped by the key each waits for"},
	{"verbose", 'v', NULL, O_VERBOSE, "also print what normalization changed, to stderr"},
	{"quiet", 'q', NULL, O_QUIET, "no summary line on stderr (findings are still printed)"},
	{"help", 'h', NULL, O_HELP, "this help"},
	{"version", 'V', NULL, O_VERSION, "print the version"},
};
const size_t opts_n = sizeof(opts) / sizeof(opts[0]);
_Static_assert(sizeof(opts) / sizeof(opts[0]) <= OPTS_MAX, "raise OPTS_MAX");

const char *const opts_commands[] = {"lint", "explain", "rules", "probe", "lsp", "facts", "suggest", "completion"};
const size_t opts_n_commands = sizeof(opts_commands) / sizeof(opts_commands[0]);

bool opts_is_command(const char *w)
{
	for (size_t k = 0; k < opts_n_commands; k++)
		if (!strcmp(w, opts_commands[k]))
			return true;
	return false;
}

void opts_usage(FILE *f)
{
	fputs("Usage: cglint [lint] [OPTIONS] PATH... [KEY=VALUE...]\n"
	      "  or:  cglint explain RULE\n"
	      "  or:  cglint rules [--format json] [--mcore X.Y --bridge X.Y]\n"
	      "  or:  cglint probe [--format json] [--from FILE] [--only ROWS] [--ranks N]\n"
	      "  or:  cglint probe --config FILE...\n"
	      "  or:  cglint facts [--function NAME] [--format json] [OPTIONS] PATH...\n"
	      "  or:  cglint suggest [--allow full-iteration] [--diff|--fix] [--format json] [OPTIONS] PATH...\n"
	      "  or:  cglint lsp [OPTIONS]\n"
	      "  or:  cglint completion bash|zsh|fish\n"
	      "  or:  cglint COMMAND --help\n"
	      "  or:  cglint --version\n\n"
	      "Checks Megatron-Bridge / Megatron Core CUDA-graph settings before a job starts.\n"
	      "facts shows what cglint holds for each unit (every key, its value or why it is unknown, its\n"
	      "origin); suggest, the strongest CUDA-graph setting each unit passes with, as a patch in its own\n"
	      "language; lsp is a language server on stdin/stdout; completion writes a shell completion\n"
	      "script; 'cglint COMMAND --help' shows one subcommand's usage and options.\n"
	      "PATH is a YAML file, a launch script, a C/C++/CUDA source, a folder (walked for all of\n"
	      "these) or '-' for stdin; KEY=VALUE\n"
	      "arguments are dotlist overrides (model.cuda_graph_impl=local) layered over every input.\n"
	      "The subcommand may follow options (cglint -j 1 suggest x.py, as git -C DIR status): the\n"
	      "first word that is neither an option nor an option's value is the subcommand when it names\n"
	      "one; to lint a file called like a subcommand, write ./suggest (or cglint lint suggest).\n\n",
	      f);
	for (size_t k = 0; k < opts_n; k++)
		opts_print_one(f, &opts[k]);
	fputs("\nExit status: 0 nothing at or above --fail-on, 1 findings, 2 usage error or unreadable/unparsable\n"
	      "input, rule pack, .cglint.yaml or baseline, 3 internal error; the same with --diff, --fix,\n"
	      "suggest and facts. --diff: 1 when it prints a change.\n"
	      "cglint probe: 0 every rule doc holds on this GPU, 1 one does not, 4 no CUDA device (or no probe\n"
	      "in this build). cglint lsp: 0 after a shutdown request, 1 otherwise.\n",
	      f);
}

void opts_print_one(FILE *f, const struct opt *o)
{
	char head[64];
	snprintf(head, sizeof(head), "%s%c%s--%s%s%s", o->shrt ? "-" : "", o->shrt ? o->shrt : ' ', o->shrt ? ", " : "  ",
		 o->name, o->arg ? " " : "", o->arg ? o->arg : "");
	fprintf(f, "  %-30s %s\n", o->shrt ? head : head + 3, o->help);
}

const char *opts_closest(const char *arg)
{
	if (strncmp(arg, "--", 2))
		return NULL;    /* a short option is one letter: nothing is near it */
	char name[64];
	snprintf(name, sizeof(name), "%.*s", (int)strcspn(arg + 2, "="), arg + 2);
	const char *names[OPTS_MAX];
	for (size_t k = 0; k < opts_n; k++) {
		if (!strcmp(name, opts[k].name))
			return NULL;    /* known, its argument is missing */
		names[k] = opts[k].name;
	}
	return suggest_closest(name, names, opts_n);
}

void opts_version(FILE *f)
{
	char buf[256];
	fprintf(f, "cglint %s\n", CGLINT_VERSION);
	fprintf(f, "Megatron Core: %s (0.15-dev is core_dev_r0.15.0)\n",
		target_supported_list(target_mcore_supported, buf, sizeof(buf)));
	fprintf(f, "Megatron-Bridge: %s, or none (Megatron-LM)\n",
		target_supported_list(target_bridge_supported, buf, sizeof(buf)));
	/* the development targets: the snapshots' commits */
	fprintf(f, "  Megatron Core main           = Megatron-LM main at %s\n", target_commit(TARGET_MAIN, false));
	fprintf(f, "  Megatron Core main@2a75ac12  = Megatron-LM %s, which Megatron-Bridge main pins\n",
		target_commit(TARGET_MCORE_PIN, false));
	fprintf(f, "  Megatron-Bridge main         = Megatron-Bridge main at %s\n", target_commit(TARGET_MAIN, true));
}

/* ---- completions ---- */

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* "0.15, 0.16, or none (...)" as "0.15 0.16 none": the versions a target list names. */
static const char *version_words(char *out, size_t size, const char *list)
{
	size_t n = 0;
	for (const char *s = list; *s && *s != '(' && n + 1 < size; s++)
		if (*s == ',' || (*s == ' ' && n && out[n - 1] != ' '))
			out[n++] = ' ';
		else if (*s != ' ')
			out[n++] = *s;
	while (n && out[n - 1] == ' ')
		n--;
	out[n] = '\0';
	char *or = strstr(out, " or ");
	if (or)
		memmove(or + 1, or + 4, strlen(or + 4) + 1);
	return out;
}

/* The options that take one of a few words, and those words. */
static const char *choices(enum opt_id id)
{
	static char mcore[256], bridge[256];
	char buf[256];
	switch (id) {
	case O_FORMAT: return "text concise json sarif github gitlab junit";
	case O_FAIL_ON: return "error warning note undecided";
	case O_COLOR: return "auto always never";
	case O_ALLOW: return "full-iteration";
	case O_MCORE:
		target_supported_list(target_mcore_supported, buf, sizeof(buf));
		return version_words(mcore, sizeof(mcore), buf);
	case O_BRIDGE:
		target_supported_list(target_bridge_supported, buf, sizeof(buf));
		snprintf(buf + strlen(buf), sizeof(buf) - strlen(buf), " none");
		return version_words(bridge, sizeof(bridge), buf);
	default: return NULL;
	}
}

/* The built-in rules' ids, space-separated, sorted (what explain takes). */
static const char *rule_ids(void)
{
	static char ids[8192];
	if (*ids)
		return ids;
	struct pack *p = pack_new();
	pack_load_builtin(p);
	const char **v = mem_alloc((p->n_rules + 1) * sizeof(*v));
	size_t n = 0;
	for (size_t k = 0; k < p->n_rules; k++)
		v[n++] = p->rules[k]->head.id;
	qsort(v, n, sizeof(*v), cmp_str);
	size_t len = 0;
	for (size_t k = 0; k < n; k++)
		if ((!k || strcmp(v[k], v[k - 1])) && len + strlen(v[k]) + 2 < sizeof(ids))
			len += (size_t)snprintf(ids + len, sizeof(ids) - len, "%s%s", len ? " " : "", v[k]);
	free(v);
	pack_free(p);
	return ids;
}

static bool takes_file(const struct opt *o)
{
	return o->arg && (strstr(o->arg, "FILE") || strstr(o->arg, "PATH") || strstr(o->arg, "DIR"));
}

static void bash(FILE *f)
{
	fputs("# bash completion for cglint (cglint completion bash)\n_cglint() {\n"
	      "  local cur=${COMP_WORDS[COMP_CWORD]} prev=${COMP_WORDS[COMP_CWORD-1]}\n  case $prev in\n", f);
	for (size_t k = 0; k < opts_n; k++) {
		const struct opt *o = &opts[k];
		if (!o->arg)
			continue;
		fprintf(f, "    --%s%s%c)", o->name, o->shrt ? "|-" : "", o->shrt ? o->shrt : ' ');
		const char *w = choices(o->id);
		if (w)
			fprintf(f, " COMPREPLY=($(compgen -W '%s' -- \"$cur\")); return ;;\n", w);
		else if (takes_file(o))
			fputs(" COMPREPLY=($(compgen -f -- \"$cur\")); return ;;\n", f);
		else
			fputs(" return ;;\n", f);
	}
	fprintf(f, "  esac\n  if [[ ${COMP_WORDS[1]} == explain && $COMP_CWORD == 2 && $cur != -* ]]; then\n"
		"    COMPREPLY=($(compgen -W '%s' -- \"${cur^^}\")); return\n  fi\n", rule_ids());
	fputs("  if [[ $cur == -* ]]; then\n    COMPREPLY=($(compgen -W '", f);
	for (size_t k = 0; k < opts_n; k++)
		fprintf(f, "%s--%s", k ? " " : "", opts[k].name);
	fputs("' -- \"$cur\"))\n  elif [[ $COMP_CWORD == 1 ]]; then\n    COMPREPLY=($(compgen -W '", f);
	for (size_t k = 0; k < opts_n_commands; k++)
		fprintf(f, "%s%s", k ? " " : "", opts_commands[k]);
	fputs("' -- \"$cur\") $(compgen -f -- \"$cur\"))\n  else\n    COMPREPLY=($(compgen -f -- \"$cur\"))\n  fi\n}\n"
	      "complete -o filenames -F _cglint cglint\n", f);
}

/* The help text with characters zsh's and fish's quoting would take apart replaced. */
static void put_help(FILE *f, const char *s)
{
	for (; *s; s++)
		fputc(*s == '\'' || *s == '[' || *s == ']' || *s == ':' || *s == '\\' ? ' ' : *s, f);
}

static void zsh(FILE *f)
{
	fputs("#compdef cglint\n# zsh completion for cglint (cglint completion zsh)\n"
	      "local context state state_descr line\ntypeset -A opt_args\n_arguments -s \\\n", f);
	for (size_t k = 0; k < opts_n; k++) {
		const struct opt *o = &opts[k];
		const char *w = choices(o->id);
		if (o->shrt)
			fprintf(f, "  '(-%c --%s)'{-%c,--%s}'[", o->shrt, o->name, o->shrt, o->name);
		else
			fprintf(f, "  '--%s[", o->name);
		put_help(f, o->help);
		fputs("]", f);
		if (o->arg)
			fprintf(f, ":%s:%s", o->arg, w ? "" : takes_file(o) ? "_files" : " ");
		if (w)
			fprintf(f, "(%s)", w);
		fputs("' \\\n", f);
	}
	fputs("  '1:command or path:(", f);
	for (size_t k = 0; k < opts_n_commands; k++)
		fprintf(f, "%s%s", k ? " " : "", opts_commands[k]);
	fprintf(f, ")' \\\n  '*:path:->rest'\n"
		"if [[ $state == rest ]]; then\n  if [[ $words[2] == explain && $CURRENT == 3 ]]; then\n"
		"    compadd -- %s\n  else\n    _files\n  fi\nfi\n", rule_ids());
}

static void fish(FILE *f)
{
	fputs("# fish completion for cglint (cglint completion fish)\n", f);
	fputs("complete -c cglint -n __fish_use_subcommand -a '", f);
	for (size_t k = 0; k < opts_n_commands; k++)
		fprintf(f, "%s%s", k ? " " : "", opts_commands[k]);
	fputs("'\n", f);
	fprintf(f, "complete -c cglint -n '__fish_seen_subcommand_from explain' -x -a '%s'\n", rule_ids());
	for (size_t k = 0; k < opts_n; k++) {
		const struct opt *o = &opts[k];
		fprintf(f, "complete -c cglint -l %s", o->name);
		if (o->shrt)
			fprintf(f, " -s %c", o->shrt);
		const char *w = choices(o->id);
		if (w)
			fprintf(f, " -x -a '%s'", w);
		else if (o->arg)
			fputs(takes_file(o) ? " -r -F" : " -x", f);
		fputs(" -d '", f);
		put_help(f, o->help);
		fputs("'\n", f);
	}
}

int opts_completion(FILE *f, const char *shell)
{
	if (!strcmp(shell, "bash"))
		bash(f);
	else if (!strcmp(shell, "zsh"))
		zsh(f);
	else if (!strcmp(shell, "fish"))
		fish(f);
	else
		return -1;
	return 0;
}

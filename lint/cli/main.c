/* SPDX-License-Identifier: MIT */
/* main: the command line: subcommands, running them, the exit status (options: opts.c). */
#define _XOPEN_SOURCE 700   /* realpath */
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <jansson.h>

#include "base/diag.h"
#include "base/mem.h"
#include "cli/help.h"
#include "cli/opts.h"
#include "config/explain.h"
#include "config/pack.h"
#include "config/target.h"
#include "front/cfg.h"
#include "input/pyenv.h"
#include "input/text.h"
#include "lsp/lsp.h"
#include "probe/gpu.h"
#include "probe/probe.h"
#include "report/baseline.h"
#include "report/fix.h"
#include "report/formats.h"
#include "report/out.h"
#include "report/out_facts.h"
#include "run/lint.h"
#include "run/session.h"
#include "run/summary.h"
#include "source/fe_clang.h"
#include "suggest/sg.h"

CG_PRINTF(1, 2)
static int usage_error(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	fputs("cglint: ", stderr);
	vfprintf(stderr, fmt, ap);
	fputs("\n(try 'cglint --help')\n", stderr);
	va_end(ap);
	return 2;
}

/* A whole number in [lo, hi] for 'opt', else a usage error (returns 2). */
static int number_opt(const char *opt, const char *what, const char *arg, long lo, long hi, unsigned *out)
{
	char *end;
	long n = strtol(arg, &end, 10);
	if (!*arg || *end || n < lo || n > hi)
		return usage_error("%s wants %s from %ld to %ld, not '%s'", opt, what, lo, hi, arg);
	*out = (unsigned)n;
	return 0;
}

/* --output FORMAT=PATH */
struct output {
	const struct out_format *format;
	const char *path;
};

struct cli {
	struct session_opts s;
	struct gpu_opts gpu;
	const struct out_format *format;
	struct output *outputs;
	size_t n_outputs;
	int fail_on;                    /* a severity or DIAG_FAIL_UNDECIDED */
	int color;                      /* -1 auto, 0 never, 1 always */
	const char **paths;
	size_t n_paths;
	bool exit_zero, show_args, gpu_auto, fail_on_given;
	bool fix, diff, write_baseline, quiet;
	const char **configs;           /* probe --config */
	size_t n_configs;
	const char *probe_only_opt;     /* the first probe-only option given, for the usage check */
	const char *function;           /* facts --function */
	bool allow_fi;                  /* suggest --allow full-iteration */
};

static void push(const char ***arr, size_t *n, const char *s)
{
	*arr = mem_realloc(*arr, (*n + 1) * sizeof(**arr));
	(*arr)[(*n)++] = s;
}

static void push_list(const char ***arr, size_t *n, char *s)
{
	for (char *tok = s, *next; tok && *tok; tok = next) {
		next = strchr(tok, ',');
		if (next)
			*next++ = '\0';
		if (*tok)
			push(arr, n, tok);
	}
}

/* 0 to go on, 2 on a usage error, -1 when --help/--version answered already. '*cmd' NULL (none
 * came first): the first word that is not an option or its value, if it names one (as git). */
static int parse_args(int argc, char **argv, struct cli *c, const char **cmd)
{
	struct option lopts[OPTS_MAX + 1];
	char shorts[2 * OPTS_MAX + 2] = "+";
	for (size_t k = 0; k < opts_n; k++) {
		lopts[k] = (struct option){opts[k].name, opts[k].arg ? required_argument : no_argument, NULL, (int)opts[k].id};
		if (opts[k].shrt) {
			size_t n = strlen(shorts);
			shorts[n] = (char)opts[k].shrt;
			shorts[n + 1] = opts[k].arg ? ':' : '\0';
			shorts[n + 2] = '\0';
		}
	}
	lopts[opts_n] = (struct option){0};
	shorts[0] = '-';        /* keep positional arguments in order, interleaved with options */
	int ch;
	opterr = 0;
	while ((ch = getopt_long(argc, argv, shorts, lopts, NULL)) != -1) {
		int id = ch;
		for (size_t k = 0; k < opts_n; k++)
			if (opts[k].shrt && opts[k].shrt == ch)
				id = (int)opts[k].id;
		switch (id) {
		case 1:
			if (!*cmd && !c->n_paths && opts_is_command(optarg))
				*cmd = optarg;
			else
				push(&c->paths, &c->n_paths, optarg);
			break;
		case O_MCORE:
			if (target_parse_version(optarg, &c->s.lint.target.mcore))
				return usage_error("--mcore wants a version like 0.17, not '%s'", optarg);
			c->s.lint.mcore_given = true;
			break;
		case O_BRIDGE:
			c->s.lint.bridge_given = true;
			if (!strcmp(optarg, "none"))
				c->s.lint.target.bridge = TARGET_NO_BRIDGE;
			else if (target_parse_version(optarg, &c->s.lint.target.bridge))
				return usage_error("--bridge wants a version like 0.4, or none, not '%s'", optarg);
			break;
		case O_GPU:
			c->gpu_auto = !strcmp(optarg, "auto");
			if (!c->gpu_auto && target_parse_gpu(optarg, &c->s.lint.target.gpu_major))
				return usage_error("--gpu wants an architecture like sm_90, h100 or b200, not '%s'", optarg);
			c->s.lint.target.gpu = optarg;
			break;
		case O_TE:
			if (target_parse_te(optarg, &c->s.lint.target.te))
				return usage_error("--te wants a Transformer Engine release like 2.12, not '%s'", optarg);
			break;
		case O_ENV:
			if (!strchr(optarg, '=') || optarg[0] == '=')
				return usage_error("-E wants KEY=VALUE, not '%s'", optarg);
			push(&c->s.lint.env_assigns, &c->s.lint.n_env_assigns, optarg);
			break;
		case O_ENV_FILE: push(&c->s.lint.env_files, &c->s.lint.n_env_files, optarg); break;
		case O_CONFIG_FILE: push(&c->s.lint.overlays, &c->s.lint.n_overlays, optarg); break;
		case O_ASSUME: c->s.lint.assume_defaults = true; break;
		case O_FORMAT:
			if (!(c->format = formats_find(optarg)))
				return usage_error("--format is one of %s, not '%s'", formats_names(), optarg);
			break;
		case O_OUTPUT: {
			char *eq = strchr(optarg, '=');
			const struct out_format *f = NULL;
			if (eq) {
				*eq = '\0';
				f = formats_find(optarg);
			}
			if (!f || !eq[1])
				return usage_error("--output wants FORMAT=PATH with FORMAT one of %s, not '%s'", formats_names(),
						   optarg);
			c->outputs = mem_realloc(c->outputs, (c->n_outputs + 1) * sizeof(*c->outputs));
			c->outputs[c->n_outputs++] = (struct output){f, eq + 1};
			break;
		}
		case O_FIX: c->fix = true; break;
		case O_DIFF: c->diff = true; break;
		case O_BASELINE: c->s.baseline = optarg; break;
		case O_WRITE_BASELINE: c->write_baseline = true; break;
		case O_NO_INLINE: c->s.no_inline = true; break;
		case O_ISOLATED: c->s.isolated = true; break;
		case O_SELECT: push_list(&c->s.filter.select, &c->s.filter.n_select, optarg); break;
		case O_IGNORE: push_list(&c->s.filter.ignore, &c->s.filter.n_ignore, optarg); break;
		case O_FAIL_ON:
			if (diag_fail_on_parse(optarg, &c->fail_on))
				return usage_error("--fail-on is error, warning, note or undecided, not '%s'", optarg);
			c->fail_on_given = true;
			break;
		case O_RULES: push(&c->s.rule_files, &c->s.n_rule_files, optarg); break;
		case O_STDIN_NAME: c->s.lint.stdin_name = optarg; break;
		case O_COLOR:
			c->color = !strcmp(optarg, "always") ? 1 : !strcmp(optarg, "never") ? 0 : -1;
			if (c->color == -1 && strcmp(optarg, "auto"))
				return usage_error("--color is auto, always or never, not '%s'", optarg);
			break;
		case O_VERBOSE: c->s.lint.verbose = true; break;
		case O_QUIET: c->quiet = true; break;
		case O_SHOW_UNDECIDED: c->s.lint.show_undecided = true; break;
		case O_NO_IGNORE: c->s.lint.no_ignore = true; break;
		case O_EXIT_ZERO: c->exit_zero = true; break;
		case O_CUDA_PATH: c->s.lint.sources.cuda_path = optarg; break;
		case O_CDB: c->s.lint.sources.cdb_dir = optarg; break;
		case O_JOBS:
			if (number_opt("--jobs", "a number", optarg, 1, 256, &c->s.lint.sources.jobs))
				return 2;
			c->gpu.jobs = c->s.lint.sources.jobs;
			break;
		case O_SRC_TIMEOUT:
			if (number_opt("--source-timeout", "seconds", optarg, 1, 86400, &c->s.lint.sources.timeout_s))
				return 2;
			break;
		case O_SRC_MEMORY:
			if (number_opt("--source-memory", "MiB", optarg, 64, 1 << 20, &c->s.lint.sources.memory_mib))
				return 2;
			break;
		case O_SHOW_ARGS: c->show_args = true; break;
		case O_NO_CACHE: c->s.lint.sources.no_cache = true; break;
		case O_PROBE_BIN: c->gpu.program = optarg; break;
		case O_FROM: c->gpu.from = optarg; break;
		case O_ONLY: c->gpu.only = optarg; break;
		case O_TIMEOUT: {
			unsigned secs;
			if (number_opt("--timeout", "seconds", optarg, 1, 3600, &secs))
				return 2;
			c->gpu.timeout = optarg;
			break;
		}
		case O_RANKS:
			if (number_opt("--ranks", "GPUs", optarg, 2, 64, &c->gpu.ranks))
				return 2;
			break;
		case O_CONFIG: push(&c->configs, &c->n_configs, optarg); break;
		case O_FUNCTION: c->function = optarg; break;
		case O_ALLOW:
			if (strcmp(optarg, "full-iteration"))
				return usage_error("--allow takes full-iteration, not '%s'", optarg);
			c->allow_fi = true;
			break;
		case O_PYTHON_PATH: pyenv_add(optarg); break;
		case O_HELP: help_print(stdout, *cmd); return -1;
		case O_VERSION: opts_version(stdout); return -1;
		default: {
			const char *near = opts_closest(argv[optind - 1]);
			return usage_error("unknown or incomplete option '%s'%s%s%s", argv[optind - 1],
					   near ? "; did you mean '--" : "", near ? near : "", near ? "'?" : "");
		}
		}
		for (size_t k = 0; k < opts_n && !c->probe_only_opt; k++)
			if ((int)opts[k].id == id && !strncmp(opts[k].help, "probe: ", 7))
				c->probe_only_opt = opts[k].name;
	}
	for (int k = optind; k < argc; k++)     /* after '--' */
		push(&c->paths, &c->n_paths, argv[k]);
	if (!*cmd)
		*cmd = "lint";
	else if (!strcmp(*cmd, "completion"))   /* only after options: a first one is answered in main */
		return usage_error("completion takes no options: cglint completion bash|zsh|fish");
	return 0;
}

static int cmp_rule_id(const void *a, const void *b)
{
	return strcmp((*(const struct rule *const *)a)->head.id, (*(const struct rule *const *)b)->head.id);
}

/* One rule id may have per-version variants; explain prints each, the target's first. */
static int cmd_explain(const struct pack *p, const char *id, const struct target *t, bool only)
{
	if (!pack_find(p, id)) {
		const char *near = pack_closest_rule(p, id);
		return usage_error("no rule '%s'%s%s%s (cglint rules lists them)", id, near ? "; did you mean '" : "",
				   near ? near : "", near ? "'?" : "");
	}
	only ? explain_id_only(stdout, p, id, t) : explain_id(stdout, p, id, false, t);
	return 0;
}

static int cmd_rules(const struct pack *p, const struct cli *c)
{
	const struct target *t = &c->s.lint.target;
	bool json = c->format == &out_json;
	json_t *arr = json ? json_array() : NULL;
	const struct rule **sorted = mem_alloc((p->n_rules + 1) * sizeof(*sorted));
	memcpy(sorted, p->rules, p->n_rules * sizeof(*sorted));
	qsort(sorted, p->n_rules, sizeof(*sorted), cmp_rule_id);
	for (size_t k = 0; k < p->n_rules; k++) {
		const struct rule *r = sorted[k];
		if (!pack_applies(&r->mcore, &r->bridge, t) || !diag_selected(&c->s.filter, r))
			continue;
		const char *mirror = pack_mirror_for(r->mirrors, r->n_mirrors, t);
		if (json)
			json_array_append_new(arr, json_pack("{s:s, s:s, s:s, s:s, s:o, s:o}", "rule", r->head.id, "name", r->head.name,
							     "severity", diag_sev_name(r->head.sev), "message", r->message,
							     "fix", r->head.fix ? json_string(r->head.fix) : json_null(), "mirrors",
							     mirror ? json_string(mirror) : json_null()));
		else
			printf("%-6s %-8s %-44s %s\n", r->head.id, diag_sev_name(r->head.sev), r->head.name, mirror ? mirror : "");
	}
	free(sorted);
	if (json) {
		json_dumpf(arr, stdout, JSON_INDENT(2));
		putchar('\n');
		json_decref(arr);
	}
	char dev[256];
	if (target_describe(t, dev))
		fprintf(stderr, "cglint: rules of %s\n", dev);
	return 0;
}

/* --cuda-path auto: the toolkit where CUDA's own tools look. NULL when none is there. */
static const char *find_toolkit(void)
{
	const char *env[] = {getenv("CUDA_PATH"), getenv("CUDA_HOME"), "/usr/local/cuda"};
	for (size_t k = 0; k < 3; k++) {
		char probe[4096];
		if (env[k] && *env[k] && snprintf(probe, sizeof(probe), "%s/include/cuda_runtime.h", env[k]) < (int)sizeof(probe) &&
		    access(probe, R_OK) == 0)
			return env[k];
	}
	return NULL;
}

static int show_clang_args(const struct cli *c)
{
	struct arena *a = arena_new();
	struct fe_clang_opts fo = {.cuda_path = c->s.lint.sources.cuda_path, .cdb_dir = c->s.lint.sources.cdb_dir,
				   .cdbs = fe_clang_cdbs_new()};
	for (size_t k = 0; k < c->n_paths; k++) {
		bool shim;
		const char **drop;
		for (const char **v = fe_clang_args(a, c->paths[k], "", 0, &fo, &shim, &drop); *v; v++)
			printf("%s\n", *v);
		if (*drop) {    /* on stderr: stdout stays one argument a line, for scripts */
			fprintf(stderr, "cglint: %s: left out of the compile command (they do not change parsing):", c->paths[k]);
			for (; *drop; drop++)
				fprintf(stderr, " %s", *drop);
			fputc('\n', stderr);
		}
	}
	fe_clang_cdbs_free(fo.cdbs);
	arena_free(a);
	return 0;
}

/* Print every output: --format on stdout, then each --output file. */
static int print_outputs(const struct cli *c, struct out_ctx *o, const struct diag_list *l)
{
	out_print(c->format, o, l);
	for (size_t k = 0; k < c->n_outputs; k++) {
		FILE *f = fopen(c->outputs[k].path, "w");
		if (!f) {
			fprintf(stderr, "cglint: --output %s: %s\n", c->outputs[k].path, strerror(errno));
			return 2;
		}
		struct out_ctx fo = {.f = f, .target = o->target, .texts = o->texts,
				     .suppressed = o->suppressed, .undecided = o->undecided, .fail_on = o->fail_on};
		out_print(c->outputs[k].format, &fo, l);
		if (fclose(f)) {
			fprintf(stderr, "cglint: --output %s: %s\n", c->outputs[k].path, strerror(errno));
			return 2;
		}
	}
	return 0;
}

/* Whether 'path' (symbolic links resolved) lies in a path given on the command line: --fix never
 * writes outside them, whatever a link in a walked folder points at. */
static bool fix_inside(const struct cli *c, const char *path)
{
	char real[PATH_MAX], given[PATH_MAX];
	if (!realpath(path, real))
		return true;    /* nothing there to escape to: the write itself reports */
	for (size_t k = 0; k < c->n_paths; k++) {
		if (!realpath(c->paths[k], given))
			continue;
		size_t n = strlen(given);
		if (!strcmp(real, given) || (!strncmp(real, given, n) && (real[n] == '/' || !strcmp(given, "/"))))
			return true;
	}
	return false;
}

static int refuse_fix(const char *path, const char *why)
{
	fprintf(stderr, "cglint: --fix: not writing %s: %s\n", path, why);
	return 2;
}

/* --fix and --diff: the mechanical edits, per file, from the texts the run read. Returns how many
 * findings the edits fix; a file that cannot be written is status 2. */
static int apply_fixes(const struct cli *c, struct session_result *res, size_t *fixed)
{
	const char *why;
	struct lint_run *r = &res->run;
	const char *stdin_name = r->opts->stdin_name ? r->opts->stdin_name : "<stdin>";
	bool from_stdin = false;
	for (size_t k = 0; k < c->n_paths; k++)
		from_stdin |= !strcmp(c->paths[k], "-");
	int rc = 0;
	*fixed = 0;
	struct arena *a = arena_new();
	for (size_t t = 0; t < text_count(res->texts); t++) {
		const char *buf;
		size_t len;
		const char *path = text_at(res->texts, t, &buf, &len);
		if (from_stdin && !strcmp(path, stdin_name))
			continue;       /* no file to change */
		struct fix_edits ed = {0};
		for (size_t k = 0; k < r->diags.n; k++) {
			const struct diag *d = &r->diags.items[k];
			struct fix_edit e;
			if (d->loc.path && !strcmp(d->loc.path, path) && fix_for(a, d, buf, len, &e))
				fix_edits_add(&ed, e);
		}
		if (!ed.n)
			continue;
		size_t new_len;
		char *fixed_text = fix_apply(a, buf, len, ed.e, ed.n, &new_len);
		free(ed.e);
		*fixed += ed.n;
		if (c->diff)
			fix_diff(stdout, path, buf, len, fixed_text, new_len);
		else if (!fix_inside(c, path))
			rc = refuse_fix(path, "it lies outside the paths given (through a symbolic link)");
		else if (fix_write(path, fixed_text, new_len, &why)) {
			if (why)
				rc = refuse_fix(path, why);
			else {
				fprintf(stderr, "cglint: --fix: cannot write %s: %s\n", path, strerror(errno));
				rc = 2;
			}
		}
	}
	arena_free(a);
	return rc;
}

/* An input's words on stderr (a path, a value in a note), escaped as the text format escapes them. */
static void put_err(const char *s)
{
	out_put_clean(stderr, s, strlen(s));
}

/* What could not be read is said on stderr, never skipped, where stdout holds no findings
 * (--diff's patch, facts, suggest): as lint prints it, with its position and the line. */
static void say_input_problems(const struct session_result *res)
{
	struct out_ctx err = {.f = stderr, .texts = res->texts};
	for (size_t k = 0; k < res->run.diags.n; k++)
		if (res->run.diags.items[k].rule && !strncmp(res->run.diags.items[k].rule->head.id, "CG9", 3))
			out_text.diag(&err, &res->run.diags.items[k]);
}

static int cmd_lint(struct session *s, struct cli *c, struct out_ctx *o)
{
	if (!c->n_paths)
		return usage_error("nothing to lint: give a file, a folder or '-'");
	if (c->show_args)
		return show_clang_args(c);
	struct session_result res;
	session_lint(s, c->paths, c->n_paths, &res);
	if (c->write_baseline) {
		int rc = 0;
		if (res.run.diags.input_error) {
			fprintf(stderr, "cglint: --write-baseline: an input could not be read or parsed; %s not written\n",
				c->s.baseline);
			rc = 2;
		} else if (baseline_write(c->s.baseline, &res.run.diags)) {
			fprintf(stderr, "cglint: --write-baseline: cannot write --baseline %s: %s\n", c->s.baseline,
				strerror(errno));
			rc = 2;
		} else {
			fprintf(stderr, "cglint: wrote %zu finding(s) to %s\n", res.run.diags.n, c->s.baseline);
		}
		session_result_release(&res);
		return rc;
	}
	if (c->fix || c->diff) {
		size_t fixed;
		int rc = apply_fixes(c, &res, &fixed);
		if (c->diff || rc) {
			fflush(stdout);         /* the patch first: a 2>&1 log never splits a hunk */
			if (c->diff)            /* the patch is all stdout holds: say what was not read */
				say_input_problems(&res);
			if (!rc && res.run.diags.input_error)
				rc = 2;
			session_result_release(&res);
			return rc ? rc : fixed ? 1 : 0;
		}
		fprintf(stderr, "cglint: fixed %zu finding(s)\n", fixed);
		if (fixed) {            /* report what is left in the files as they are now */
			session_result_release(&res);
			session_lint(s, c->paths, c->n_paths, &res);
		}
	}
	const struct diag_list *l = &res.run.diags;
	for (size_t k = 0; k < res.run.n_silent; k++) {
		fputs("cglint: ", stderr);
		put_err(res.run.silent[k].path);
		fprintf(stderr, ": %s\n", res.run.silent[k].why);
	}
	o->texts = res.texts;
	o->suppressed = &res.run.suppressed;   /* SARIF shows them, marked */
	o->undecided = &res.run.undecided;
	if (c->s.lint.show_undecided)  /* their own view, first: on stdout beside text findings, else stderr */
		summary_undecided(c->format == &out_text || c->format == &out_concise ? stdout : stderr, &res);
	int rc = print_outputs(c, o, l);
	fflush(stdout);         /* before anything on stderr: 2>&1 logs never splice a line */
	for (size_t k = 0; k < res.run.notes.n; k++) {
		const struct engine_note *n = &res.run.notes.items[k];
		put_err(n->loc.path);
		fprintf(stderr, ":%u:%u: normalized: ", n->loc.line, n->loc.col);
		put_err(n->text);
		fputc('\n', stderr);
	}
	struct summary_gate g;          /* what fails the run: --fail-on, else each file's .cglint.yaml */
	summary_gate(&res, c->fail_on_given ? c->fail_on : SUMMARY_FAIL_ON_CONFIG, &g);
	if (!c->quiet)
		summary_print(stderr, &res, c->exit_zero ? NULL : &g);
	if (!rc)
		rc = l->input_error ? 2 : (g.findings || g.undecided) && !c->exit_zero ? 1 : 0;
	if (MEM_CHECKED)        /* its last use: else exit takes the memory back at once (mem.h) */
		session_result_release(&res);
	return rc;
}

/* cglint facts: the run's units as the rules see them, instead of its findings. */
static int cmd_facts(struct session *s, struct cli *c, struct out_facts *sink, const struct out_ctx *o)
{
	if (!c->n_paths)
		return usage_error("facts: nothing to show: give a file, a folder or '-'");
	struct session_result res;
	session_lint(s, c->paths, c->n_paths, &res);
	out_facts_print(sink, stdout, o->target);
	fflush(stdout);
	int rc = res.run.diags.input_error ? 2 : 0;
	say_input_problems(&res);
	if (!out_facts_count(sink))
		fprintf(stderr, "cglint facts: no unit%s%s found\n", c->function ? " named " : "", c->function ? c->function : "");
	session_result_release(&res);
	return rc;
}

static bool may_write(void *ctx, const char *path)
{
	if (fix_inside(ctx, path))
		return true;
	refuse_fix(path, "it lies outside the paths given (through a symbolic link)");
	return false;
}

/* --fix's passes at most: a recipe that calls a patched one inherits its new setting, which the
 * next pass judges (Bridge's perf recipes call its library recipes: two passes). */
#define SUGGEST_PASSES 4

/* cglint suggest: the strongest CUDA-graph setting of each unit, or the patch that writes it.
 * --diff exits 1 when there is a patch, as lint --diff does; it shows the first pass. */
static int cmd_suggest(struct session *s, struct cli *c, struct sg *sg, const struct out_ctx *o)
{
	if (!c->n_paths)
		return usage_error("suggest: nothing to look at: give a file, a folder or '-'");
	struct session_result res;
	session_lint(s, c->paths, c->n_paths, &res);
	int rc = res.run.diags.input_error ? 2 : 0;
	for (int pass = 1; c->fix && pass <= SUGGEST_PASSES; pass++) {
		size_t files = 0;
		int prc = sg_patch(sg, res.texts, false, stdout, pass == 1 ? stderr : NULL, &files, may_write, c);
		if (prc) {
			rc = prc;
			break;
		}
		if (pass == 1)
			fprintf(stderr, "cglint suggest: --fix: wrote %zu file(s)\n", files);
		else if (files)
			fprintf(stderr, "cglint suggest: --fix: pass %d: wrote %zu file(s) again: their units call a "
				"recipe the pass before changed\n", pass, files);
		if (!files)
			break;
		if (pass == SUGGEST_PASSES) {
			fprintf(stderr, "cglint suggest: --fix: still changing after %d passes; run it again\n", pass);
			rc = 1;
			break;
		}
		session_result_release(&res);
		sg_clear(sg);
		session_lint(s, c->paths, c->n_paths, &res);
		rc = res.run.diags.input_error ? 2 : rc;
	}
	if (c->diff) {
		size_t files = 0;
		int prc = sg_patch(sg, res.texts, true, stdout, stderr, &files, may_write, c);
		if (prc)
			rc = prc;
		else if (files && !rc)
			rc = 1;
	} else if (!c->fix) {
		sg_print(sg, stdout, o->target);
	}
	fflush(stdout);
	say_input_problems(&res);
	if (!sg_count(sg))
		fprintf(stderr, "cglint suggest: no unit%s%s with model settings found\n", c->function ? " named " : "",
			c->function ? c->function : "");
	session_result_release(&res);
	return rc;
}

static void cli_release(struct cli *c)
{
	free(c->paths);
	free(c->s.lint.dotlists);
	free(c->s.lint.env_assigns);
	free(c->s.lint.env_files);
	free(c->s.lint.overlays);
	free(c->s.filter.select);
	free(c->s.filter.ignore);
	free(c->s.rule_files);
	free(c->outputs);
	free(c->configs);
}

/* Dotlist overrides are positional KEY=VALUE arguments that are not existing files. */
static void split_dotlists(struct cli *c)
{
	const char **paths = c->paths;
	size_t n = c->n_paths;
	c->paths = NULL;
	c->n_paths = 0;
	for (size_t k = 0; k < n; k++) {
		if (!cfg_is_dotlist(paths[k]) || access(paths[k], F_OK) == 0)
			push(&c->paths, &c->n_paths, paths[k]);
		else
			push(&c->s.lint.dotlists, &c->s.lint.n_dotlists, paths[k]);
	}
	free(paths);
}

/* --gpu auto, and probe --config: the GPU at hand decides. Without one, lint goes on with the
 * GPU unknown (a pre-commit hook on a laptop), while probe --config stops with status 4. */
static int detect_gpu(struct cli *c, struct arena *a, bool required)
{
	char why[512] = "";
	int rc = gpu_detect(c->gpu.program, &c->s.lint.target, a, why, sizeof(why));
	if (rc == 0 && c->s.lint.verbose)
		fprintf(stderr, "cglint: --gpu auto: %s, %s\n", why, c->s.lint.target.gpu);
	if (rc == 0 || !required) {
		if (rc)
			fprintf(stderr, "cglint: --gpu auto: %s; GPU-dependent rules treat the GPU as unknown\n", why);
		return 0;
	}
	fprintf(stderr, "cglint probe: %s\n", why);
	return rc;
}

/* Option combinations that make no sense are usage errors, before any work. */
static int check_combinations(const char *cmd, const struct cli *c, bool probe)
{
	if (c->probe_only_opt && !probe)
		return usage_error("--%s belongs to 'cglint probe'", c->probe_only_opt);
	if (c->write_baseline && !c->s.baseline)
		return usage_error("--write-baseline: no file to write: name it with --baseline FILE "
				   "(for example --baseline .cglint-baseline.json)");
	if (c->fix && c->diff)
		return usage_error("--fix and --diff exclude each other: --diff shows what --fix would do");
	if ((c->fix || c->diff) && strcmp(cmd, "lint") && strcmp(cmd, "suggest"))
		return usage_error("--fix and --diff belong to 'cglint lint' and 'cglint suggest'");
	if (c->write_baseline && strcmp(cmd, "lint"))
		return usage_error("--write-baseline belongs to 'cglint lint'");
	if (c->allow_fi && strcmp(cmd, "suggest"))
		return usage_error("--allow belongs to 'cglint suggest'");
	return 0;
}

static int run(const char *cmd, struct cli *c, struct arena *a)
{
	bool probe = !strcmp(cmd, "probe");
	int rc = check_combinations(cmd, c, probe);
	if (rc)
		return rc;
	if (probe && c->n_configs) {
		/* probe --config a.yaml b.sh: lint them for this machine */
		for (size_t k = 0; k < c->n_configs; k++)
			push(&c->paths, &c->n_paths, c->configs[k]);
		c->gpu_auto = true;
		gpu_environ(&c->s.lint.env_assigns, &c->s.lint.n_env_assigns);
	} else if (probe && (c->n_paths || c->gpu_auto)) {
		return usage_error("probe takes no paths (lint them with --config FILE) and finds the GPU itself");
	}
	if (!strcmp(cmd, "lint") || !strcmp(cmd, "lsp") || !strcmp(cmd, "facts") || !strcmp(cmd, "suggest") || c->n_configs)
		split_dotlists(c);
	const char *cp = c->s.lint.sources.cuda_path;
	if (cp && !strcmp(cp, "auto"))
		c->s.lint.sources.cuda_path = find_toolkit();
	else if (cp && strcmp(cp, "none") && access(cp, R_OK) != 0)
		return usage_error("--cuda-path %s: no such folder", cp);
	if (c->gpu_auto && (rc = detect_gpu(c, a, probe)))
		return rc;
	if (!strcmp(cmd, "lsp")) {
		if (c->n_paths)
			return usage_error("lsp takes no paths: the editor sends the documents");
		return lsp_main(&c->s, stdin, stdout);  /* nothing may read stdin before this */
	}
	bool tty = isatty(fileno(stdout));
	const char *nc = getenv("NO_COLOR"), *term = getenv("TERM");
	struct session_opts so = c->s;
	if (c->write_baseline)
		so.baseline = NULL;     /* it is written, not read */
	bool facts = !strcmp(cmd, "facts"), suggest = !strcmp(cmd, "suggest");
	if (c->function && !facts && !suggest)
		return usage_error("--function belongs to 'cglint facts' and 'cglint suggest'");
	if ((facts || suggest) && c->format != &out_text && c->format != &out_json)
		return usage_error("%s prints text or json, not %s", cmd, c->format->name);
	struct out_facts *sink = facts ? out_facts_new(c->format == &out_json, c->function) : NULL;
	if (facts) {            /* units judged here, so that each reaches the sink */
		so.lint.on_facts = out_facts_unit;
		so.lint.on_facts_ctx = sink;
		so.lint.sources.jobs = 1;
	}
	struct sg *sg = NULL;
	if (suggest) {          /* likewise: each unit reaches the stage in this process */
		sg = sg_new(&(struct sg_opts){.allow_full_iteration = c->allow_fi, .json = c->format == &out_json,
					      .function = c->function});
		so.lint.on_unit = sg_unit;
		so.lint.on_unit_ctx = sg;
		so.lint.sources.jobs = 1;
	}
	struct diag_list problems;
	struct session *s = session_new(&so, a, &problems);
	if (!s) {
		out_facts_free(sink);
		sg_free(sg);
		return 2;
	}
	if (sg)
		sg_set_pack(sg, session_pack(s));
	struct out_ctx o = {
		.f = stdout,
		.color = c->color == 1 || (c->color == -1 && tty && !(nc && *nc) && !(term && !strcmp(term, "dumb"))),
		.target = session_target(s),
		.fail_on = c->fail_on, .quiet = c->quiet,
	};
	c->s.lint.target = *session_target(s);
	const struct pack *p = session_pack(s);
	if (problems.n) {
		/* pack and baseline problems are diagnostics like any input's, in the format asked for */
		out_print(c->format, &o, &problems);
		rc = 2;
	} else if (!strcmp(cmd, "explain")) {
		rc = c->n_paths == 1 ? cmd_explain(p, c->paths[0], &c->s.lint.target,
									c->s.lint.mcore_given || c->s.lint.bridge_given) : usage_error("explain wants one rule id");
	} else if (!strcmp(cmd, "rules")) {
		rc = cmd_rules(p, c);
	} else if (probe && !c->n_configs) {
		rc = gpu_verify(p, &c->gpu, c->format == &out_json);
	} else if (facts) {
		rc = cmd_facts(s, c, sink, &o);
	} else if (suggest) {
		rc = cmd_suggest(s, c, sg, &o);
	} else {
		rc = cmd_lint(s, c, &o);
	}
	diag_release(&problems);
	if (MEM_CHECKED)        /* as cmd_lint's result */
		session_free(s);
	out_facts_free(sink);
	sg_free(sg);
	return rc;
}

int main(int argc, char **argv)
{
	struct cli c = {.format = &out_text, .fail_on = SEV_ERROR, .color = -1};
	const char *cmd = NULL;
	int first = 1;
	if (argc > 1 && opts_is_command(argv[1]))
		cmd = argv[first++];
	if (cmd && !strcmp(cmd, "completion")) {
		if (argc == 3 && (!strcmp(argv[2], "--help") ? (help_print(stdout, cmd), 1) : !opts_completion(stdout, argv[2])))
			return 0;
		return usage_error("completion wants one shell: bash, zsh or fish");
	}
	argv[first - 1] = argv[0];
	int rc = parse_args(argc - first + 1, argv + first - 1, &c, &cmd);
	struct arena *a = arena_new();
	if (!rc)
		rc = run(cmd, &c, a);
	else if (rc < 0)
		rc = 0;         /* --help, --version */
	cli_release(&c);
	arena_free(a);
	return rc;
}

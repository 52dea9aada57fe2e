/* SPDX-License-Identifier: MIT */
/*
 * pack: rule packs (the YAML files in rules/) loaded into rules, normalization steps, defaults and the
 * keys did-you-mean knows. Packs are data; this module validates them on load and reports
 * every problem at the pack's own file:line (CG910). The built-in packs are embedded at
 * build time; --rules adds more.
 *
 * A pack owns everything it loaded; rules and strings live until pack_free.
 */
#ifndef CGLINT_PACK_H
#define CGLINT_PACK_H

#include <stdbool.h>
#include <stddef.h>

#include "base/diag.h"
#include "base/strmap.h"
#include "base/value.h"
#include "config/target.h"

struct expr;
struct node;
struct diag_list;

/*
 * A condition of a rule or a step, as its pack wrote it. The built-in packs' conditions are
 * parsed on first use: a run needs the few whose rules apply to its target, and parsing all of
 * them was a third of start-up. The build parses every one (pack_parse_all, which
 * cglint_rule_docs runs), so a broken built-in condition stops the build; a --rules pack is
 * parsed whole on load, its errors at its own lines. A pack is used from one thread.
 */
struct cond;
const struct expr *pack_cond(struct cond *c);   /* NULL for NULL */

enum check_kind {
#define CHECK(tag, name, fn) CHECK_##tag,
#include "config/checks.def"
#undef CHECK
	CHECK_NONE,     /* the rule has a 'when:' condition */
};

/* Which source line a rule mirrors, for which versions ("mcore 0.16", "bridge >=0.3"). */
struct mirror {
	const char *label;
	bool of_bridge;
	struct vrange range;
	const char *where;
};

struct rule {
	struct diag_rule head;          /* first: what the funnel reads of it (base/diag.h) */
	struct vrange mcore, bridge;
	struct cond *when;
	const char *when_src;
	enum check_kind check;
	const char *key;                /* unknown-values: the key; also the default 'at' */
	struct value values;            /* unknown-values: allowed items */
	const char **at;                /* keys whose position the diagnostic takes, first set wins */
	struct cond **at_when;          /* per 'at' key: only when this holds (NULL: always) */
	size_t n_at;
	const char *message, *doc;
	/* the fix in the input's own language where 'fix' (YAML) does not fit: a Python recipe,
	 * Bridge's perf harness (run_script.py), Megatron-LM's arguments; NULL: 'fix' */
	const char *fix_python, *fix_harness, *fix_mlm;
	const char **autofix_keys;      /* a mechanical fix: key at the diagnostic -> the text it takes */
	const char **autofix_values;
	size_t n_autofix;
	struct mirror *mirrors;
	size_t n_mirrors;
	const char **reports;           /* public threads that show the failure (https:// addresses) */
	size_t n_reports;
	struct loc defined;
	bool builtin;                   /* from the packs compiled in: it has a page (docs/rules/ID.md) */
	unsigned index;                 /* in pack->rules */
	struct rule *variant;           /* the next rule with this id (per-version variants) */
};

/* A normalization step: when 'when' holds, each key takes its expression's value. */
struct step {
	const char *id;
	struct vrange mcore, bridge;
	struct cond *when;
	const char **keys;
	struct cond **exprs;
	size_t n;
	const char *note;
	struct mirror *mirrors;
	size_t n_mirrors;
};

struct pack_default {
	const char *key;
	struct value val;
	struct vrange mcore, bridge;
};

/*
 * A command-line flag of a training program and the facts it sets (catalogue §A.2, §A.3).
 * 'nargs' is how many words follow: 0 (a switch, which sets 'value'), 1, or PACK_NARGS_LIST for
 * argparse's nargs='+'; PACK_NARGS_GUESS reads what follows up to the next flag.
 */
enum { PACK_NARGS_GUESS = -1, PACK_NARGS_LIST = -2 };

struct pack_flag {
	const char *program;            /* "megatron-lm", "bridge-perf" or "bridge-recipe" */
	const char *flag;               /* "--cuda-graph-impl" */
	const char **keys;              /* facts it sets */
	size_t n_keys;
	struct value value;             /* for a switch; V_UNKNOWN when the words give the value */
	int nargs;
	const char *split;              /* one word split into a list on this separator ("," ) */
	bool env;                       /* NAME=VALUE pairs for the job's environment */
	struct vrange mcore, bridge;    /* releases whose parser has the flag */
	bool hint;                      /* names "graph" or "rng": a misspelt flag is offered it */
	size_t next_same;               /* the next entry for the same flag, or SIZE_MAX */
};

/*
 * A library call the source checks know (rules/capture.yaml 'apis'): its part in a capture and,
 * for a hazard, the rule it breaks. Argument positions are 0-based, -1 where the call has none.
 */
enum api_role {
	API_HAZARD,             /* breaks 'rule' inside a capture */
	API_BEGIN, API_END, API_INSTANTIATE, API_UPDATE, API_CREATE, API_DESTROY,
	API_STREAM_CREATE, API_RECORD, API_WAIT,
	API_RELAX,              /* cudaThreadExchangeStreamCaptureMode */
	API_RELAX_GUARD,        /* an object that makes the thread relaxed while it lives */
	API_ENQUEUE,            /* work on a stream: 'rule' when that is the legacy stream */
	API_GRAPH_LAUNCH,
	API_USE,                /* takes a graph or executable without owning it */
	API_STATUS,             /* tells whether a stream captures: 'status' out-argument, else the result */
	API_EXIT,               /* does not return (exit, abort, a failed check) */
};

#define PACK_ARG_LAST 99        /* the call's last argument */

struct pack_api {
	const char *name;               /* qualified: "cudaMemcpy", "at::Tensor::item" */
	enum api_role role;
	const struct rule *rule;        /* NULL for the capture machinery */
	bool unsafe;                    /* only where the thread may not make unsafe calls */
	bool must_use;                  /* its result must be checked (CG405) */
	const char *effect, *effect_nonblocking;
	const char **when_arg;          /* only if an argument names one of these */
	size_t n_when_arg;
	int stream, mode, graph, exec, event, flags, status;
};

/*
 * What a rule's doc claims the driver does, for one probe row (rules/capture.yaml 'probe'):
 * a list of expectations, each for some capture modes and stream kinds; the first that covers
 * a cell is its claim. A field left out is not claimed.
 */
enum { PROBE_MODE_GLOBAL, PROBE_MODE_THREAD_LOCAL, PROBE_MODE_RELAXED, PROBE_N_MODES };
enum { PROBE_STREAM_BLOCKING, PROBE_STREAM_NONBLOCKING, PROBE_N_STREAMS };
#define PACK_EXPECT_ANY (-1)            /* field not claimed */
#define PACK_EXPECT_ERROR (-2)          /* call/end: any non-zero result */

struct pack_expect {
	unsigned modes, streams;        /* bit sets over PROBE_MODE_* / PROBE_STREAM_* */
	int call, end;                  /* a result code, PACK_EXPECT_ERROR or _ANY */
	int status;                     /* index in pack_probe_status, or _ANY */
	int replay;                     /* index in pack_probe_replay, or _ANY */
	int at_capture;                 /* 0, 1 or _ANY */
	/* multi-GPU rows (RANKS-*): bit sets over pack_probe_mems / _graph_register / _bools */
	unsigned mems, graph_regs, regs;
	int hang;                       /* 0, 1 or _ANY */
	struct loc loc;
};

struct pack_claim {
	const char *row;                /* the probe's row id: "SYNC-DEV" */
	const struct rule *rule;
	struct pack_expect *expect;
	size_t n_expect;
	struct loc loc;
};

extern const char *const pack_probe_modes[];    /* "global", "thread_local", "relaxed" */
extern const char *const pack_probe_streams[];  /* "blocking", "nonblocking" */
extern const char *const pack_probe_status[];   /* "none", "active", "invalidated", "error" */
extern const char *const pack_probe_replay[];   /* "none", "ok", "missing", "failed" */
extern const char *const pack_probe_bools[];    /* "false", "true" */
extern const char *const pack_probe_mems[];     /* "malloc", "vmm", "vmm_remap" */
extern const char *const pack_probe_graph_register[]; /* "unset", "0", "1" */

/*
 * A name of rules/fields.yaml (generated by tools/fields.py from upstream's code), found in the
 * releases 'range': a field of a ConfigContainer section (of Bridge releases), or an option of a
 * program's parser ('option', of Megatron Core releases); 'extra' marks options only some entry
 * points add (Model Optimizer's).
 */
struct pack_name_hit {
	const struct vrange *range;
	bool option, extra;
};
struct pack_names_index;

/* The scanner's API table and the probe's claims, apart from the pack so that a const pack can read
 * the built-in ones on first use (pack_apis): only sources and the probe need them. */
struct pack_tables {
	struct pack_claim *claims;      /* in pack order */
	size_t n_claims, cap_claims;
	struct pack_api *apis;          /* sorted by name once loaded */
	size_t n_apis, cap_apis;
	bool unread;                    /* the built-in packs' 'apis' and 'probe' are not read yet */
	struct pack *pack;              /* the pack they belong to, which reads them */
};

struct pack {
	struct arena *arena;
	struct pack_tables *src;
	struct rule **rules;
	size_t n_rules, cap_rules;
	struct strmap by_id, by_name;   /* the first rule of each id and name, as its index */
	struct step **steps;
	size_t n_steps, cap_steps;
	struct pack_default *defaults;
	size_t n_defaults, cap_defaults;
	struct pack_flag *flags;
	size_t n_flags, cap_flags;
	struct strmap flag_first;       /* a flag ("--cuda-graph-impl") -> its first entry's index */
	const char **suggest;           /* keys did-you-mean offers */
	size_t n_suggest, cap_suggest;
	struct strmap suggest_keys;     /* each of them -> its index */
	struct strmap suggest_last;     /* a parent ("model" of "model.x") -> its last key's index */
	size_t *suggest_prev;           /* the key before with the same parent, or SIZE_MAX */
	struct pack_names_index *names_ix; /* rules/fields.yaml's sets, read and indexed on first use
					    * (pack_names.c) */
	struct diag_rules lookup;       /* the pack as the funnel sees it: diag_init(.., &p->lookup, ..) */
};

/* The built-in packs, parsed at build time (cmake/pack_compile.c) into node trees: in load order. */
struct pack_tree {
	const char *path;               /* rules/NAME.yaml */
	struct node *root;
};
extern const struct pack_tree pack_trees[];
extern const size_t pack_n_trees;

struct pack *pack_new(void);
void pack_free(struct pack *p);

/*
 * Load one pack's text into 'p'. Problems are reported into 'd' (whose pack must already hold
 * the CG9xx input rules, i.e. the built-in input pack loaded first). Returns 0 or -1.
 */
int pack_load(struct pack *p, struct diag_list *d, const char *path, const char *text, size_t len);
/* Load the packs compiled into the binary; exits with status 3 if they are broken. */
void pack_load_builtin(struct pack *p);
/* Parse every condition not parsed yet, and check the keys of the built-in packs (which a run
 * trusts), reporting each broken one into 'd'; returns 0 or -1. The build runs it. */
int pack_parse_all(struct pack *p, struct diag_list *d);

/* The rule with this id (in any case) or name, or NULL. */
const struct rule *pack_find(const struct pack *p, const char *id_or_name);
/* The rule id or name closest to a misspelt one (case and look-alikes cost least), or NULL. */
const char *pack_closest_rule(const struct pack *p, const char *word);
/* Whether rules were loaded from the pack file 'path' already. */
bool pack_has_rules_from(const struct pack *p, const char *path);
bool pack_applies(const struct vrange *mcore, const struct vrange *bridge, const struct target *t);
const char *pack_mirror_for(const struct mirror *m, size_t n, const struct target *t);
const char *pack_check_name(enum check_kind k);
/* The first table entry for a flag of any program and release, or NULL; next_same chains the rest. */
const struct pack_flag *pack_flag_first(const struct pack *p, const char *flag);
/* The releases (at most 'max') in which section (or program) 'sec' has name[0..len): how many,
 * 0 for none, -1 when no name set covers the section. */
int pack_names_find(const struct pack *p, const char *sec, const char *name, size_t len, struct pack_name_hit *hits,
		    size_t max);
/* A name pack_names_each offers, for pack_names_hits. */
struct pack_names_item {
	const void *set;
	size_t k;
};
/* Every name of section 'sec' of 'lo' to 'hi' bytes (not NUL-ended: 'len' bytes). */
void pack_names_each(const struct pack *p, const char *sec, size_t lo, size_t hi,
		     void (*fn)(void *ctx, const char *name, size_t len, struct pack_names_item it), void *ctx);
/* The releases (at most 'max') that have the name pack_names_each offered. */
size_t pack_names_hits(struct pack_names_item it, struct pack_name_hit *hits, size_t max);
/* The scanner's API table (sorted by name) and the probe's claims (in pack order), read on first
 * use as pack_names_find's sets are: a pack is used from one thread. */
const struct pack_api *pack_apis(const struct pack *p, size_t *n);
const struct pack_claim *pack_claims(const struct pack *p, size_t *n);
/* The entries for a call name (several roles may share one), or NULL with *n = 0. */
const struct pack_api *pack_api_find(const struct pack *p, const char *name, size_t *n);
/* The claim for a probe row, or NULL. */
const struct pack_claim *pack_claim_find(const struct pack *p, const char *row);
/* The expectation covering a cell, or NULL when the doc claims nothing there. */
const struct pack_expect *pack_expect_for(const struct pack_claim *c, int mode, int stream);
/* The same for a multi-GPU cell: memory kind, NCCL_GRAPH_REGISTER, ncclCommRegister (0/1). */
const struct pack_expect *pack_expect_for_ranks(const struct pack_claim *c, int mem, int graph_register, int reg);
/* A word of a NULL-terminated list: its index, or -1. */
int pack_word(const char *const *words, const char *s);

#endif

/* SPDX-License-Identifier: MIT */
/*
 * pyfix: the mechanical fixes edit a Python value in place, in its Python spelling: fix_for on a
 * made-up rule, called directly. --fix and --diff on Python recipes end to end are test_python.c.
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/diag.h"
#include "base/mem.h"
#include "config/pack.h"
#include "report/fix.h"

#define expect_str(got, want) cr_expect_str_eq(got, want, "\n--- got:\n%s\n--- wanted:\n%s", got, want)

/* ---- fix_for on Python text ------------------------------------------------------------- */

static const char *fix_keys[] = {"rng.te_rng_tracker", "model.use_te_rng_tracker", "model.cuda_graph_impl",
				 "model.cuda_graph_scope", "train.note"};
static const char *fix_values[] = {"true", "true", "transformer_engine", "null", "it's \"x\""};
static const struct rule fix_rule = {.head = {"CG999", "made-up", SEV_ERROR, NULL},
				     .autofix_keys = fix_keys, .autofix_values = fix_values, .n_autofix = 5};

/*
 * The text after the fix of 'key' for a diagnostic on line 'line' at the first 'at' of that line
 * (fe_py's byte column); NULL when fix_for offers none. '*title' (if asked) the edit's title.
 */
static char *fixed(struct arena *a, const char *text, unsigned line, const char *at, const char *key,
		   const char **title)
{
	const char *l = text;
	for (unsigned k = 1; k < line; k++)
		l = strchr(l, '\n') + 1;
	const char *p = strstr(l, at);
	cr_assert_not_null(p, "'%s' is not in the text", at);
	struct diag d = {.rule = &fix_rule, .sev = SEV_ERROR, .loc = {"r.py", line, (unsigned)(p - l) + 1}, .key = key};
	struct fix_edit e;
	if (!fix_for(a, &d, text, strlen(text), &e))
		return NULL;
	size_t n;
	char *out = fix_apply(a, text, strlen(text), &e, 1, &n);
	if (title)
		*title = e.title;
	return out;
}

#define expect_fix(text, line, at, key, want)                                         \
	do {                                                                          \
		char *got_ = fixed(a, text, line, at, key, NULL);                     \
		cr_expect_not_null(got_, "no fix for %s in:\n%s", key, text);         \
		if (got_)                                                             \
			expect_str(got_, want);                                       \
	} while (0)

#define expect_no_fix(text, line, at, key)                                                 \
	do {                                                                               \
		char *got_ = fixed(a, text, line, at, key, NULL);                          \
		cr_expect_null(got_, "a fix for %s although unsafe:\n%s", key, got_ ? got_ : ""); \
	} while (0)

Test(pyfix, literals_in_python_spelling)
{
	struct arena *a = arena_new();
	const char *title;
	char *got = fixed(a, "def f():\n    cfg.rng.te_rng_tracker = False  # keep me\n", 2, "te_rng_tracker",
			  "rng.te_rng_tracker", &title);
	cr_assert_not_null(got);
	expect_str(got, "def f():\n    cfg.rng.te_rng_tracker = True  # keep me\n");
	expect_str(title, "set rng.te_rng_tracker = True");
	/* strings keep their quote; None for null; escapes where the quote is in the value */
	expect_fix("cfg.model.cuda_graph_impl = 'local'\n", 1, "cuda_graph_impl", "model.cuda_graph_impl",
		   "cfg.model.cuda_graph_impl = 'transformer_engine'\n");
	expect_fix("cfg.model.cuda_graph_impl = \"local\";x = 1\n", 1, "cuda_graph_impl", "model.cuda_graph_impl",
		   "cfg.model.cuda_graph_impl = \"transformer_engine\";x = 1\n");
	expect_fix("cfg.model.cuda_graph_scope = \"full\"\n", 1, "cuda_graph_scope", "model.cuda_graph_scope",
		   "cfg.model.cuda_graph_scope = None\n");
	expect_fix("cfg.train.note = 'a'\n", 1, "note", "train.note", "cfg.train.note = 'it\\'s \"x\"'\n");
	expect_fix("cfg.train.note = \"a\"\n", 1, "note", "train.note", "cfg.train.note = \"it's \\\"x\\\"\"\n");
	/* a number or None replaced by a string gets double quotes; CRLF stays */
	expect_fix("cfg.model.cuda_graph_impl = None\r\n", 1, "cuda_graph_impl", "model.cuda_graph_impl",
		   "cfg.model.cuda_graph_impl = \"transformer_engine\"\r\n");
	/* a statement after another on its line, a ';' inside a string before it */
	expect_fix("x = 'a;b'; cfg.rng.te_rng_tracker = False; y = 1\n", 1, "te_rng_tracker", "rng.te_rng_tracker",
		   "x = 'a;b'; cfg.rng.te_rng_tracker = True; y = 1\n");
	/* already right: nothing to do */
	expect_no_fix("cfg.rng.te_rng_tracker = True\n", 1, "te_rng_tracker", "rng.te_rng_tracker");
	arena_free(a);
}

Test(pyfix, keywords_dict_entries_and_positions_on_the_literal)
{
	struct arena *a = arena_new();
	const char *ctor = "cfg = ConfigContainer(\n"
			   "    model=GPTModelProvider(cuda_graph_impl=\"local\", use_te_rng_tracker=False),\n"
			   "    rng=RNGConfig(te_rng_tracker=False, seed=1),\n"
			   ")\n";
	expect_fix(ctor, 3, "te_rng_tracker", "rng.te_rng_tracker",
		   "cfg = ConfigContainer(\n"
		   "    model=GPTModelProvider(cuda_graph_impl=\"local\", use_te_rng_tracker=False),\n"
		   "    rng=RNGConfig(te_rng_tracker=True, seed=1),\n"
		   ")\n");
	expect_fix(ctor, 2, "use_te_rng_tracker", "model.use_te_rng_tracker",
		   "cfg = ConfigContainer(\n"
		   "    model=GPTModelProvider(cuda_graph_impl=\"local\", use_te_rng_tracker=True),\n"
		   "    rng=RNGConfig(te_rng_tracker=False, seed=1),\n"
		   ")\n");
	/* the position on the literal, as value positions are */
	expect_fix(ctor, 2, "\"local\"", "model.cuda_graph_impl",
		   "cfg = ConfigContainer(\n"
		   "    model=GPTModelProvider(cuda_graph_impl=\"transformer_engine\", use_te_rng_tracker=False),\n"
		   "    rng=RNGConfig(te_rng_tracker=False, seed=1),\n"
		   ")\n");
	expect_fix("    te_rng_tracker = False,\n", 1, "False", "rng.te_rng_tracker", "    te_rng_tracker = True,\n");
	expect_fix("overrides = {\"cuda_graph_impl\": 'local', \"x\": 1}\n", 1, "\"cuda_graph_impl\"",
		   "model.cuda_graph_impl", "overrides = {\"cuda_graph_impl\": 'transformer_engine', \"x\": 1}\n");
	expect_fix("overrides = {\"cuda_graph_impl\": 'local'}\n", 1, "'local'", "model.cuda_graph_impl",
		   "overrides = {\"cuda_graph_impl\": 'transformer_engine'}\n");
	/* a literal after another key, or after a comparison, is not this key's */
	expect_no_fix("f(use_te_rng_tracker=False)\n", 1, "False", "rng.te_rng_tracker");
	expect_no_fix("ok = cfg.rng.te_rng_tracker == False\n", 1, "te_rng_tracker", "rng.te_rng_tracker");
	expect_no_fix("ok = te_rng_tracker <= False\n", 1, "False", "rng.te_rng_tracker");
	arena_free(a);
}

Test(pyfix, chains_only_when_every_target_wants_the_value)
{
	struct arena *a = arena_new();
	expect_fix("    cfg.rng.te_rng_tracker = cfg.model.use_te_rng_tracker = False\n", 1, "te_rng_tracker",
		   "rng.te_rng_tracker", "    cfg.rng.te_rng_tracker = cfg.model.use_te_rng_tracker = True\n");
	expect_fix("    cfg.rng.te_rng_tracker = cfg.model.use_te_rng_tracker = False\n", 1, "use_te_rng_tracker",
		   "model.use_te_rng_tracker", "    cfg.rng.te_rng_tracker = cfg.model.use_te_rng_tracker = True\n");
	/* the literal is also another key's value, which the fix does not want changed */
	expect_no_fix("    cfg.rng.te_rng_tracker = cfg.train.check = False\n", 1, "te_rng_tracker", "rng.te_rng_tracker");
	expect_no_fix("    cfg.model.cuda_graph_impl = cfg.rng.te_rng_tracker = \"local\"\n", 1, "cuda_graph_impl",
		      "model.cuda_graph_impl");
	arena_free(a);
}

Test(pyfix, values_it_cannot_rewrite_are_left_alone)
{
	struct arena *a = arena_new();
	static const char *const texts[] = {
		"cfg.rng.te_rng_tracker = flag\n",
		"cfg.rng.te_rng_tracker = False or flag\n",
		"cfg.rng.te_rng_tracker = not True\n",
		"cfg.rng.te_rng_tracker = (False)\n",
		"cfg.rng.te_rng_tracker = False \\\n    or flag\n",
		"cfg.rng.te_rng_tracker = base.te_rng_tracker = False if x else True\n",
		"cfg.rng.te_rng_tracker += False\n",
		"cfg.rng.te_rng_tracker: bool = False\n",
		"cfg.rng.te_rng_tracker = get(te_rng_tracker=False)\n",
		"if x: cfg.rng.te_rng_tracker = False\n",
	};
	for (size_t k = 0; k < sizeof(texts) / sizeof(texts[0]); k++)
		expect_no_fix(texts[k], 1, "te_rng_tracker", "rng.te_rng_tracker");
	static const char *const impl[] = {
		"cfg.model.cuda_graph_impl = f\"loc{al}\"\n",
		"cfg.model.cuda_graph_impl = \"lo\" \"cal\"\n",
		"cfg.model.cuda_graph_impl = \"\"\"local\"\"\"\n",
		"cfg.model.cuda_graph_impl = IMPL\n",
		"cfg.model.cuda_graph_impl = \"local\" + suffix\n",
		"cfg.model.cuda_graph_impl = \"local\n",
	};
	for (size_t k = 0; k < sizeof(impl) / sizeof(impl[0]); k++)
		expect_no_fix(impl[k], 1, "cuda_graph_impl", "model.cuda_graph_impl");
	arena_free(a);
}

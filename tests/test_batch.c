/* SPDX-License-Identifier: MIT */
/*
 * batch: configs, recipes and scripts checked in chunks by -j worker processes (run/batch.h).
 * The output is the same, byte for byte, and so is the exit status, whatever -j is: on a
 * folder of many configs with findings and files that do not parse, and on every fixture. In
 * the library, the items really go to workers, come back in queue order between the findings
 * made while they were queued, and a worker that dies has its items checked here.
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/diag.h"
#include "base/mem.h"
#include "config/pack.h"
#include "harness.h"
#include "run/batch.h"
#include "run/lint.h"

/* Run 'args' in 'where' with -j 1 and with each other -j: stdout (and stderr, with 2>&1 in
 * args) and the exit status must not change. Returns the -j 1 output. */
static char *same_for_every_j(const char *where, const char *args, int want_rc)
{
	char a[512], *first = NULL;
	static const unsigned js[] = {1, 2, 4, 7};
	for (size_t k = 0; k < sizeof(js) / sizeof(js[0]); k++) {
		char *out = NULL;
		snprintf(a, sizeof(a), "-j %u %s", js[k], args);
		int rc = harness_run(where, a, &out);
		cr_expect_eq(rc, want_rc, "cglint %s: exit %d", a, rc);
		if (!first) {
			first = out;
			continue;
		}
		cr_expect(!strcmp(out, first), "cglint %s: not what -j 1 printed (%zu bytes against %zu)", a,
			  strlen(out), strlen(first));
		free(out);
	}
	return first;
}

TestSuite(batch, .init = harness_init_bare, .fini = harness_fini);

/* 300 configs with findings, one that does not parse, a broken script and a broken recipe. */
Test(batch, many_configs_print_the_same_for_every_j)
{
	static const char *const seeds[] = {"config/CG104-default-target.ko.yaml", "config/CG101-bridge06.ko.yaml",
					    "mlm/CG110-mlm-mcore019.ko.yaml", "perf/CG145.ko.sh"};
	char path[512], name[64];
	for (size_t k = 0; k < 300; k++) {
		size_t len;
		const char *seed = seeds[k % (sizeof(seeds) / sizeof(seeds[0]))];
		snprintf(path, sizeof(path), "%s/%s", CGLINT_FIXTURES, seed);
		if (access(path, R_OK))
			cr_skip_test("fixture %s is gone: pick another", seed);
		char *text = harness_read(NULL, path, &len);
		snprintf(name, sizeof(name), "%03zu-%s", k, strrchr(seed, '/') + 1);
		free(harness_write(harness_dir, name, text, len));
		free(text);
	}
	static const char broken[] = "model:\n  cuda_graph_impl: local\n  cuda_graph_scope: [attn\n";
	free(harness_write(harness_dir, "150-broken.yaml", broken, sizeof(broken) - 1));
	static const char script[] = "#!/bin/bash\nif [ x; then\ntorchrun pretrain_gpt.py --cuda-graph-impl local\n";
	free(harness_write(harness_dir, "151-broken.sh", script, sizeof(script) - 1));
	static const char recipe[] = "def r():\n    cfg = ConfigContainer()\n    cfg.model.cuda_graph_impl = \"local\"\n"
				     "    cfg.rng.te_rng_tracker = False\n    x = (\n";
	free(harness_write(harness_dir, "152-broken.py", recipe, sizeof(recipe) - 1));

	char *text = same_for_every_j(harness_dir, ". 2>&1", 2);
	cr_expect(strstr(text, "150-broken.yaml:") && strstr(text, "[CG901"), "the YAML syntax error is reported");
	cr_expect(strstr(text, "299-CG145"), "the last file's findings are there");
	cr_expect(strstr(text, "cglint: ") && strstr(text, "303 files checked"), "one summary line, every file counted");
	free(text);
	free(same_for_every_j(harness_dir, "--format json .", 2));
	free(same_for_every_j(harness_dir, "--format sarif --fail-on note .", 2));
	free(same_for_every_j(harness_dir, "-v --format concise . 2>&1", 2));
}

/* Every fixture that is not a source (those have their own -j test), each format. */
Test(batch, every_fixture_prints_the_same_for_every_j)
{
	const char *folders = "config input mlm perf project python examples/*.yaml examples/*.sbatch";
	char args[256];
	snprintf(args, sizeof(args), "%s 2>&1", folders);
	free(same_for_every_j(CGLINT_FIXTURES, args, 2));
	snprintf(args, sizeof(args), "--format json --no-inline-suppressions %s", folders);
	free(same_for_every_j(CGLINT_FIXTURES, args, 2));
	/* the input fixtures cglint cannot read or parse make --diff exit 2, as every mode */
	snprintf(args, sizeof(args), "--diff %s", folders);
	free(same_for_every_j(CGLINT_FIXTURES, args, 2));
}

/* 2,100 recipes, each calling a helper in a module of its own: past the run's 2,048 modules
 * (FE_PY_MAX_FILES) one process follows no more calls, and neither may the workers that share
 * the queue. */
Test(batch, the_module_budget_is_the_runs)
{
	char path[512], text[512];
	snprintf(path, sizeof(path), "mkdir -p '%s/pkg' '%s/recipes'", harness_dir, harness_dir);
	cr_assert_eq(system(path), 0);
	free(harness_write(harness_dir, "pkg/__init__.py", "", 0));
	for (size_t k = 0; k < 2100; k++) {
		int n = snprintf(text, sizeof(text), "def setup(cfg):\n    cfg.model.cuda_graph_impl = \"transformer_engine\"\n"
				 "    cfg.model.cuda_graph_scope = [\"moe\", \"moe_router\"]\n");
		snprintf(path, sizeof(path), "pkg/h%04zu.py", k);
		free(harness_write(harness_dir, path, text, (size_t)n));
		n = snprintf(text, sizeof(text), "from pkg.h%04zu import setup\n\n\ndef recipe_%04zu():\n"
			     "    cfg = ConfigContainer()\n    setup(cfg)\n    return cfg\n", k, k);
		snprintf(path, sizeof(path), "recipes/r%04zu.py", k);
		free(harness_write(harness_dir, path, text, (size_t)n));
	}
	char *out = same_for_every_j(harness_dir, "--mcore 0.17 --format concise recipes", 1);
	/* a helper's finding lands on the call (recipes/rNNN.py), once the helper is followed */
	cr_expect(strstr(out, "recipes/r0000.py:6:5: error") && !strstr(out, "recipes/r2099.py:6:5: error"),
		  "the calls past the budget are not followed");
	free(out);
}

/* ---- in the library ---- */

static pid_t parent;
static const struct rule *rule;

/* One finding per item, naming the process that checked it; item 5's worker dies. */
static void check(struct lint_run *r, const struct batch_item *it)
{
	if (getpid() != parent && !strcmp(it->path, "f05.yaml"))
		_exit(9);
	diag_report(&r->diags, rule, (struct loc){it->path, 1, 1}, arena_printf(r->arena, "%s by %d", it->path, (int)getpid()),
		    NULL, NULL);
	r->units++;
}

static void run(unsigned parallel, bool in_process, size_t *workers, size_t *here)
{
	struct pack *p = pack_new();
	pack_load_builtin(p);
	rule = pack_find(p, "CG101");
	parent = getpid();
	struct lint_opts o = {0};
	struct lint_run r;
	lint_run_init(&r, p, &o, NULL, NULL);
	static char text[64 << 10];     /* 16 of these are several chunks' worth */
	char name[16];
	for (size_t k = 0; k < 16; k++) {
		if (k % 4 == 0)         /* found while walking, before item k */
			diag_input(&r.diags, "CG904", (struct loc){arena_printf(r.arena, "walk%02zu", k), 1, 1}, "x");
		snprintf(name, sizeof(name), "f%02zu.yaml", k);
		batch_add(r.batch, &(struct batch_item){.path = arena_strdup(r.arena, name), .buf = text, .len = sizeof(text),
							.on_disk = true, .at = r.diags.n});
	}
	batch_run(r.batch, &r, parallel, in_process, check);
	cr_assert_eq(r.diags.n, 20);
	cr_expect_eq(r.units, 16);
	*workers = *here = 0;
	for (size_t k = 0, item = 0; k < r.diags.n; k++) {
		const char *msg = r.diags.items[k].message;
		if (!strcmp(r.diags.items[k].loc.path, arena_printf(r.arena, "walk%02zu", item))) {
			cr_expect_eq(item % 4, 0, "findings made while walking stay where they were: %zu", k);
			continue;
		}
		snprintf(name, sizeof(name), "f%02zu.yaml", item++);
		cr_assert(!strncmp(msg, name, strlen(name)), "item %s in queue order, not %s", name, msg);
		int pid = atoi(strrchr(msg, ' ') + 1);
		*workers += pid != parent;
		*here += pid == parent;
	}
	cr_expect_eq(batch_count(r.batch), 0);
	lint_run_release(&r);
	pack_free(p);
}

Test(batch, chunks_go_to_workers_and_come_back_in_order)
{
	size_t workers, here;
	run(4, false, &workers, &here);
	cr_expect_geq(workers, 8, "most items were checked in workers (%zu)", workers);
	cr_expect_geq(here, 1, "the dead worker's items were checked here");
	cr_expect_leq(here, 8, "only the dead worker's items were checked here (%zu)", here);
	run(1, false, &workers, &here);
	cr_expect_eq(workers, 0, "-j 1 starts no worker");
	run(4, true, &workers, &here);
	cr_expect_eq(workers, 0, "in_process starts no worker");
}

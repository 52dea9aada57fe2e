/* SPDX-License-Identifier: MIT */
/*
 * A libFuzzer target over baselines (report/baseline): the bytes as a --baseline file in the
 * target's temporary folder, read (problems as the built-in CG916); a baseline that reads is
 * applied to findings in and around its folder (paths below it, beside it, above it, and one
 * without a path), and what it matched is written as a baseline and read back.
 */
#include "fuzz.h"

#include "report/baseline.h"

static const struct {
	const char *rule, *path, *fingerprint;
} found[] = {
	{"CG101", "a.yaml", "0123456789abcdef"},
	{"CG101", "a.yaml", "0123456789abcdef"},
	{"CG104", "sub/b.sh", "fedcba9876543210"},
	{"CG201", "../outside.yaml", "00000000deadbeef"},
	{"CG905", NULL, "1111111111111111"},
	{"CG101", "sub/../a.yaml", NULL},
};
#define N_FOUND (sizeof(found) / sizeof(found[0]))

/* The findings of a run, fingerprinted, in 'l'. */
static void findings(struct diag_list *l, const struct pack *p, char *const *paths)
{
	for (size_t k = 0; k < N_FOUND; k++) {
		struct diag *d = diag_report(l, pack_find(p, found[k].rule), (struct loc){paths[k], 3, 5}, "found", NULL,
					     NULL);
		d->fingerprint = found[k].fingerprint;
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static char *file, *again, *paths[N_FOUND];
	const struct pack *p = fuzz_pack();
	if (!file) {
		file = fuzz_path("baseline.json");
		again = fuzz_path("again.json");
		for (size_t k = 0; k < N_FOUND; k++)
			paths[k] = found[k].path ? fuzz_path(found[k].path) : NULL;
	}
	fuzz_write(file, data, size);
	struct arena *a = arena_new();
	struct diag_list problems, l, aside;
	diag_init(&problems, a, &p->lookup, NULL);
	diag_init(&l, a, &p->lookup, NULL);
	diag_init(&aside, a, &p->lookup, NULL);
	struct baseline *b = baseline_read(file, a, &problems);
	if (b) {
		findings(&l, p, paths);
		size_t gone = baseline_apply(b, &l, &aside);
		baseline_free(b);
		/* what cglint writes, it reads, and it leaves out the same findings again */
		if (baseline_write(again, &aside) || !(b = baseline_read(again, a, &problems)))
			abort();
		diag_release(&l);
		diag_init(&l, a, &p->lookup, NULL);
		findings(&l, p, paths);
		diag_release(&aside);
		diag_init(&aside, a, &p->lookup, NULL);
		if (baseline_apply(b, &l, &aside) != gone)
			abort();
		baseline_free(b);
	}
	diag_release(&aside);
	diag_release(&l);
	diag_release(&problems);
	arena_free(a);
	return 0;
}

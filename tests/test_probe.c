/* SPDX-License-Identifier: MIT */
/*
 * The probe without a GPU: the rule docs' claims (pack), parsing the program's JSON lines,
 * judging cells, the CLI against a stand-in program (tests/probe/fake-probe.sh), the JSON
 * schema, --gpu auto and probe --config. Where the real cglint-probe is built, also that it
 * runs every claimed row and says "no device" on a machine without one.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <criterion/criterion.h>

#include "base/diag.h"
#include "harness.h"
#include "base/mem.h"
#include "config/pack.h"
#include "probe/probe.h"
#include "probe/verify.h"

#define PROBE_DIR CGLINT_FIXTURES "/../tests/probe"
#define FAKE "--probe-bin " PROBE_DIR "/fake-probe.sh"

static struct pack *load(const char *text, struct diag_list *d, struct arena *a)
{
	struct pack *p = pack_new();
	pack_load_builtin(p);
	diag_init(d, a, &p->lookup, NULL);
	pack_load(p, d, "test.yaml", text, strlen(text));
	return p;
}

static bool has_message(const struct diag_list *d, const char *part)
{
	for (size_t k = 0; k < d->n; k++)
		if (strstr(d->items[k].message, part))
			return true;
	return false;
}

/* A claim or an api entry that is not a mapping is an error at its line, not read as one (the
 * fuzzing campaign's fuzz_pack read a list's items as key/value pairs here). */
Test(claims, claims_and_apis_that_are_not_mappings)
{
	struct arena *a = arena_new();
	struct diag_list d;
	struct pack *p = load("probe:\n  - X-ONE\n  - [a, b, c]\napis:\n  - cudaFoo\n  - [a, b, c]\n", &d, a);
	cr_assert_eq(d.n, 4);
	cr_expect(has_message(&d, "a probe claim is a mapping"));
	cr_expect(has_message(&d, "an api entry is a mapping"));
	cr_expect_eq(d.items[0].loc.line, 5, "apis load before probe");
	cr_expect_eq(d.items[3].loc.line, 3);
	diag_release(&d);
	pack_free(p);
	arena_free(a);
}

Test(claims, malformed_claims_are_pack_errors_at_their_line)
{
	struct arena *a = arena_new();
	struct diag_list d;
	struct pack *p = load("probe:\n"
			      "  - row: X-ONE\n"
			      "    rule: CG301\n"
			      "    expect:\n"
			      "      - {mode: globl, call: 900}\n"
			      "      - {stream: blocking, call: nine, replay: sometimes}\n"
			      "      - {calls: 900}\n"
			      "  - row: X-ONE\n"
			      "    rule: CG999\n",
			      &d, a);
	cr_assert(has_message(&d, "'mode' is global, thread_local or relaxed"));
	cr_assert(has_message(&d, "'call' is a result code"));
	cr_assert(has_message(&d, "'sometimes' is not a replay value"));
	cr_assert(has_message(&d, "unknown expect key 'calls'; did you mean 'call'?"));
	cr_assert(has_message(&d, "no rule CG999"));
	for (size_t k = 0; k < d.n; k++)
		cr_assert_str_eq(d.items[k].rule->head.id, "CG910");
	cr_assert_eq(d.items[0].loc.line, 5);
	cr_assert(!pack_claim_find(p, "X-ONE"), "a claim with errors is not loaded");
	diag_release(&d);
	pack_free(p);
	arena_free(a);
}

Test(claims, the_first_expectation_covering_a_cell_wins)
{
	struct arena *a = arena_new();
	struct diag_list d;
	struct pack *p = load("probe:\n"
			      "  - row: X-TWO\n"
			      "    rule: CG304\n"
			      "    expect:\n"
			      "      - {mode: [global, thread_local], call: 900}\n"
			      "      - {stream: nonblocking, call: 0}\n",
			      &d, a);
	cr_assert_eq(d.n, 0);
	const struct pack_claim *c = pack_claim_find(p, "X-TWO");
	cr_assert_not_null(c);
	cr_assert_eq(pack_expect_for(c, PROBE_MODE_GLOBAL, PROBE_STREAM_NONBLOCKING)->call, 900);
	cr_assert_eq(pack_expect_for(c, PROBE_MODE_RELAXED, PROBE_STREAM_NONBLOCKING)->call, 0);
	cr_assert_null(pack_expect_for(c, PROBE_MODE_RELAXED, PROBE_STREAM_BLOCKING));
	diag_release(&d);
	pack_free(p);
	arena_free(a);
}

Test(claims, every_builtin_claim_names_a_capture_rule)
{
	struct pack *p = pack_new();
	pack_load_builtin(p);
	size_t n;
	const struct pack_claim *c = pack_claims(p, &n);
	cr_assert_gt(n, 40);
	for (size_t k = 0; k < n; k++) {
		const char *id = c[k].rule->head.id;
		if (!strncmp(c[k].row, "RANKS-", 6)) /* the multi-GPU rows: NCCL_GRAPH_REGISTER's rule */
			cr_assert(!strcmp(id, "CG201"), "%s claims for %s", c[k].row, id);
		else
			cr_assert(!strncmp(id, "CG3", 3) || !strncmp(id, "CG4", 3), "%s claims for %s", c[k].row, id);
	}
	pack_free(p);
}

/* The built-in 'apis' and 'probe' are read on first use (a script or a config needs neither), yet
 * a --rules pack is judged against them as before: a row the built-in packs claim is taken, and
 * its calls come after the built-in ones of the same name. */
Test(claims, the_builtin_tables_are_read_when_first_asked_for)
{
	struct pack *p = pack_new();
	pack_load_builtin(p);
	cr_assert(p->src->unread);
	cr_assert_eq(p->src->n_apis, 0);
	size_t n;
	cr_assert_not_null(pack_api_find(p, "cudaStreamSynchronize", &n));
	cr_assert(!p->src->unread);
	cr_assert_gt(n, 0);
	pack_free(p);

	struct arena *a = arena_new();
	struct diag_list d;
	p = load("probe:\n"
		 "  - row: SYNC-DEV\n"
		 "    rule: CG304\n"
		 "    expect:\n"
		 "      - {call: 900}\n"
		 "apis:\n"
		 "  - {role: hazard, rule: CG304, names: [cudaStreamSynchronize], when_arg: [mine]}\n",
		 &d, a);
	cr_assert(has_message(&d, "row SYNC-DEV is claimed twice"), "%zu problems", d.n);
	const struct pack_api *api = pack_api_find(p, "cudaStreamSynchronize", &n);
	cr_assert_gt(n, 1);
	cr_assert(!api[0].n_when_arg || strcmp(api[0].when_arg[0], "mine"));
	cr_assert(api[n - 1].n_when_arg == 1 && !strcmp(api[n - 1].when_arg[0], "mine"));
	diag_release(&d);
	pack_free(p);
	arena_free(a);
}

#define IDENTITY "{\"kind\":\"identity\",\"device\":\"GPU\",\"cc_major\":9,\"cc_minor\":0,\"sms\":132}\n"

static int parse(struct probe_run *run, const char *text, char *err, size_t n)
{
	probe_run_init(run);
	return probe_parse(run, "rec.jsonl", text, strlen(text), err, n);
}

Test(parse, a_broken_line_is_reported_with_its_position)
{
	struct probe_run run;
	char err[256];
	cr_assert_eq(parse(&run, IDENTITY "{\"kind\":\"row\", oops}\n", err, sizeof(err)), 2);
	cr_assert(strstr(err, "rec.jsonl:2: "), "%s", err);
	probe_run_free(&run);
	cr_assert_eq(parse(&run, IDENTITY "{\"kind\":\"row\",\"id\":\"A\",\"mode\":\"sideways\",\"stream\":\"blocking\"}\n", err,
			   sizeof(err)),
		     2);
	cr_assert(strstr(err, "rec.jsonl:2: a row needs"), "%s", err);
	probe_run_free(&run);
	cr_assert_eq(parse(&run, "[1, 2]\n", err, sizeof(err)), 2);
	cr_assert(strstr(err, "one JSON object"), "%s", err);
	probe_run_free(&run);
	cr_assert_eq(parse(&run, "\n\n", err, sizeof(err)), 2);
	cr_assert(strstr(err, "no identity line"), "%s", err);
	probe_run_free(&run);
}

Test(parse, no_device_and_unknown_kinds)
{
	struct probe_run run;
	char err[256] = "";
	cr_assert_eq(parse(&run, "{\"kind\":\"identity\",\"device\":null,\"error\":\"no CUDA device\",\"cuda_rc\":100}\n", err,
			   sizeof(err)),
		     PROBE_NO_DEVICE);
	cr_assert_str_eq(run.id.error, "no CUDA device");
	cr_assert_eq(run.id.cuda_rc, 100);
	probe_run_free(&run);
	cr_assert_eq(parse(&run, IDENTITY "{\"kind\":\"rowdef\",\"id\":\"A\"}\n{\"kind\":\"future\"}\n", err, sizeof(err)), 0);
	cr_assert_eq(run.n_cells, 0);
	probe_run_free(&run);
}

static const char *const claims_pack = "probe:\n"
				       "  - row: R-CODE\n"
				       "    rule: CG304\n"
				       "    expect:\n"
				       "      - {mode: global, call: 900, status: invalidated, end: 901, replay: none}\n"
				       "      - {mode: relaxed, call: error}\n"
				       "  - row: R-NEVER\n"
				       "    rule: CG301\n"
				       "    expect:\n"
				       "      - {call: 900}\n";

static const char *row(struct arena *a, const char *id, const char *mode, int call, const char *status, int end,
		       const char *replay, const char *exit)
{
	return arena_printf(a,
			    "{\"kind\":\"row\",\"id\":\"%s\",\"mode\":\"%s\",\"stream\":\"blocking\",\"call_rc\":%d,"
			    "\"status\":\"%s\",\"end_rc\":%d,\"replay\":\"%s\",\"exit\":\"%s\"}\n",
			    id, mode, call, status, end, replay, exit);
}

Test(verify, each_claimed_field_is_compared)
{
	struct arena *a = arena_new();
	struct diag_list d;
	struct pack *p = load(claims_pack, &d, a);
	cr_assert_eq(d.n, 0);
	const char *text = arena_printf(a, "%s%s%s%s%s%s", IDENTITY,
					row(a, "R-CODE", "global", 900, "invalidated", 901, "none", "ok"),      /* match */
					row(a, "R-CODE", "global", 0, "active", 0, "ok", "ok"),                 /* 4 misses */
					row(a, "R-CODE", "relaxed", 1, "active", 0, "ok", "ok"),                /* error matches 1 */
					row(a, "R-CODE", "thread_local", 900, "active", 0, "ok", "ok"),         /* unclaimed */
					row(a, "R-CODE", "global", 900, "invalidated", 901, "none", "signal 11"));
	struct probe_run run;
	char err[256];
	probe_run_init(&run);
	cr_assert_eq(probe_parse(&run, "rec", text, strlen(text), err, sizeof(err)), 0, "%s", err);
	struct verify_report r;
	size_t bad = verify_run(&r, p, &run);
	cr_assert_eq(r.n_cells, 5);
	cr_assert_eq(r.cells[0].verdict, VERDICT_MATCH);
	cr_assert_eq(r.cells[1].verdict, VERDICT_MISMATCH);
	cr_assert_eq(r.cells[1].n_miss, 4);
	cr_assert_str_eq(r.cells[1].miss[0].field, "call");
	cr_assert_str_eq(r.cells[1].miss[0].expected, "900");
	cr_assert_str_eq(r.cells[1].miss[0].observed, "0");
	cr_assert_str_eq(r.cells[1].miss[3].field, "replay");
	cr_assert_eq(r.cells[2].verdict, VERDICT_MATCH);
	cr_assert_eq(r.cells[3].verdict, VERDICT_UNCLAIMED);
	cr_assert_eq(r.cells[4].verdict, VERDICT_MISMATCH);
	cr_assert_str_eq(r.cells[4].miss[0].field, "exit");
	/* R-NEVER was claimed and not probed: a failure of a complete run (a one-GPU run does not
	 * owe the multi-GPU rows) */
	size_t one_gpu = 0;
	for (size_t k = 0; k < p->src->n_claims; k++)
		one_gpu += strncmp(p->src->claims[k].row, "RANKS-", 6) != 0;
	cr_assert_eq(r.n_not_probed, one_gpu - 1);
	cr_assert_eq(bad, 2 + r.n_not_probed);
	verify_release(&r);
	run.partial = true;     /* --only: rows left out on purpose */
	cr_assert_eq(verify_run(&r, p, &run), 2);
	verify_release(&r);
	probe_run_free(&run);
	diag_release(&d);
	pack_free(p);
	arena_free(a);
}

/* ---- the command line, against the stand-in program ---- */

static int probe_cli(const char *recording, const char *rc, const char *args, char **out)
{
	setenv("FAKE_PROBE_OUT", recording, 1);
	setenv("FAKE_PROBE_RC", rc, 1);
	return harness_run(PROBE_DIR, args, out);
}

Test(cli, a_table_that_agrees_with_the_docs_exits_0)
{
	char *out;
	cr_assert_eq(probe_cli("match.jsonl", "0", "probe --only SYNC-DEV " FAKE, &out), 0);
	cr_assert(strstr(out, "NVIDIA H100 80GB HBM3, sm_90 (132 SMs), driver 13.0, runtime 13.0, NCCL 2.28.9"), "%s", out);
	cr_assert(strstr(out, "SYNC-DEV             CG301  global       blocking    900   invalidated 901   none    -     match"));
	cr_assert(strstr(out, "NCCL-INIT            CG313  global       blocking    skipped: NCCL not found"));
	cr_assert(strstr(out, "16 cells: 14 match, 0 mismatch, 1 unclaimed, 1 skipped"), "%s", out);
	free(out);
}

Test(cli, a_disagreement_names_the_claim_and_exits_1)
{
	char *out;
	cr_assert_eq(probe_cli("mismatch.jsonl", "0", "probe --only SYNC-DEV " FAKE, &out), 1);
	cr_assert(strstr(out, ": MEMCPY-SYNC CG303 global nonblocking: call 906 (CG303 claims call 0)"), "%s", out);
	cr_assert(strstr(out, "capture.yaml:"), "the claim's file:line");
	cr_assert(strstr(out, ": SYNC-DEV CG301 relaxed blocking: exit signal 11 (CG301 claims exit ok)"), "%s", out);
	free(out);
}

Test(cli, a_complete_run_missing_claimed_rows_exits_1)
{
	char *out;
	cr_assert_eq(probe_cli("match.jsonl", "0", "probe " FAKE, &out), 1);
	cr_assert(strstr(out, "LAUNCH-NULL (CG307) is claimed but the probe has no such row"), "%s", out);
	free(out);
}

Test(cli, no_device_exits_4_with_the_reason)
{
	char *out;
	cr_assert_eq(probe_cli("nodevice.jsonl", "4", "probe " FAKE " 2>&1", &out), PROBE_NO_DEVICE);
	cr_assert_str_eq(out, "cglint probe: no CUDA device (cudaErrorNoDevice)\n");
	free(out);
	cr_assert_eq(probe_cli("nodevice.jsonl", "4", "probe --probe-bin /nonexistent/cglint-probe 2>&1", &out), 3);
	cr_assert(strstr(out, "cannot run /nonexistent/cglint-probe"), "%s", out);
	free(out);
	/* the program's own exit status must agree with what it printed */
	cr_assert_eq(probe_cli("nodevice.jsonl", "0", "probe " FAKE " 2>&1", &out), 3);
	free(out);
	cr_assert_eq(probe_cli("match.jsonl", "1", "probe " FAKE " 2>&1", &out), 3);
	cr_assert(strstr(out, "exited with status 1"), "%s", out);
	free(out);
}

Test(cli, recordings_and_usage_errors)
{
	char *out;
	cr_assert_eq(harness_run(PROBE_DIR, "probe --only SYNC-DEV --from match.jsonl", &out), 0);
	free(out);
	cr_assert_eq(harness_run(PROBE_DIR, "probe --from fake-probe.sh 2>&1", &out), 2);
	cr_assert(strstr(out, "cglint probe: fake-probe.sh:1: "), "%s", out);
	free(out);
	cr_assert_eq(harness_run(PROBE_DIR, "probe --from missing.jsonl 2>&1", &out), 2);
	cr_assert(strstr(out, "missing.jsonl: cannot read"), "%s", out);
	free(out);
	cr_assert_eq(harness_run(PROBE_DIR, "--only SYNC-DEV match.jsonl 2>&1", &out), 2);
	cr_assert(strstr(out, "--only belongs to 'cglint probe'"), "%s", out);
	free(out);
	cr_assert_eq(harness_run(PROBE_DIR, "probe --timeout 0 2>&1", &out), 2);
	free(out);
	cr_assert_eq(harness_run(PROBE_DIR, "probe match.jsonl 2>&1", &out), 2);
	free(out);
}

/* Every shape of probe --format json validates against docs/probe.schema.json. */
Test(cli, json_output_follows_the_schema)
{
	static const struct {
		const char *rec, *rc, *args;
		int status;
	} cases[] = {
		{"match.jsonl", "0", "probe --only SYNC-DEV " FAKE, 0},
		{"mismatch.jsonl", "0", "probe " FAKE, 1},
		{"nodevice.jsonl", "4", "probe " FAKE, PROBE_NO_DEVICE},
		{"nodevice.jsonl", "4", "probe --probe-bin ''", PROBE_NO_DEVICE},
	};
	for (size_t k = 0; k < sizeof(cases) / sizeof(cases[0]); k++) {
		char *out, args[512], cmd[1024];
		snprintf(args, sizeof(args), "%s --format json > /tmp/cglint-probe-schema-%d.json", cases[k].args, (int)getpid());
		cr_assert_eq(probe_cli(cases[k].rec, cases[k].rc, args, &out), cases[k].status, "%s", cases[k].args);
		free(out);
		snprintf(cmd, sizeof(cmd), "python3 %s/validate.py %s/../../docs/probe.schema.json /tmp/cglint-probe-schema-%d.json",
			 PROBE_DIR, PROBE_DIR, (int)getpid());
		cr_assert_eq(system(cmd), 0, "%s does not follow the schema", cases[k].args);
	}
	char path[64];
	snprintf(path, sizeof(path), "/tmp/cglint-probe-schema-%d.json", (int)getpid());
	remove(path);
}

Test(cli, json_reports_claims_and_mismatches)
{
	char *out;
	cr_assert_eq(probe_cli("mismatch.jsonl", "0", "probe --only SYNC-DEV --format json " FAKE, &out), 1);
	json_t *doc = json_loads(out, 0, NULL);
	free(out);
	cr_assert_not_null(doc);
	json_t *rows = json_object_get(doc, "rows");
	json_t *cell = json_array_get(rows, 13);
	cr_assert_str_eq(json_string_value(json_object_get(cell, "id")), "MEMCPY-SYNC");
	cr_assert_str_eq(json_string_value(json_object_get(cell, "verdict")), "mismatch");
	cr_assert_eq(json_integer_value(json_object_get(json_object_get(cell, "claim"), "call")), 0);
	json_t *m = json_array_get(json_object_get(cell, "mismatches"), 0);
	cr_assert_str_eq(json_string_value(json_object_get(m, "observed")), "906");
	cr_assert_eq(json_integer_value(json_object_get(json_object_get(doc, "summary"), "mismatch")), 2);
	json_decref(doc);
}

/* ---- the GPU at hand decides --gpu auto and probe --config ---- */

static const char *const local_graphs = "model:\n  cuda_graph_impl: local\n  cuda_graph_scope: [attn]\n";

Test(gpu, auto_takes_the_compute_capability_of_the_device)
{
	char *yaml = harness_write(PROBE_DIR, "auto-gpu.yaml", local_graphs, strlen(local_graphs));
	json_t *doc;
	setenv("FAKE_PROBE_OUT", "b200.jsonl", 1);
	setenv("FAKE_PROBE_RC", "0", 1);
	harness_run_json(PROBE_DIR, "--mcore 0.17 --gpu auto " FAKE " auto-gpu.yaml", &doc);
	cr_assert_not_null(doc);
	cr_assert_str_eq(json_string_value(json_object_get(json_object_get(doc, "target"), "gpu")), "sm_100");
	json_decref(doc);
	/* no device: a warning, and the GPU stays unknown */
	char *out;
	cr_assert_eq(probe_cli("nodevice.jsonl", "4", "--mcore 0.17 --gpu auto " FAKE " auto-gpu.yaml 2>&1 >/dev/null", &out), 0);
	cr_assert(strstr(out, "cglint: --gpu auto: no CUDA device (cudaErrorNoDevice); GPU-dependent rules treat the GPU as unknown"),
		  "%s", out);
	free(out);
	remove(yaml);
	free(yaml);
}

Test(gpu, probe_config_lints_with_this_machine_and_its_environment)
{
	char *yaml = harness_write(PROBE_DIR, "config-gpu.yaml", local_graphs, strlen(local_graphs));
	char *out;
	setenv("PYTORCH_CUDA_ALLOC_CONF", "expandable_segments:True", 1);
	unsetenv("NCCL_GRAPH_REGISTER");
	/* H100: the local graph manager asserts NCCL_GRAPH_REGISTER=0 before Blackwell */
	cr_assert_eq(probe_cli("match.jsonl", "0", "probe --mcore 0.17 " FAKE " --config config-gpu.yaml", &out), 1);
	cr_assert(strstr(out, "CG201"), "%s", out);
	free(out);
	/* B200: it does not */
	cr_assert_eq(probe_cli("b200.jsonl", "0", "probe --mcore 0.17 " FAKE " --config config-gpu.yaml", &out), 0);
	cr_assert(!strstr(out, "CG201"), "%s", out);
	free(out);
	/* -E still wins over the process environment */
	cr_assert_eq(probe_cli("match.jsonl", "0", "probe --mcore 0.17 -E NCCL_GRAPH_REGISTER=0 " FAKE " --config config-gpu.yaml", &out),
		     0);
	free(out);
	/* plain lint does not read the process environment */
	cr_assert_eq(harness_run(PROBE_DIR, "--mcore 0.17 --gpu h100 config-gpu.yaml", &out), 0);
	free(out);
	/* and without a device probe --config stops */
	cr_assert_eq(probe_cli("nodevice.jsonl", "4", "probe --mcore 0.17 " FAKE " --config config-gpu.yaml 2>&1", &out),
		     PROBE_NO_DEVICE);
	cr_assert(strstr(out, "cglint probe: no CUDA device (cudaErrorNoDevice)"), "%s", out);
	free(out);
	unsetenv("PYTORCH_CUDA_ALLOC_CONF");
	remove(yaml);
	free(yaml);
}

/* ---- the real program, where this build has it ---- */

#ifdef CGLINT_PROBE_BIN
Test(real, the_probe_runs_every_claimed_row)
{
	FILE *f = popen(CGLINT_PROBE_BIN " --list", "r");
	cr_assert_not_null(f);
	char *out = mem_alloc(1 << 20);
	size_t n = fread(out, 1, (1 << 20) - 1, f);
	out[n] = '\0';
	cr_assert_eq(pclose(f), 0, "cglint-probe --list needs no GPU");
	struct pack *p = pack_new();
	pack_load_builtin(p);
	for (size_t k = 0; k < p->src->n_claims; k++) {
		char want[64];
		snprintf(want, sizeof(want), "\"id\":\"%s\"", p->src->claims[k].row);
		cr_assert(strstr(out, want), "claimed row %s is not in cglint-probe --list", p->src->claims[k].row);
	}
	pack_free(p);
	free(out);
}

Test(real, the_probe_refuses_bad_arguments)
{
	char *out;
	cr_assert_eq(harness_run(PROBE_DIR, "probe --probe-bin " CGLINT_PROBE_BIN " --only NO-SUCH-ROW 2>&1", &out), 2);
	cr_assert(strstr(out, "cglint-probe: unknown row id 'NO-SUCH-ROW' (see --list)"), "%s", out);
	free(out);
	static const char *const bad[] = {"--bogus", "--row SYNC-DEV", "--row SYNC-DEV --mode sideways --stream blocking",
					  "--timeout 0", "--jobs x"};
	for (size_t k = 0; k < sizeof(bad) / sizeof(bad[0]); k++) {
		char cmd[256];
		snprintf(cmd, sizeof(cmd), CGLINT_PROBE_BIN " %s >/dev/null 2>&1", bad[k]);
		int st = system(cmd);
		cr_assert(WIFEXITED(st) && WEXITSTATUS(st) == 2, "cglint-probe %s: status %d", bad[k], st);
	}
}

/* --ranks N: its ids are checked before any GPU work; without a device it says so like the rest. */
Test(real, the_multi_gpu_section_without_a_device)
{
	static const char *const bad[] = {"--ranks 1", "--ranks 2 --only SYNC-DEV", "--ranks 2 --rows", "--ranks x",
					  "--rank-cell RANKS-ALLREDUCE --mem vmm --register 0 --rank 0 --uid /tmp/u"};
	for (size_t k = 0; k < sizeof(bad) / sizeof(bad[0]); k++) {
		char cmd[256];
		snprintf(cmd, sizeof(cmd), CGLINT_PROBE_BIN " %s >/dev/null 2>&1", bad[k]);
		int st = system(cmd);
		cr_assert(WIFEXITED(st) && WEXITSTATUS(st) == 2, "cglint-probe %s: status %d", bad[k], st);
	}
	int st = system(CGLINT_PROBE_BIN " --ranks 2 --only RANKS-ALLREDUCE >/dev/null 2>&1");
	if (!WIFEXITED(st) || WEXITSTATUS(st) != PROBE_NO_DEVICE)
		cr_skip_test("this machine has a CUDA device (status %d)", st);
}

Test(real, without_a_device_the_probe_says_so)
{
	char *out;
	int rc = harness_run(PROBE_DIR, "probe --probe-bin " CGLINT_PROBE_BIN " --only SYNC-DEV 2>&1", &out);
	if (rc != PROBE_NO_DEVICE)
		cr_skip_test("this machine has a CUDA device (status %d)", rc);
	cr_assert(strstr(out, "cglint probe: no CUDA device ("), "%s", out);
	free(out);
}
#endif

/* ---- the committed recordings ---- */

/* 'out' is exactly the committed table 'doc' (relative to the repository root). */
static void expect_doc(const char *out, const char *doc)
{
	char *text = harness_read(CGLINT_FIXTURES "/..", doc, NULL);
	cr_assert_str_eq(out, text, "%s is stale: regenerate it (docs/probe.md)", doc);
	free(text);
}

/* The rule docs agree with the real driver, and docs/probe-h100.txt is what cglint makes of it. */
Test(recording, the_h100_table_agrees_with_the_rule_docs_and_the_doc_is_current)
{
	char *out;
	cr_assert_eq(harness_run(CGLINT_FIXTURES "/..", "probe --from docs/probe-h100.jsonl", &out), 0,
		     "a rule doc disagrees with the H100 recording");
	expect_doc(out, "docs/probe-h100.txt");
	free(out);
}

/* The two-GPU recording: every multi-GPU cell matches its claim in rules/env.yaml, and
 * docs/probe-h200x2.txt is what cglint makes of it. */
Test(recording, the_two_gpu_table_agrees_with_the_rule_docs_and_the_doc_is_current)
{
	char *out;
	cr_assert_eq(harness_run(CGLINT_FIXTURES "/..", "probe --from docs/probe-h200x2.jsonl", &out), 0,
		     "a rule doc disagrees with the two-GPU recording");
	cr_assert(strstr(out, "72 cells: 72 match, 0 mismatch"), "%s", out);
	cr_assert(strstr(out, "NCCL_NVLS_ENABLE=0 in every rank: NVLink SHARP/multicast paths are not probed"), "%s", out);
	expect_doc(out, "docs/probe-h200x2.txt");
	free(out);
}

/* A cell that disagrees names the memory, NCCL_GRAPH_REGISTER and registration, and the claim's
 * line; a hang is an observation like a result code, and a crash contradicts any claim. */
Test(recording, a_two_gpu_disagreement_names_the_cell)
{
	/* the cudaMalloc all-reduce with NCCL_GRAPH_REGISTER unset, registration off: replay wrong;
	 * the first send/recv hang becomes a crash */
	char cmd[1024], *out;
	snprintf(cmd, sizeof(cmd),
		 "cd %s && sed -e '3s/\"replay\":\"ok\"/\"replay\":\"wrong\"/' "
		 "-e '0,/\"exit\":\"timeout\"/s//\"exit\":\"signal 11\"/' ../../docs/probe-h200x2.jsonl > two-gpu-bad.jsonl",
		 PROBE_DIR);
	cr_assert_eq(system(cmd), 0);
	cr_assert_eq(harness_run(PROBE_DIR, "probe --from two-gpu-bad.jsonl", &out), 1);
	cr_assert(strstr(out, ": RANKS-ALLREDUCE CG201 malloc unset off: replay wrong (CG201 claims replay ok)"), "%s", out);
	cr_assert(strstr(out, "env.yaml:"), "the claim's file:line: %s", out);
	cr_assert(strstr(out, ": RANKS-SENDRECV CG201 vmm unset on: exit signal 11 (CG201 claims exit ok)"), "%s", out);
	cr_assert(strstr(out, "72 cells: 70 match, 2 mismatch"), "%s", out);
	free(out);
	/* --format json carries the multi-GPU cells, and follows the schema */
	cr_assert_eq(harness_run(PROBE_DIR, "probe --from two-gpu-bad.jsonl --format json > two-gpu-bad.json", &out), 1);
	free(out);
	snprintf(cmd, sizeof(cmd), "cd %s && python3 validate.py ../../docs/probe.schema.json two-gpu-bad.json", PROBE_DIR);
	cr_assert_eq(system(cmd), 0, "the two-GPU JSON does not follow the schema");
	remove(PROBE_DIR "/two-gpu-bad.jsonl");
	remove(PROBE_DIR "/two-gpu-bad.json");
}

/* Fewer GPUs than --ranks asks for: the section's own status, 5, from a recording or the program. */
Test(recording, not_enough_devices_is_status_5)
{
	char *out;
	cr_assert_eq(harness_run(PROBE_DIR, "probe --from fewdevices.jsonl 2>&1", &out), PROBE_FEW_DEVICES);
	cr_assert_str_eq(out, "cglint probe: not enough devices: 2 ranks asked for, 1 GPU here (fewdevices.jsonl)\n");
	free(out);
	cr_assert_eq(probe_cli("fewdevices.jsonl", "5", "probe " FAKE " 2>&1", &out), PROBE_FEW_DEVICES);
	cr_assert(strstr(out, "cglint probe: not enough devices: 2 ranks asked for, 1 GPU here"), "%s", out);
	free(out);
	/* cglint probe --ranks N asks the program for the section */
	char args[64], got[128] = "";
	snprintf(args, sizeof(args), "/tmp/cglint-fake-args-%d", (int)getpid());
	setenv("FAKE_PROBE_ARGS", args, 1);
	cr_assert_eq(probe_cli("fewdevices.jsonl", "5", "probe --ranks 2 " FAKE " 2>&1", &out), PROBE_FEW_DEVICES);
	unsetenv("FAKE_PROBE_ARGS");
	free(out);
	FILE *f = fopen(args, "r");
	cr_assert_not_null(f, "the stand-in program was not run");
	cr_assert_not_null(fgets(got, sizeof(got), f));
	fclose(f);
	unlink(args);
	cr_assert_str_eq(got, "--ranks 2\n");
	cr_assert_eq(harness_run(PROBE_DIR, "probe --ranks 1 2>&1", &out), 2);
	cr_assert(strstr(out, "--ranks"), "%s", out);
	free(out);
	/* the program's status must agree with what it printed */
	cr_assert_eq(probe_cli("fewdevices.jsonl", "0", "probe " FAKE " 2>&1", &out), 3);
	cr_assert(strstr(out, "exited with status 0 but printed too few devices"), "%s", out);
	free(out);
}

/* A recording is input like any other: garbage, deep nesting and size get a message and 2. */
Test(recording, hostile_recordings_are_refused_with_a_message)
{
	static const struct {
		const char *make, *says;
	} cases[] = {
		{"head -c 65536 /dev/urandom", "hostile.jsonl:"},
		{"python3 -c \"print('[' * 100000)\"", "hostile.jsonl:1: "},
		{"python3 -c \"print('{\\\"kind\\\":\\\"identity\\\",\\\"device\\\":\\\"' + 'x' * (17 << 20) + '\\\"}')\"",
		 "larger than"},
		{"printf '\\xff\\xfe{\\n'", "hostile.jsonl:1: "},
	};
	for (size_t k = 0; k < sizeof(cases) / sizeof(cases[0]); k++) {
		char cmd[512], *out;
		snprintf(cmd, sizeof(cmd), "cd %s && %s > hostile.jsonl", PROBE_DIR, cases[k].make);
		cr_assert_eq(system(cmd), 0, "%s", cases[k].make);
		cr_assert_eq(harness_run(PROBE_DIR, "probe --from hostile.jsonl 2>&1", &out), 2, "%s", cases[k].make);
		cr_assert(strstr(out, cases[k].says), "%s: %s", cases[k].make, out);
		free(out);
	}
	remove(PROBE_DIR "/hostile.jsonl");
}

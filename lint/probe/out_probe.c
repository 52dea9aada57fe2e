/* SPDX-License-Identifier: MIT */
/* out_probe: a probe report (identity, capture, launch cost, graph memory, rule table) as text
 * or JSON (schema: docs/probe.schema.json). */
#include "probe/out_probe.h"

#include <string.h>

#include <jansson.h>

#include "config/pack.h"
#include "probe/probe.h"
#include "probe/verify.h"

static const char *version_str(int v, char *buf, size_t n)
{
	if (v == PROBE_NULL || v <= 0)
		snprintf(buf, n, "?");
	else
		snprintf(buf, n, "%d.%d", v / 1000, v % 1000 / 10);
	return buf;
}

static const char *bytes_str(long long b, char *buf, size_t n)
{
	if (b >= (1ll << 20) || b <= -(1ll << 20))
		snprintf(buf, n, "%.1f MiB", (double)b / (1 << 20));
	else
		snprintf(buf, n, "%lld B", b);
	return buf;
}

/* ---- text ---- */

static void text_identity(FILE *f, const struct probe_identity *id)
{
	char drv[16], rt[16];
	fprintf(f, "device       %s, sm_%d%d (%d SMs), driver %s, runtime %s", id->device, id->cc_major, id->cc_minor, id->sms,
		version_str(id->driver, drv, sizeof(drv)), version_str(id->runtime, rt, sizeof(rt)));
	if (id->nccl)
		fprintf(f, ", NCCL %d.%d.%d\n", id->nccl / 10000, id->nccl / 100 % 100, id->nccl % 100);
	else
		fprintf(f, ", no NCCL%s%s%s\n", id->nccl_note ? " (" : "", id->nccl_note ? id->nccl_note : "", id->nccl_note ? ")" : "");
	fprintf(f, "environment ");
	for (size_t k = 0; k < id->n_env; k++)
		fprintf(f, " %s=%s", id->env[2 * k], id->env[2 * k + 1] ? id->env[2 * k + 1] : "(unset)");
	fputc('\n', f);
}

static void text_machine(FILE *f, const struct probe_run *run)
{
	const struct probe_capture *c = &run->capture;
	if (c->present)
		fprintf(f, "capture      %d kernels on a non-blocking stream: begin %d, end %d, instantiate %d, replay %d; "
			   "replay %s eager\n",
			c->chain, c->begin_rc, c->end_rc, c->instantiate_rc, c->replay_rc,
			c->bitwise_equal ? "bitwise equal to" : "DIFFERS from");
	if (run->n_bench) {
		fprintf(f, "\nlaunch cost (host enqueue per kernel, median of %d after %d warm-up; capture not timed)\n",
			run->bench[0].reps, run->bench[0].warmup);
		fprintf(f, "  %6s  %12s  %12s  %8s  %16s  %16s\n", "chain", "eager us", "graph us", "ratio",
			"eager GPU us/it", "graph GPU us/it");
		for (size_t k = 0; k < run->n_bench; k++) {
			const struct probe_bench *b = &run->bench[k];
			fprintf(f, "  %6d  %12.3f  %12.3f  %7.1fx  %16.1f  %16.1f\n", b->chain, b->eager_host_us, b->graph_host_us,
				b->graph_host_us > 0 ? b->eager_host_us / b->graph_host_us : 0.0, b->eager_gpu_us, b->graph_gpu_us);
		}
	}
	if (run->n_memory) {
		fprintf(f, "\ngraph memory (free device memory before minus after cudaGraphInstantiate, which moves in 2 MiB steps;\n"
			   "per executable: averaged over %d more instantiations of the same graph)\n", run->memory[0].copies);
		for (size_t k = 0; k < run->n_memory; k++) {
			char b[32], per[32] = "?";
			if (run->memory[k].bytes_per_exec >= 0)
				bytes_str(run->memory[k].bytes_per_exec, per, sizeof(per));
			fprintf(f, "  %6d kernels: first %s, per executable %s\n", run->memory[k].chain,
				bytes_str(run->memory[k].graph_bytes, b, sizeof(b)), per);
		}
	}
}

/* A row's heading (what it does) above its first cell; returns the row id now current. */
static const char *put_row_head(FILE *f, const struct probe_cell *c, const char *prev)
{
	if (c->does && (!prev || strcmp(prev, c->id)))
		fprintf(f, "  %s: %s\n", c->id, c->does);
	return c->id;
}

static void text_cell(FILE *f, const struct verify_cell *v)
{
	const struct probe_cell *c = v->cell;
	char call[16], end[16];
	fprintf(f, "%-20s %-6s %-12s %-11s ", c->id, v->claim ? v->claim->rule->head.id : "-", pack_probe_modes[c->mode],
		pack_probe_streams[c->stream]);
	if (c->skipped) {
		fprintf(f, "skipped: %s\n", c->skipped);
		return;
	}
	fprintf(f, "%-5s %-11s %-5s %-7s %-5s %s", verify_code_str(c->call_rc, call, sizeof(call)),
		c->status >= 0 ? pack_probe_status[c->status] : "-", verify_code_str(c->end_rc, end, sizeof(end)),
		c->replay >= 0 ? pack_probe_replay[c->replay] : "-", c->at_capture < 0 ? "-" : c->at_capture ? "yes" : "no",
		verify_verdict_names[v->verdict]);
	if (strcmp(c->exit, "ok"))
		fprintf(f, " (%s)", c->exit);
	fputc('\n', f);
}

static void print_rows(FILE *f, const struct probe_run *run, const struct verify_report *r);

static void text_nccl_cell(FILE *f, const struct verify_cell *v)
{
	const struct probe_cell *c = v->cell;
	char call[16], end[16];
	fprintf(f, "%-20s %-6s %-10s %-9s %-4s ", c->id, v->claim ? v->claim->rule->head.id : "-", pack_probe_mems[c->mem],
		pack_probe_graph_register[c->graph_register], c->reg ? "on" : "off");
	if (c->skipped) {
		fprintf(f, "skipped: %s\n", c->skipped);
		return;
	}
	fprintf(f, "%-5s %-5s %-7s %-4s %s", verify_code_str(c->call_rc, call, sizeof(call)),
		verify_code_str(c->end_rc, end, sizeof(end)), c->replay >= 0 ? pack_probe_replay[c->replay] : "-",
		c->hang ? "yes" : "no", verify_verdict_names[v->verdict]);
	if (c->hang && c->hung_at)
		fprintf(f, " (hung in %s)", c->hung_at);
	if (strcmp(c->exit, "ok"))
		fprintf(f, " (%s)", c->exit);
	fputc('\n', f);
}

/* The multi-GPU section: one line per cell, then NCCL's warnings. */
static void text_ranks(FILE *f, const struct probe_run *run, const struct verify_report *r)
{
	const struct probe_ranks *k = &run->ranks;
	fprintf(f, "\nmulti-GPU (%s): %d ranks, one process each, on %d devices, peer access %s;\n"
		   "NCCL_NVLS_ENABLE=0 in every rank: NVLink SHARP/multicast paths are not probed\n",
		run->source, k->want, k->devices, k->peer_access < 0 ? "?" : k->peer_access ? "yes" : "no");
	fprintf(f, "%-20s %-6s %-10s %-9s %-4s %-5s %-5s %-7s %-4s %s\n", "row", "rule", "memory", "GRAPH_REG", "reg", "call",
		"end", "replay", "hang", "verdict");
	const char *prev = NULL;
	size_t warned = 0;
	for (size_t i = 0; i < r->n_nccl; i++) {
		const struct probe_cell *c = r->nccl[i].cell;
		prev = put_row_head(f, c, prev);
		text_nccl_cell(f, &r->nccl[i]);
		warned += c->n_warnings;
	}
	fprintf(f, "\nNCCL warnings: %s\n", warned ? "" : "none");
	for (size_t i = 0; i < r->n_nccl; i++) {
		const struct probe_cell *c = r->nccl[i].cell;
		for (size_t w = 0; w < c->n_warnings; w++)
			fprintf(f, "  %s %s %s %s: %s\n", c->id, pack_probe_mems[c->mem], pack_probe_graph_register[c->graph_register],
				c->reg ? "on" : "off", c->warnings[w]);
	}
}

static void text_misses(FILE *f, const struct verify_cell *cells, size_t n)
{
	for (size_t k = 0; k < n; k++) {
		const struct verify_cell *v = &cells[k];
		if (!v->n_miss)
			continue;
		const struct probe_cell *c = v->cell;
		if (c->mem >= 0 && !strncmp(c->id, "RANKS-", 6))
			fprintf(f, "  %s:%u: %s %s %s %s %s: ", v->expect->loc.path, v->expect->loc.line, c->id,
				v->claim->rule->head.id, pack_probe_mems[c->mem], pack_probe_graph_register[c->graph_register],
				c->reg ? "on" : "off");
		else
			fprintf(f, "  %s:%u: %s %s %s %s: ", v->expect->loc.path, v->expect->loc.line, c->id,
				v->claim->rule->head.id, pack_probe_modes[c->mode], pack_probe_streams[c->stream]);
		for (size_t i = 0; i < v->n_miss; i++)
			fprintf(f, "%s%s %s", i ? ", " : "", v->miss[i].field, v->miss[i].observed);
		fprintf(f, " (%s claims ", v->claim->rule->head.id);
		for (size_t i = 0; i < v->n_miss; i++)
			fprintf(f, "%s%s %s", i ? ", " : "", v->miss[i].field, v->miss[i].expected);
		fprintf(f, ")\n");
	}
}

static void print_text(FILE *f, const struct probe_run *run, const struct verify_report *r)
{
	text_identity(f, &run->id);
	text_machine(f, run);
	if (run->ranks.present && !r->n_cells)
		text_ranks(f, run, r);
	else
		print_rows(f, run, r);
	size_t bad = r->count[VERDICT_MISMATCH] + r->n_not_probed;
	if (bad)
		fprintf(f, "\nthe rule docs disagree with this machine:\n");
	text_misses(f, r->cells, r->n_cells);
	text_misses(f, r->nccl, r->n_nccl);
	for (size_t k = 0; k < r->n_not_probed; k++)
		fprintf(f, "  %s:%u: %s (%s) is claimed but the probe has no such row\n", r->not_probed[k]->loc.path,
			r->not_probed[k]->loc.line, r->not_probed[k]->row, r->not_probed[k]->rule->head.id);
	fprintf(f, "\n%zu cells: %zu match, %zu mismatch, %zu unclaimed, %zu skipped", r->n_cells + r->n_nccl,
		r->count[VERDICT_MATCH], r->count[VERDICT_MISMATCH], r->count[VERDICT_UNCLAIMED], r->count[VERDICT_SKIPPED]);
	if (r->n_not_probed)
		fprintf(f, "; %zu claimed rows not probed", r->n_not_probed);
	fputc('\n', f);
}

static void print_rows(FILE *f, const struct probe_run *run, const struct verify_report *r)
{
	fprintf(f, "\nrule verification (%s)\n", run->source);
	fprintf(f, "%-20s %-6s %-12s %-11s %-5s %-11s %-5s %-7s %-5s %s\n", "row", "rule", "mode", "stream", "call", "status",
		"end", "replay", "ran", "verdict");
	const char *prev = NULL;
	for (size_t k = 0; k < r->n_cells; k++) {
		prev = put_row_head(f, r->cells[k].cell, prev);
		text_cell(f, &r->cells[k]);
	}
}

/* ---- JSON ---- */

static json_t *int_or_null(int v)
{
	return v == PROBE_NULL ? json_null() : json_integer(v);
}

static json_t *str_or_null(const char *s)
{
	return s ? json_string(s) : json_null();
}

static json_t *tri_json(int v)
{
	return v < 0 ? json_null() : json_boolean(v);
}

static json_t *word_or_null(const char *const *words, int i)
{
	return i >= 0 ? json_string(words[i]) : json_null();
}

static json_t *json_identity(const struct probe_identity *id)
{
	json_t *env = json_object();
	for (size_t k = 0; k < id->n_env; k++)
		json_object_set_new(env, id->env[2 * k], str_or_null(id->env[2 * k + 1]));
	return json_pack("{s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:o}", "device", str_or_null(id->device), "cc_major",
			 int_or_null(id->cc_major), "cc_minor", int_or_null(id->cc_minor), "sms", int_or_null(id->sms), "driver",
			 int_or_null(id->driver), "runtime", int_or_null(id->runtime), "nccl",
			 id->nccl ? json_integer(id->nccl) : json_null(), "nccl_note", str_or_null(id->nccl_note), "env", env);
}

static json_t *json_expect(const struct pack_expect *e)
{
	if (!e)
		return json_null();
	json_t *o = json_object();
	if (e->call != PACK_EXPECT_ANY)
		json_object_set_new(o, "call", e->call == PACK_EXPECT_ERROR ? json_string("error") : json_integer(e->call));
	if (e->status != PACK_EXPECT_ANY)
		json_object_set_new(o, "status", json_string(pack_probe_status[e->status]));
	if (e->end != PACK_EXPECT_ANY)
		json_object_set_new(o, "end", e->end == PACK_EXPECT_ERROR ? json_string("error") : json_integer(e->end));
	if (e->replay != PACK_EXPECT_ANY)
		json_object_set_new(o, "replay", json_string(pack_probe_replay[e->replay]));
	if (e->at_capture != PACK_EXPECT_ANY)
		json_object_set_new(o, "at_capture", json_boolean(e->at_capture));
	return o;
}

static json_t *json_cell(const struct verify_cell *v)
{
	const struct probe_cell *c = v->cell;
	json_t *misses = json_array();
	for (size_t i = 0; i < v->n_miss; i++)
		json_array_append_new(misses, json_pack("{s:s, s:s, s:s}", "field", v->miss[i].field, "expected",
							v->miss[i].expected, "observed", v->miss[i].observed));
	json_t *o = json_pack("{s:s, s:o, s:s, s:s, s:o, s:o, s:o, s:o, s:o}", "id", c->id, "rule",
			      v->claim ? json_string(v->claim->rule->head.id) : json_null(), "mode", pack_probe_modes[c->mode], "stream",
			      pack_probe_streams[c->stream], "does", str_or_null(c->does), "call_rc", int_or_null(c->call_rc),
			      "call_err", str_or_null(c->call_err), "status", word_or_null(pack_probe_status, c->status), "end_rc",
			      int_or_null(c->end_rc));
	json_object_set_new(o, "graph", tri_json(c->graph));
	json_object_set_new(o, "at_capture", tri_json(c->at_capture));
	json_object_set_new(o, "replay", word_or_null(pack_probe_replay, c->replay));
	json_object_set_new(o, "replay_rc", int_or_null(c->replay_rc));
	json_object_set_new(o, "last_error", int_or_null(c->last_error));
	json_object_set_new(o, "health_rc", int_or_null(c->health_rc));
	json_object_set_new(o, "skipped", str_or_null(c->skipped));
	json_object_set_new(o, "exit", json_string(c->exit));
	json_object_set_new(o, "verdict", json_string(verify_verdict_names[v->verdict]));
	json_object_set_new(o, "claim", json_expect(v->expect));
	json_object_set_new(o, "mismatches", misses);
	return o;
}

static json_t *json_nccl_cell(const struct verify_cell *v)
{
	const struct probe_cell *c = v->cell;
	json_t *o = json_cell(v);
	json_t *w = json_array();
	for (size_t k = 0; k < c->n_warnings; k++)
		json_array_append_new(w, json_string(c->warnings[k]));
	json_object_set_new(o, "mem", json_string(pack_probe_mems[c->mem]));
	json_object_set_new(o, "graph_register", json_string(pack_probe_graph_register[c->graph_register]));
	json_object_set_new(o, "register", json_boolean(c->reg));
	json_object_set_new(o, "hang", json_boolean(c->hang));
	json_object_set_new(o, "hung_at", str_or_null(c->hung_at));
	json_object_set_new(o, "eager", word_or_null(pack_probe_replay, c->eager));
	json_object_set_new(o, "bad", json_integer(c->bad));
	json_object_set_new(o, "warnings", w);
	json_t *claim = json_object_get(o, "claim");
	if (json_is_object(claim) && v->expect->hang != PACK_EXPECT_ANY)
		json_object_set_new(claim, "hang", json_boolean(v->expect->hang));
	return o;
}

static void print_json(FILE *f, const struct probe_run *run, const struct verify_report *r)
{
	const struct probe_capture *c = &run->capture;
	json_t *bench = json_array(), *memory = json_array(), *rows = json_array(), *missing = json_array();
	for (size_t k = 0; k < run->n_bench; k++) {
		const struct probe_bench *b = &run->bench[k];
		json_array_append_new(bench, json_pack("{s:i, s:i, s:i, s:f, s:f, s:f, s:f}", "chain", b->chain, "warmup", b->warmup,
						       "reps", b->reps, "eager_host_us_per_kernel", b->eager_host_us,
						       "graph_host_us_per_kernel", b->graph_host_us, "eager_gpu_us", b->eager_gpu_us,
						       "graph_gpu_us", b->graph_gpu_us));
	}
	for (size_t k = 0; k < run->n_memory; k++)
		json_array_append_new(memory, json_pack("{s:i, s:I, s:I, s:I, s:i, s:o}", "chain", run->memory[k].chain, "free_before",
							(json_int_t)run->memory[k].free_before, "free_after",
							(json_int_t)run->memory[k].free_after, "graph_bytes",
							(json_int_t)run->memory[k].graph_bytes, "copies", run->memory[k].copies,
							"bytes_per_exec", run->memory[k].bytes_per_exec >= 0
										  ? json_integer(run->memory[k].bytes_per_exec)
										  : json_null()));
	for (size_t k = 0; k < r->n_cells; k++)
		json_array_append_new(rows, json_cell(&r->cells[k]));
	for (size_t k = 0; k < r->n_not_probed; k++)
		json_array_append_new(missing, json_pack("{s:s, s:s}", "row", r->not_probed[k]->row, "rule", r->not_probed[k]->rule->head.id));
	json_t *capture = c->present ? json_pack("{s:i, s:i, s:i, s:i, s:i, s:b}", "chain", c->chain, "begin_rc", c->begin_rc,
						  "end_rc", c->end_rc, "instantiate_rc", c->instantiate_rc, "replay_rc",
						  c->replay_rc, "bitwise_equal", c->bitwise_equal)
				     : json_null();
	json_t *summary = json_pack("{s:I, s:I, s:I, s:I, s:I, s:I}", "cells", (json_int_t)r->n_cells, "match",
				    (json_int_t)r->count[VERDICT_MATCH], "mismatch", (json_int_t)r->count[VERDICT_MISMATCH], "unclaimed",
				    (json_int_t)r->count[VERDICT_UNCLAIMED], "skipped", (json_int_t)r->count[VERDICT_SKIPPED],
				    "not_probed", (json_int_t)r->n_not_probed);
	json_t *doc = json_pack("{s:i, s:s, s:s, s:s, s:o, s:o, s:o, s:o, s:o, s:o, s:o}", "version", 1, "tool", "cglint", "kind",
				"probe", "source", run->source, "identity", json_identity(&run->id), "capture", capture, "bench",
				bench, "memory", memory, "rows", rows, "not_probed", missing, "summary", summary);
	if (run->ranks.present) {
		json_t *nccl = json_array();
		for (size_t k = 0; k < r->n_nccl; k++)
			json_array_append_new(nccl, json_nccl_cell(&r->nccl[k]));
		json_object_set_new(doc, "ranks", json_pack("{s:o, s:o, s:o, s:o}", "ranks", int_or_null(run->ranks.want), "devices",
							  int_or_null(run->ranks.devices), "peer_access",
							  tri_json(run->ranks.peer_access), "error", str_or_null(run->ranks.error)));
		json_object_set_new(doc, "nccl", nccl);
		json_object_set_new(summary, "cells", json_integer((json_int_t)(r->n_cells + r->n_nccl)));
	}
	json_dumpf(doc, f, JSON_INDENT(2));
	fputc('\n', f);
	json_decref(doc);
}

/* Without a device there is no table: say why, in the format asked for. */
static void print_none(FILE *f, const struct probe_run *run, bool json)
{
	const struct probe_identity *id = &run->id;
	if (!json) {
		fprintf(f, "cglint probe: %s%s%s%s\n", id->error ? id->error : "no CUDA device",
			id->cuda_err ? " (" : "", id->cuda_err ? id->cuda_err : "", id->cuda_err ? ")" : "");
		return;
	}
	json_t *doc = json_pack("{s:i, s:s, s:s, s:s, s:o, s:{s:o, s:o, s:o}}", "version", 1, "tool", "cglint", "kind", "probe",
				"source", run->source ? run->source : "", "identity", json_null(), "no_device", "error",
				str_or_null(id->error ? id->error : "no CUDA device"), "cuda_rc", int_or_null(id->cuda_rc),
				"cuda_err", str_or_null(id->cuda_err));
	json_dumpf(doc, f, JSON_INDENT(2));
	fputc('\n', f);
	json_decref(doc);
}

void out_probe_print(FILE *f, bool json, const struct probe_run *run, const struct verify_report *r)
{
	if (!run->id.device)
		print_none(f, run, json);
	else if (json)
		print_json(f, run, r);
	else
		print_text(f, run, r);
}

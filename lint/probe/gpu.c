/* SPDX-License-Identifier: MIT */
/* gpu: the probe command and --gpu auto. */
#include "probe/gpu.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/mem.h"
#include "config/target.h"
#include "probe/out_probe.h"
#include "probe/probe.h"
#include "probe/verify.h"

extern char **environ;

#define NO_PROBE_BUILT "this cglint was built without the GPU probe (configure it where the CUDA toolkit is installed, or pass --probe-bin)"

static int read_recording(struct probe_run *run, const char *path, char *err, size_t n_err)
{
	FILE *f = fopen(path, "rb");
	if (!f)
		return (snprintf(err, n_err, "%s: cannot read: %s", path, strerror(errno)), 2);
	struct sbuf sb;
	sbuf_init(&sb);
	char buf[65536];
	size_t got;
	while ((got = fread(buf, 1, sizeof(buf), f)) > 0 && sb.len <= PROBE_MAX_OUTPUT)
		sbuf_addn(&sb, buf, got);
	int rc = ferror(f) ? (snprintf(err, n_err, "%s: cannot read: %s", path, strerror(errno)), 2)
	       : sb.len > PROBE_MAX_OUTPUT ? (snprintf(err, n_err, "%s: larger than %u bytes", path, PROBE_MAX_OUTPUT), 2)
					   : probe_parse(run, path, sb.buf, sb.len, err, n_err);
	fclose(f);
	sbuf_release(&sb);
	return rc;
}

int gpu_verify(const struct pack *p, const struct gpu_opts *o, bool json)
{
	struct probe_run run;
	char err[512] = "";
	int rc;
	probe_run_init(&run);
	if (o->from) {
		rc = read_recording(&run, o->from, err, sizeof(err));
	} else {
		const char *prog = probe_program(o->program);
		const char *args[10];
		char jobs[16], ranks[16];
		size_t n = 0;
		if (o->only) {
			args[n++] = "--only";
			args[n++] = o->only;
		}
		if (o->timeout) {
			args[n++] = "--timeout";
			args[n++] = o->timeout;
		}
		if (o->jobs) {
			snprintf(jobs, sizeof(jobs), "%u", o->jobs);
			args[n++] = "--jobs";
			args[n++] = jobs;
		}
		if (o->ranks) {
			snprintf(ranks, sizeof(ranks), "%u", o->ranks);
			args[n++] = "--ranks";
			args[n++] = ranks;
		}
		args[n] = NULL;
		if (prog) {
			rc = probe_exec(&run, prog, args, err, sizeof(err));
		} else {
			run.id.error = NO_PROBE_BUILT;
			run.id.cuda_rc = PROBE_NULL;
			rc = PROBE_NO_DEVICE;
		}
	}
	run.partial = o->only != NULL;
	if (rc == PROBE_FEW_DEVICES) {
		/* the section's own status: not a failure of the probe, and no table to judge */
		fprintf(stderr, "cglint probe: not enough devices: %d ranks asked for, %d GPU%s here (%s)\n", run.ranks.want,
			run.ranks.devices, run.ranks.devices == 1 ? "" : "s", run.source);
	} else if (rc == 0 || (rc == PROBE_NO_DEVICE && !*err)) {
		struct verify_report r;
		size_t bad = verify_run(&r, p, &run);
		out_probe_print(run.id.device || json ? stdout : stderr, json, &run, &r);
		verify_release(&r);
		if (rc == 0)
			rc = bad ? 1 : 0;
	} else {
		fprintf(stderr, "cglint probe: %s\n", err);
	}
	probe_run_free(&run);
	return rc;
}

int gpu_detect(const char *program, struct target *t, struct arena *a, char *why, size_t n_why)
{
	const char *prog = probe_program(program);
	if (!prog)
		return (snprintf(why, n_why, NO_PROBE_BUILT), PROBE_NO_DEVICE);
	struct probe_run run;
	probe_run_init(&run);
	static const char *const args[] = {"--identity", NULL};
	int rc = probe_exec(&run, prog, args, why, n_why);
	if (rc == 0 && run.id.cc_major > 0) {
		t->gpu_major = run.id.cc_major;
		t->gpu = arena_printf(a, "sm_%d%d", run.id.cc_major, run.id.cc_minor);
		snprintf(why, n_why, "%s", run.id.device);
	} else if (rc == 0) {
		rc = (snprintf(why, n_why, "%s gave no compute capability", prog), 3);
	} else if (rc == PROBE_NO_DEVICE && !*why) {
		snprintf(why, n_why, "no CUDA device (%s)", run.id.cuda_err ? run.id.cuda_err : run.id.error ? run.id.error : "none found");
	}
	probe_run_free(&run);
	return rc;
}

void gpu_environ(const char ***list, size_t *n)
{
	for (char **e = environ; *e; e++) {
		const char *s = *e;
		if (!(isalpha((unsigned char)*s) || *s == '_'))
			continue;
		while (isalnum((unsigned char)*s) || *s == '_')
			s++;
		if (*s != '=')
			continue;       /* exported shell functions and other oddities are not settings */
		*list = mem_realloc(*list, (*n + 1) * sizeof(**list));
		(*list)[(*n)++] = *e;
	}
}

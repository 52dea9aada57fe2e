/* SPDX-License-Identifier: MIT */
/* probe: running the GPU probe program and reading its JSON lines. */
#include "probe/probe.h"

#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <jansson.h>

#include "base/mem.h"
#include "config/pack.h"

extern char **environ;

void probe_run_init(struct probe_run *run)
{
	*run = (struct probe_run){.arena = arena_new()};
}

void probe_run_free(struct probe_run *run)
{
	free(run->bench);
	free(run->memory);
	free(run->cells);
	free(run->nccl);
	arena_free(run->arena);
	*run = (struct probe_run){0};
}

const char *probe_program(const char *given)
{
	static char beside[PATH_MAX];
	if (given)
		return *given ? given : NULL;  /* --probe-bin '': none */
	const char *env = getenv("CGLINT_PROBE");
	if (env && *env)
		return env;
	ssize_t n = readlink("/proc/self/exe", beside, sizeof(beside) - 32);
	if (n <= 0)
		return NULL;
	beside[n] = '\0';
	char *slash = strrchr(beside, '/');
	if (!slash)
		return NULL;
	strcpy(slash + 1, "cglint-probe");
	return access(beside, X_OK) == 0 ? beside : NULL;
}

/* ---- one JSON line into the run ---- */

static const char *str(struct probe_run *run, json_t *o, const char *key)
{
	const char *s = json_string_value(json_object_get(o, key));
	return s ? arena_strdup(run->arena, s) : NULL;
}

static int num(json_t *o, const char *key)
{
	json_t *v = json_object_get(o, key);
	return json_is_integer(v) ? (int)json_integer_value(v) : PROBE_NULL;
}

static int tri(json_t *o, const char *key)
{
	json_t *v = json_object_get(o, key);
	return json_is_boolean(v) ? json_is_true(v) : -1;
}

static int word(json_t *o, const char *key, const char *const *words)
{
	const char *s = json_string_value(json_object_get(o, key));
	return s ? pack_word(words, s) : -1;
}

#define GROW_ONE(arr, n) ((arr) = mem_realloc((arr), ((n) + 1) * sizeof(*(arr))), &(arr)[(n)++])

static void read_identity(struct probe_run *run, json_t *o)
{
	struct probe_identity *id = &run->id;
	id->device = str(run, o, "device");
	id->error = str(run, o, "error");
	id->cuda_rc = num(o, "cuda_rc");
	id->cuda_err = str(run, o, "cuda_err");
	id->cc_major = num(o, "cc_major");
	id->cc_minor = num(o, "cc_minor");
	id->sms = num(o, "sms");
	id->driver = num(o, "driver");
	id->runtime = num(o, "runtime");
	id->nccl = num(o, "nccl") == PROBE_NULL ? 0 : num(o, "nccl");
	id->nccl_note = str(run, o, "nccl_note");
	json_t *env = json_object_get(o, "env");
	id->n_env = json_is_object(env) ? json_object_size(env) : 0;
	id->env = arena_alloc(run->arena, (2 * id->n_env + 1) * sizeof(*id->env));
	const char *key;
	json_t *v;
	size_t k = 0;
	if (id->n_env)
		json_object_foreach(env, key, v) {
			id->env[k++] = arena_strdup(run->arena, key);
			id->env[k++] = json_is_string(v) ? arena_strdup(run->arena, json_string_value(v)) : NULL;
		}
}

static int read_cell(struct probe_run *run, json_t *o, unsigned line, char *err, size_t n_err)
{
	struct probe_cell c = {
		.id = str(run, o, "id"), .does = str(run, o, "does"),
		.mode = word(o, "mode", pack_probe_modes), .stream = word(o, "stream", pack_probe_streams),
		.call_rc = num(o, "call_rc"), .call_err = str(run, o, "call_err"),
		.status = word(o, "status", pack_probe_status), .end_rc = num(o, "end_rc"),
		.graph = tri(o, "graph"), .at_capture = tri(o, "at_capture"),
		.replay = word(o, "replay", pack_probe_replay), .replay_rc = num(o, "replay_rc"),
		.last_error = num(o, "last_error"), .health_rc = num(o, "health_rc"),
		.skipped = str(run, o, "skipped"), .exit = str(run, o, "exit"), .line = line,
	};
	if (!c.id || c.mode < 0 || c.stream < 0) {
		snprintf(err, n_err, "a row needs an id, a mode (global, thread_local, relaxed) and a stream (blocking, nonblocking)");
		return -1;
	}
	if (!c.exit)
		c.exit = "ok";
	*GROW_ONE(run->cells, run->n_cells) = c;
	return 0;
}

/* Worse first: a rank that failed outweighs one that was wrong, ... one that was fine. */
static int worse(int a, int b)
{
	static const int rank[] = {2, 0, 3, 5, 4}; /* none, ok, missing, failed, wrong */
	return a < 0 ? b : b < 0 ? a : rank[b] > rank[a] ? b : a;
}

/* Over the ranks: the first failure, else 0 when every rank reported, else null (a rank hung). */
static int first_nonzero(int acc, int v)
{
	if (acc != 0 && acc != PROBE_NULL)
		return acc;
	if (v != 0 && v != PROBE_NULL)
		return v;
	return acc == PROBE_NULL || v == PROBE_NULL ? PROBE_NULL : 0;
}

/* One multi-GPU cell: its ranks' observations summed into one probe_cell. */
static int read_nccl(struct probe_run *run, json_t *o, unsigned line, char *err, size_t n_err)
{
	const char *gr = json_string_value(json_object_get(o, "graph_register"));
	struct probe_cell c = {
		.id = str(run, o, "id"), .does = str(run, o, "does"), .mode = PROBE_MODE_GLOBAL,
		.stream = PROBE_STREAM_NONBLOCKING, .call_rc = 0, .status = -1, .end_rc = 0, .graph = -1,
		.at_capture = -1, .replay = -1, .replay_rc = PROBE_NULL, .last_error = PROBE_NULL,
		.health_rc = PROBE_NULL, .exit = "ok", .line = line, .mem = word(o, "mem", pack_probe_mems),
		.graph_register = gr ? pack_word(pack_probe_graph_register, gr) : 0,
		.reg = json_is_true(json_object_get(o, "register")), .eager = -1,
	};
	json_t *ranks = json_object_get(o, "rank");
	if (!c.id || c.mem < 0 || c.graph_register < 0 || !json_is_array(ranks) || !json_array_size(ranks)) {
		snprintf(err, n_err, "a multi-GPU cell needs an id, a mem, a graph_register and its ranks");
		return -1;
	}
	size_t k;
	json_t *r;
	json_array_foreach(ranks, k, r) {
		const char *ex = json_string_value(json_object_get(r, "exit"));
		if (!c.skipped && json_is_string(json_object_get(r, "skipped")))
			c.skipped = str(run, r, "skipped");
		if (ex && !strcmp(ex, "timeout")) {
			c.hang = 1;
			c.hung_at = str(run, r, "at");
		} else if (ex && strcmp(ex, "ok") && strcmp(ex, "peer exited") && !strcmp(c.exit, "ok")) {
			c.exit = arena_strdup(run->arena, ex); /* a crash, not a hang */
		}
		c.call_rc = first_nonzero(c.call_rc, num(r, "call_rc"));
		c.end_rc = first_nonzero(c.end_rc, num(r, "end_rc"));
		c.replay = worse(c.replay, word(r, "replay", pack_probe_replay));
		c.eager = worse(c.eager, word(r, "eager", pack_probe_replay));
		json_t *bad = json_object_get(r, "bad");
		if (json_is_integer(bad) && json_integer_value(bad) > c.bad)
			c.bad = json_integer_value(bad);
	}
	json_t *w = json_object_get(o, "warnings");
	c.n_warnings = json_is_array(w) ? json_array_size(w) : 0;
	c.warnings = arena_alloc(run->arena, (c.n_warnings + 1) * sizeof(*c.warnings));
	for (k = 0; k < c.n_warnings; k++) {
		const char *s = json_string_value(json_array_get(w, k));
		c.warnings[k] = arena_strdup(run->arena, s ? s : "");
	}
	*GROW_ONE(run->nccl, run->n_nccl) = c;
	return 0;
}

static int read_line(struct probe_run *run, const char *text, size_t len, unsigned line, char *err, size_t n_err)
{
	json_error_t je;
	json_t *o = json_loadb(text, len, JSON_REJECT_DUPLICATES, &je);
	if (!json_is_object(o)) {
		snprintf(err, n_err, "%s", o ? "a line is one JSON object" : je.text);
		json_decref(o);
		return -1;
	}
	const char *kind = json_string_value(json_object_get(o, "kind"));
	int rc = 0;
	if (!kind) {
		snprintf(err, n_err, "a line needs a \"kind\"");
		rc = -1;
	} else if (!strcmp(kind, "identity")) {
		read_identity(run, o);
	} else if (!strcmp(kind, "capture")) {
		run->capture = (struct probe_capture){
			.present = true, .chain = num(o, "chain"), .begin_rc = num(o, "begin_rc"), .end_rc = num(o, "end_rc"),
			.instantiate_rc = num(o, "instantiate_rc"), .replay_rc = num(o, "replay_rc"),
			.bitwise_equal = json_is_true(json_object_get(o, "bitwise_equal")),
		};
	} else if (!strcmp(kind, "bench")) {
		*GROW_ONE(run->bench, run->n_bench) = (struct probe_bench){
			.chain = num(o, "chain"), .warmup = num(o, "warmup"), .reps = num(o, "reps"),
			.eager_host_us = json_number_value(json_object_get(o, "eager_host_us_per_kernel")),
			.graph_host_us = json_number_value(json_object_get(o, "graph_host_us_per_kernel")),
			.eager_gpu_us = json_number_value(json_object_get(o, "eager_gpu_us")),
			.graph_gpu_us = json_number_value(json_object_get(o, "graph_gpu_us")),
		};
	} else if (!strcmp(kind, "memory")) {
		*GROW_ONE(run->memory, run->n_memory) = (struct probe_memory){
			.chain = num(o, "chain"),
			.free_before = json_integer_value(json_object_get(o, "free_before")),
			.free_after = json_integer_value(json_object_get(o, "free_after")),
			.graph_bytes = json_integer_value(json_object_get(o, "graph_bytes")),
			.copies = num(o, "copies") == PROBE_NULL ? 0 : num(o, "copies"),
			.bytes_per_exec = json_is_integer(json_object_get(o, "bytes_per_exec"))
						  ? json_integer_value(json_object_get(o, "bytes_per_exec")) : -1,
		};
	} else if (!strcmp(kind, "row")) {
		rc = read_cell(run, o, line, err, n_err);
	} else if (!strcmp(kind, "ranks")) {
		run->ranks = (struct probe_ranks){
			.present = true, .want = num(o, "ranks"), .devices = num(o, "devices"),
			.peer_access = tri(o, "peer_access"), .error = str(run, o, "error"),
		};
	} else if (!strcmp(kind, "nccl")) {
		rc = read_nccl(run, o, line, err, n_err);
	}
	/* other kinds (rowdef, later additions) are not ours to judge */
	json_decref(o);
	return rc;
}

int probe_parse(struct probe_run *run, const char *name, const char *text, size_t len, char *err, size_t n_err)
{
	run->source = arena_strdup(run->arena, name);
	unsigned line = 1;
	bool any = false;       /* a line read: past it, a bad line is a damaged recording, not another file */
	for (size_t at = 0; at < len; line++) {
		const char *nl = memchr(text + at, '\n', len - at);
		size_t end = nl ? (size_t)(nl - text) : len;
		size_t k = at;
		while (k < end && (text[k] == ' ' || text[k] == '\t' || text[k] == '\r'))
			k++;
		char why[200];
		if (k < end && read_line(run, text + at, end - at, line, why, sizeof(why))) {
			if (any)
				snprintf(err, n_err, "%s:%u: %s", name, line, why);
			else
				snprintf(err, n_err, "%s:%u: not a recording of cglint-probe's output: %s", name, line, why);
			return 2;
		}
		any |= k < end;
		at = end + 1;
	}
	if (!run->id.device && !run->id.error) {
		snprintf(err, n_err, "%s: no identity line: not the output of cglint-probe", name);
		return 2;
	}
	if (!run->id.device)
		return PROBE_NO_DEVICE;
	return run->ranks.present && run->ranks.error ? PROBE_FEW_DEVICES : 0;
}

int probe_exec(struct probe_run *run, const char *prog, const char *const *args, char *err, size_t n_err)
{
	size_t n_args = 0;
	while (args[n_args])
		n_args++;
	/* posix_spawn wants mutable strings */
	char **argv = mem_alloc((n_args + 2) * sizeof(*argv));
	argv[0] = arena_strdup(run->arena, prog);
	for (size_t k = 0; k < n_args; k++)
		argv[k + 1] = arena_strdup(run->arena, args[k]);
	int fds[2];
	if (pipe(fds)) {
		snprintf(err, n_err, "cannot make a pipe: %s", strerror(errno));
		free(argv);
		return 3;
	}
	posix_spawn_file_actions_t fa;
	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_adddup2(&fa, fds[1], STDOUT_FILENO);
	posix_spawn_file_actions_addclose(&fa, fds[0]);
	posix_spawn_file_actions_addclose(&fa, fds[1]);
	pid_t pid;
	int rc = posix_spawn(&pid, prog, &fa, NULL, argv, environ);
	posix_spawn_file_actions_destroy(&fa);
	free(argv);
	close(fds[1]);
	if (rc) {
		close(fds[0]);
		snprintf(err, n_err, "cannot run %s: %s", prog, strerror(rc));
		return 3;
	}
	struct sbuf out;
	sbuf_init(&out);
	char buf[65536];
	ssize_t got;
	bool too_much = false;
	while ((got = read(fds[0], buf, sizeof(buf))) != 0) {
		if (got < 0 && errno == EINTR)
			continue;
		if (got < 0)
			break;
		if (out.len + (size_t)got > PROBE_MAX_OUTPUT) {
			too_much = true;        /* keep draining so the program is not stuck on a full pipe */
			continue;
		}
		sbuf_addn(&out, buf, (size_t)got);
	}
	close(fds[0]);
	int status;
	while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
	if (too_much)
		rc = (snprintf(err, n_err, "%s printed more than %u bytes", prog, PROBE_MAX_OUTPUT), 3);
	else if (WIFSIGNALED(status))
		rc = (snprintf(err, n_err, "%s died on signal %d (%s)", prog, WTERMSIG(status), strsignal(WTERMSIG(status))), 3);
	else if (WEXITSTATUS(status) == 2)     /* it said why on stderr: a usage error, like ours */
		rc = (snprintf(err, n_err, "%s refused its arguments", prog), 2);
	else if (WEXITSTATUS(status) != 0 && WEXITSTATUS(status) != PROBE_NO_DEVICE &&
		 WEXITSTATUS(status) != PROBE_FEW_DEVICES)
		rc = (snprintf(err, n_err, "%s exited with status %d", prog, WEXITSTATUS(status)), 3);
	else if ((rc = probe_parse(run, prog, out.buf ? out.buf : "", out.len, err, n_err)) == 2)
		rc = 3;         /* the program's own output is broken: an internal error, not bad input */
	else if (rc != (int)WEXITSTATUS(status))
		rc = (snprintf(err, n_err, "%s exited with status %d but printed %s", prog, WEXITSTATUS(status),
			       rc == PROBE_NO_DEVICE ? "no device" : rc == PROBE_FEW_DEVICES ? "too few devices" : "a device"), 3);
	sbuf_release(&out);
	return rc;
}

/* SPDX-License-Identifier: MIT */
/*
 * probe_ranks: the parent's side of cglint-probe --ranks N. For each cell (collective, memory
 * kind, NCCL_GRAPH_REGISTER unset/0/1, ncclCommRegister off/on) it starts N rank processes
 * (probe_nccl.cu), one per GPU, waits for them under the timeout, and prints one
 * {"kind":"nccl"} line: each rank's results, where a rank that hung stopped, and NCCL's
 * warnings. A hang is a result: the rank's exit reads "timeout".
 *
 * The parent never initialises CUDA or NCCL. Every rank runs with NCCL_NVLS_ENABLE=0 whatever
 * the caller's environment says: NVLink SHARP/multicast can take a shared host's GPUs out of
 * service, so those paths are not probed.
 */
#include "probe/probe_gpu.h"

#include <cstdio>
#include <cstdlib>
#include <cstring>

#include <poll.h>
#include <signal.h>
#include <unistd.h>

extern char **environ;

/* The "ranks" line: devices and peer access among the first N. In a child (CUDA). */
int child_ranks_info(int nranks)
{
	int n = 0;
	cudaError_t e = cudaGetDeviceCount(&n);
	if (e != cudaSuccess)
		n = 0;
	int peer = n >= nranks ? 1 : -1;
	for (int a = 0; a < nranks && a < n; a++)
		for (int b = 0; b < nranks && b < n; b++) {
			int ok = 0;
			if (a != b && (cudaDeviceCanAccessPeer(&ok, a, b) != cudaSuccess || !ok))
				peer = 0;
		}
	Js j;
	js_open(&j);
	js_str(&j, "kind", "ranks");
	js_int(&j, "ranks", nranks);
	js_int(&j, "devices", n);
	js_bool(&j, "peer_access", peer);
	js_str(&j, "nvls", "NCCL_NVLS_ENABLE=0 (NVLink SHARP/multicast not probed)");
	js_str(&j, "error", n < nranks ? "not enough devices" : NULL);
	js_print(&j);
	return n < nranks ? EXIT_FEWDEV : EXIT_OK;
}

/* ---------------------------------------------------------------- the ranks' environment */

static const char *const GR_VALUES[] = {NULL, "0", "1"}; /* NCCL_GRAPH_REGISTER: unset, 0, 1 */

static bool ours(const char *e)
{
	static const char *const names[] = {"NCCL_GRAPH_REGISTER=", "NCCL_NVLS_ENABLE=", "NCCL_DEBUG=",
					    "NCCL_DEBUG_SUBSYS=", "NCCL_DEBUG_FILE="};
	for (const char *n : names)
		if (!strncmp(e, n, strlen(n)))
			return true;
	return false;
}

/* environ without the variables the cell sets, then the cell's: NVLS off, warnings and the
 * registration subsystem's notes on stdout, NCCL_GRAPH_REGISTER as the cell says. */
static char **cell_env(int gr)
{
	size_t n = 0;
	while (environ[n])
		n++;
	char **env = (char **)calloc(n + 8, sizeof(char *));
	if (!env)
		return NULL;
	size_t k = 0;
	for (size_t i = 0; i < n; i++)
		if (!ours(environ[i]))
			env[k++] = environ[i];
	static char gr_buf[64];
	env[k++] = (char *)"NCCL_NVLS_ENABLE=0";
	env[k++] = (char *)"NCCL_DEBUG=INFO";
	env[k++] = (char *)"NCCL_DEBUG_SUBSYS=REG";
	if (GR_VALUES[gr]) {
		snprintf(gr_buf, sizeof(gr_buf), "NCCL_GRAPH_REGISTER=%s", GR_VALUES[gr]);
		env[k++] = gr_buf;
	}
	env[k] = NULL;
	return env;
}

/* ---------------------------------------------------------------- one cell */

enum { MAX_NOTES = 8, NOTE_LEN = 300, PEER_GRACE_S = 10 };

struct Notes {
	char warn[MAX_NOTES][NOTE_LEN], info[MAX_NOTES][NOTE_LEN];
	int n_warn, n_info, all_warn, all_info;
};

struct RankOut {
	char *line;		/* the rank's {"kind":"rank"} line */
	char at[32];		/* its last step */
	Notes *notes;
};

/* "host:pid:tid [dev] NCCL WARN text" -> text, kept once. */
static void note(char (*list)[NOTE_LEN], int *n, int *all, const char *text)
{
	(*all)++;
	for (int i = 0; i < *n; i++)
		if (!strncmp(list[i], text, NOTE_LEN - 1))
			return;
	if (*n < MAX_NOTES)
		snprintf(list[(*n)++], NOTE_LEN, "%s", text);
}

static void rank_other(const char *line, void *ctx)
{
	RankOut *o = (RankOut *)ctx;
	const char *w = strstr(line, "NCCL WARN "), *i = strstr(line, "NCCL INFO ");
	if (w)
		note(o->notes->warn, &o->notes->n_warn, &o->notes->all_warn, w + 10);
	else if (i)
		note(o->notes->info, &o->notes->n_info, &o->notes->all_info, i + 10);
	else
		fprintf(stderr, "%s\n", line);
}

static void rank_json(const char *line, void *ctx)
{
	RankOut *o = (RankOut *)ctx;
	const char *at = strstr(line, "\"at\":\"");
	if (!strncmp(line, "{\"kind\":\"step\"", 14) && at) {
		at += 6;
		size_t l = strcspn(at, "\"");
		snprintf(o->at, sizeof(o->at), "%.*s", (int)(l < sizeof(o->at) ? l : sizeof(o->at) - 1), at);
	} else if (!strncmp(line, "{\"kind\":\"rank\"", 14) && !o->line) {
		o->line = strdup(line);
	}
}

static void set_arg(char **argv, char (*store)[64], int i, const char *s)
{
	snprintf(store[i], 64, "%s", s);
	argv[i] = store[i];
}

/* Runs the N ranks of one cell; fills exit strings and outputs. */
static int run_cell(int nranks, int coll, int mem, int gr, int reg, const char *uid, Kid *kids, bool *cut)
{
	char **env = cell_env(gr);
	if (!env)
		return EXIT_INTERNAL;
	char nb[16], rb[16], tb[16];
	snprintf(nb, sizeof(nb), "%d", nranks);
	snprintf(tb, sizeof(tb), "%d", g_timeout);
	for (int r = 0; r < nranks; r++) {
		char *argv[20];
		char store[20][64];
		snprintf(rb, sizeof(rb), "%d", r);
		const char *a[] = {"cglint-probe", "--rank-cell", RANKS_COLLS[coll], "--mem", RANKS_MEMS[mem], "--register",
				   reg ? "1" : "0", "--rank", rb, "--ranks", nb, "--timeout", tb, "--uid"};
		int n = 0;
		for (const char *s : a)
			set_arg(argv, store, n++, s);
		argv[n++] = (char *)uid; /* may be longer than a store slot */
		argv[n] = NULL;
		if (kid_start(&kids[r], argv, env) != 0) {
			fprintf(stderr, "cglint-probe: cannot spawn %s\n", g_exe);
			for (int q = 0; q < r; q++)
				kill(kids[q].pid, SIGKILL);
			free(env);
			return EXIT_INTERNAL;
		}
		cut[r] = false;
	}
	free(env);
	struct pollfd pf[64];
	int pj[64];
	for (;;) {
		int np = 0, left = 0;
		double until = now_s() + 1.0;
		for (int r = 0; r < nranks; r++) {
			if (kids[r].done)
				continue;
			left++;
			if (!kids[r].eof) {
				pf[np].fd = kids[r].fd;
				pf[np].events = POLLIN;
				pf[np].revents = 0;
				pj[np++] = r;
			} else {
				until = now_s() + 0.01;
			}
			if (kids[r].deadline < until)
				until = kids[r].deadline;
		}
		if (!left)
			break;
		int ms = (int)((until - now_s()) * 1000.0);
		if (poll(np ? pf : NULL, (nfds_t)np, ms < 0 ? 0 : ms) > 0)
			for (int i = 0; i < np; i++)
				if (pf[i].revents)
					kid_read(&kids[pj[i]]);
		for (int r = 0; r < nranks; r++) {
			bool was = kids[r].done;
			kid_poll(&kids[r]);
			if (was || !kids[r].done)
				continue;
			/* A rank that ended leaves its peers little to wait for: a collective needs all. */
			for (int q = 0; q < nranks; q++)
				if (!kids[q].done && kids[q].deadline > now_s() + PEER_GRACE_S) {
					kids[q].deadline = now_s() + PEER_GRACE_S;
					cut[q] = true;
				}
		}
	}
	return EXIT_OK;
}

static void emit_cell(int nranks, int coll, int mem, int gr, int reg, Kid *kids, const bool *cut)
{
	static Notes notes;
	static RankOut outs[64];
	static char items[64][4096];
	const char *item_p[64];
	memset(&notes, 0, sizeof(notes));
	for (int r = 0; r < nranks; r++) {
		RankOut *o = &outs[r];
		memset(o, 0, sizeof(*o));
		snprintf(o->at, sizeof(o->at), "start");
		o->notes = &notes;
		each_json_line(kids[r].out ? kids[r].out : "", rank_json, o, rank_other);
		char ex[64];
		exit_string(&kids[r], ex, sizeof(ex));
		if (cut[r] && kids[r].killed)
			snprintf(ex, sizeof(ex), "peer exited"); /* killed by us after a peer ended, not a hang */
		size_t l = o->line ? strlen(o->line) : 0;
		if (l > 1 && l < sizeof(items[r]) - 100) {
			o->line[l - 1] = 0; /* drop the '}' */
			snprintf(items[r], sizeof(items[r]), "%s,\"exit\":\"%s\",\"at\":\"%s\"}", o->line, ex, o->at);
		} else {
			snprintf(items[r], sizeof(items[r]), "{\"kind\":\"rank\",\"rank\":%d,\"exit\":\"%s\",\"at\":\"%s\"}", r, ex,
				 o->at);
		}
		item_p[r] = items[r];
		free(o->line);
		free(kids[r].out);
		kids[r].out = NULL;
	}
	const char *w[MAX_NOTES], *i[MAX_NOTES];
	for (int k = 0; k < notes.n_warn; k++)
		w[k] = notes.warn[k];
	for (int k = 0; k < notes.n_info; k++)
		i[k] = notes.info[k];
	static Js j;
	js_open(&j);
	js_str(&j, "kind", "nccl");
	js_str(&j, "id", RANKS_COLLS[coll]);
	js_str(&j, "does", RANKS_DOES[coll]);
	js_int(&j, "ranks", nranks);
	js_str(&j, "mem", RANKS_MEMS[mem]);
	js_str(&j, "graph_register", GR_VALUES[gr]);
	js_bool(&j, "register", reg);
	js_array(&j, "rank", item_p, nranks, true);
	js_array(&j, "warnings", w, notes.n_warn, false);
	js_int(&j, "n_warnings", notes.all_warn);
	js_array(&j, "info", i, notes.n_info, false);
	js_int(&j, "n_info", notes.all_info);
	js_print(&j);
}

/* ---------------------------------------------------------------- the section */

int ranks_run(int nranks, const char *only)
{
	bool want[RANKS_N_COLLS];
	for (int c = 0; c < RANKS_N_COLLS; c++)
		want[c] = only == NULL;
	if (only) {
		char *ids = strdup(only), *save = NULL;
		for (char *t = strtok_r(ids, ",", &save); t; t = strtok_r(NULL, ",", &save))
			want[ranks_coll_find(t)] = true; /* main checked the ids */
		free(ids);
	}
	/* The devices first: too few is the section's own status, not a failure. */
	Kid info;
	char store[8][64], *argv[8];
	char nb[16], tb[16];
	snprintf(nb, sizeof(nb), "%d", nranks);
	snprintf(tb, sizeof(tb), "%d", g_timeout);
	const char *a[] = {"cglint-probe", "--child", "ranks", "--ranks", nb, "--timeout", tb};
	for (int k = 0; k < 7; k++)
		set_arg(argv, store, k, a[k]);
	argv[7] = NULL;
	if (kid_start(&info, argv, NULL) != 0)
		return EXIT_INTERNAL;
	while (!info.done) {
		struct pollfd pf = {info.fd, POLLIN, 0};
		if (!info.eof && poll(&pf, 1, 200) > 0)
			kid_read(&info);
		else if (info.eof)
			usleep(10000);
		kid_poll(&info);
	}
	const char *line = info.out ? strstr(info.out, "{\"kind\":\"ranks\"") : NULL;
	if (!line) {
		char ex[64];
		exit_string(&info, ex, sizeof(ex));
		Js j;
		js_open(&j);
		js_str(&j, "kind", "ranks");
		js_int(&j, "ranks", nranks);
		js_int(&j, "devices", NUL);
		js_str(&j, "error", ex);
		js_print(&j);
		return EXIT_INTERNAL;
	}
	fwrite(line, 1, strcspn(line, "\n"), stdout);
	fputc('\n', stdout);
	fflush(stdout);
	bool few = strstr(line, "\"error\":\"not enough devices\"") != NULL;
	free(info.out);
	if (few)
		return EXIT_FEWDEV;

	static Kid kids[64];
	static bool cut[64];
	char dir[] = "/tmp/cglint-probe-XXXXXX";
	if (!mkdtemp(dir))
		return EXIT_INTERNAL;
	int cell = 0;
	/* collectives outer, then memory kind, NCCL_GRAPH_REGISTER, registration */
	for (int c = 0; c < RANKS_N_COLLS; c++)
		for (int m = 0; m < RANKS_N_MEMS && want[c]; m++)
			for (int gr = 0; gr < 3; gr++)
				for (int reg = 0; reg < 2; reg++) {
					char uid[sizeof(dir) + 32];
					snprintf(uid, sizeof(uid), "%s/uid-%d", dir, cell++);
					if (run_cell(nranks, c, m, gr, reg, uid, kids, cut) != EXIT_OK) {
						rmdir(dir);
						return EXIT_INTERNAL;
					}
					emit_cell(nranks, c, m, gr, reg, kids, cut);
					unlink(uid);
				}
	rmdir(dir);
	return EXIT_OK;
}

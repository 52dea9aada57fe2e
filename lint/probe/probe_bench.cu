/* SPDX-License-Identifier: MIT */
/* probe_bench: the capture, bench and memory lines: eager vs graph launch cost and graph memory
 * over chains of 10, 100 and 1000 kernels. */
#include "probe/probe_gpu.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>

__global__ void k_axpb(float *x, int n, float a, float b)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n)
		x[i] = x[i] * a + b;
}

enum { B_WARM = 5, B_REPS = 50, B_N = 4096, B_BLOCK = 256 };

#define MEM_COPIES 64

struct BenchRes {
	int chain;
	bool eager_ok, graph_ok, mem_ok;
	double eh, gh, eg, gg;	      /* host us per kernel, GPU us per iteration */
	size_t free_before, free_after;
	size_t free_after_copies;     /* after MEM_COPIES more executables of the same graph */
	int begin_rc, end_rc, inst_rc, replay_rc;
	int equal;		      /* -1 unknown */
};

static double median(double *v, int n)
{
	std::sort(v, v + n);
	return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

static double us_since(std::chrono::steady_clock::time_point t0)
{
	return std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - t0).count();
}

/* The (a_k, b_k) differ per launch so that a reordered or dropped node changes the result. */
static void chain_coef(int k, float *a, float *b)
{
	*a = 1.0f + (float)((k % 7) - 3) * 0.001f;
	*b = (float)(k % 13) * 0.01f - 0.06f;
}

static void enqueue_chain(float *x, int chain, cudaStream_t s)
{
	for (int k = 0; k < chain; k++) {
		float a, b;
		chain_coef(k, &a, &b);
		k_axpb<<<(B_N + B_BLOCK - 1) / B_BLOCK, B_BLOCK, 0, s>>>(x, B_N, a, b);
	}
}

static void bench_one(int chain, cudaStream_t s, float *x, const float *x0, float *out_e, float *out_g,
		      cudaEvent_t ea, cudaEvent_t eb, BenchRes *r)
{
	const size_t bytes = B_N * sizeof(float);
	double host[B_WARM + B_REPS], gpu[B_WARM + B_REPS];
	memset(r, 0, sizeof(*r));
	r->chain = chain;
	r->begin_rc = r->end_rc = r->inst_rc = r->replay_rc = NUL;
	r->equal = -1;

	/* Eager first: also loads the module lazily before any capture. */
	bool ok = true;
	for (int i = 0; i < B_WARM + B_REPS && ok; i++) {
		float ms = 0;
		ok = cudaMemcpy(x, x0, bytes, cudaMemcpyHostToDevice) == cudaSuccess &&
		     cudaEventRecord(ea, s) == cudaSuccess;
		auto t0 = std::chrono::steady_clock::now();
		enqueue_chain(x, chain, s);
		host[i] = us_since(t0);
		ok = ok && cudaGetLastError() == cudaSuccess && cudaEventRecord(eb, s) == cudaSuccess &&
		     cudaStreamSynchronize(s) == cudaSuccess && cudaEventElapsedTime(&ms, ea, eb) == cudaSuccess;
		gpu[i] = ms * 1000.0;
	}
	if (ok) {
		r->eager_ok = true;
		r->eh = median(host + B_WARM, B_REPS) / chain;
		r->eg = median(gpu + B_WARM, B_REPS);
	}
	/* Reference result of one eager chain from x0. */
	ok = cudaMemcpy(x, x0, bytes, cudaMemcpyHostToDevice) == cudaSuccess;
	enqueue_chain(x, chain, s);
	ok = ok && cudaGetLastError() == cudaSuccess && cudaStreamSynchronize(s) == cudaSuccess &&
	     cudaMemcpy(out_e, x, bytes, cudaMemcpyDeviceToHost) == cudaSuccess;
	if (!ok)
		fprintf(stderr, "cglint-probe: bench chain %d: eager reference failed\n", chain);

	/* Capture (never timed), instantiate between two cudaMemGetInfo, upload. */
	cudaGraph_t g = NULL;
	cudaGraphExec_t ge = NULL;
	r->begin_rc = (int)cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal);
	if (r->begin_rc == 0) {
		enqueue_chain(x, chain, s);
		r->end_rc = (int)cudaStreamEndCapture(s, &g);
	}
	cudaGetLastError();
	if (!g)
		return;
	size_t fb = 0, fa = 0, tot = 0;
	cudaError_t m1 = cudaMemGetInfo(&fb, &tot);
	r->inst_rc = (int)cudaGraphInstantiate(&ge, g, 0);
	cudaError_t m2 = cudaMemGetInfo(&fa, &tot);
	if (m1 == cudaSuccess && m2 == cudaSuccess && r->inst_rc == 0) {
		r->mem_ok = true;
		r->free_before = fb;
		r->free_after = fa;
	}
	if (r->inst_rc != 0) {
		cudaGraphDestroy(g);
		return;
	}
	/* cudaMemGetInfo moves in 2 MiB steps: one executable may not move it at all, so also
	   instantiate MEM_COPIES more and divide. */
	cudaGraphExec_t copies[MEM_COPIES];
	int made = 0;
	while (made < MEM_COPIES && cudaGraphInstantiate(&copies[made], g, 0) == cudaSuccess)
		made++;
	size_t fc = 0;
	if (r->mem_ok && made == MEM_COPIES && cudaMemGetInfo(&fc, &tot) == cudaSuccess)
		r->free_after_copies = fc;
	for (int k = 0; k < made; k++)
		cudaGraphExecDestroy(copies[k]);
	cudaGetLastError();
	int rc = (int)cudaGraphUpload(ge, s);
	if (rc == 0)
		rc = (int)cudaMemcpy(x, x0, bytes, cudaMemcpyHostToDevice);
	if (rc == 0)
		rc = (int)cudaGraphLaunch(ge, s);
	if (rc == 0)
		rc = (int)cudaStreamSynchronize(s);
	r->replay_rc = rc;
	if (rc == 0 && cudaMemcpy(out_g, x, bytes, cudaMemcpyDeviceToHost) == cudaSuccess)
		r->equal = memcmp(out_e, out_g, bytes) == 0;

	ok = rc == 0;
	for (int i = 0; i < B_WARM + B_REPS && ok; i++) {
		float ms = 0;
		ok = cudaMemcpy(x, x0, bytes, cudaMemcpyHostToDevice) == cudaSuccess &&
		     cudaEventRecord(ea, s) == cudaSuccess;
		auto t0 = std::chrono::steady_clock::now();
		cudaError_t le = cudaGraphLaunch(ge, s);
		host[i] = us_since(t0);
		ok = ok && le == cudaSuccess && cudaEventRecord(eb, s) == cudaSuccess &&
		     cudaStreamSynchronize(s) == cudaSuccess && cudaEventElapsedTime(&ms, ea, eb) == cudaSuccess;
		gpu[i] = ms * 1000.0;
	}
	if (ok) {
		r->graph_ok = true;
		r->gh = median(host + B_WARM, B_REPS) / chain;
		r->gg = median(gpu + B_WARM, B_REPS);
	}
	cudaGraphExecDestroy(ge);
	cudaGraphDestroy(g);
}

int child_bench(void)
{
	static const int chains[3] = {10, 100, 1000};
	const size_t bytes = B_N * sizeof(float);
	cudaStream_t s;
	cudaEvent_t ea, eb;
	float *x = NULL;
	float *x0 = (float *)malloc(bytes), *oe = (float *)malloc(bytes), *og = (float *)malloc(bytes);
	if (!x0 || !oe || !og)
		return EXIT_INTERNAL;
	for (int i = 0; i < B_N; i++)
		x0[i] = (float)(i % 97) * 0.25f - 3.0f;
	if (cudaSetDevice(0) != cudaSuccess || cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking) != cudaSuccess ||
	    cudaEventCreate(&ea) != cudaSuccess || cudaEventCreate(&eb) != cudaSuccess ||
	    cudaMalloc(&x, bytes) != cudaSuccess) {
		fprintf(stderr, "cglint-probe: bench setup failed: %s\n", cudaGetErrorName(cudaGetLastError()));
		return EXIT_INTERNAL;
	}
	BenchRes r[3];
	for (int i = 0; i < 3; i++)
		bench_one(chains[i], s, x, x0, oe, og, ea, eb, &r[i]);

	Js j;
	const BenchRes *c = &r[1]; /* the correctness line is the chain-100 run */
	js_open(&j);
	js_str(&j, "kind", "capture");
	js_int(&j, "chain", c->chain);
	js_int(&j, "begin_rc", c->begin_rc);
	js_int(&j, "end_rc", c->end_rc);
	js_int(&j, "instantiate_rc", c->inst_rc);
	js_int(&j, "replay_rc", c->replay_rc);
	js_bool(&j, "bitwise_equal", c->equal);
	js_print(&j);
	for (int i = 0; i < 3; i++) {
		js_open(&j);
		js_str(&j, "kind", "bench");
		js_int(&j, "chain", r[i].chain);
		js_int(&j, "warmup", B_WARM);
		js_int(&j, "reps", B_REPS);
		js_num(&j, "eager_host_us_per_kernel", r[i].eh, r[i].eager_ok);
		js_num(&j, "graph_host_us_per_kernel", r[i].gh, r[i].graph_ok);
		js_num(&j, "eager_gpu_us", r[i].eg, r[i].eager_ok);
		js_num(&j, "graph_gpu_us", r[i].gg, r[i].graph_ok);
		js_print(&j);
	}
	for (int i = 0; i < 3; i++) {
		bool m = r[i].mem_ok;
		js_open(&j);
		js_str(&j, "kind", "memory");
		js_int(&j, "chain", r[i].chain);
		js_int(&j, "free_before", m ? (long long)r[i].free_before : NUL);
		js_int(&j, "free_after", m ? (long long)r[i].free_after : NUL);
		js_int(&j, "graph_bytes", m ? (long long)r[i].free_before - (long long)r[i].free_after : NUL);
		bool mc = m && r[i].free_after_copies;
		js_int(&j, "copies", MEM_COPIES);
		js_int(&j, "bytes_per_exec",
		       mc ? ((long long)r[i].free_before - (long long)r[i].free_after_copies) / (MEM_COPIES + 1) : NUL);
		js_print(&j);
	}
	return EXIT_OK;
}

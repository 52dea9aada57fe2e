#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Generate realistic CUDA / C++ / C sources for benchmarking cglint's source scanner.

usage: gen_src.py OUTDIR [-n N] [--seed S]

About 60% are .cu files in the style of training-framework extensions and CUDA samples: an
error-check macro, a few kernels (elementwise, block and warp reductions, softmax, transpose,
gather, fp16/bf16 casts), host helpers that allocate and launch, one or two capture regions
(cudaStreamBeginCapture ... cudaStreamEndCapture, with cuBLAS, NCCL, cuRAND, a forked second
stream) and a replay loop. About 20% are host-only C++ (.cpp: a graph cache keyed by batch
size, cudaLaunchKernel, cuBLAS, STL containers) and 20% C (.c: driver-API module loading and
capture, runtime API from C, and plain C utilities without CUDA). Sizes run from 50 to 800
lines. About a third of the CUDA files are broken on purpose (name contains "_bad_", one
hazard each: a sync, query, allocation or blocking copy inside the capture, a launch on the
legacy stream, an early return that leaves the capture open, instantiation in a loop, host
work in the region); the rest are clean ("_ok_").

Only headers that both cglint's shim and the CUDA 13 toolkit provide are included, so every
file parses in both modes. Output is a pure function of (N, seed). Standard library only.
"""

import argparse
import os
import random
import sys

# ---------------------------------------------------------------------------------------
# Kernels: each returns (text, launcher) where launcher(grid, block, stream, args) is the
# argument list a host function passes; "p" kernels take (float *x, ..., int n).
# ---------------------------------------------------------------------------------------


def k_elementwise(r, name):
    op = r.choice([
        ("y[i] = a * x[i] + y[i];", "float a, const float *__restrict__ x, float *__restrict__ y"),
        ("y[i] = x[i] > 0.0f ? x[i] : 0.0f;", "float a, const float *__restrict__ x, float *__restrict__ y"),
        ("y[i] = x[i] * (1.0f / (1.0f + __expf(-1.702f * x[i]))) * a;",
         "float a, const float *__restrict__ x, float *__restrict__ y"),
        ("y[i] = fminf(fmaxf(x[i] * a, -65504.0f), 65504.0f);",
         "float a, const float *__restrict__ x, float *__restrict__ y"),
    ])
    text = f"""\
// {name}: grid-stride elementwise op, one float per thread per step.
__global__ void {name}({op[1]}, int n)
{{
	for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) {{
		{op[0]}
	}}
}}
"""
    return text, "ew"


def k_block_reduce(r, name):
    bs = r.choice([128, 256, 512])
    text = f"""\
// {name}: per-block partial sums in shared memory, then one atomic per block.
__global__ void __launch_bounds__({bs}) {name}(const float *__restrict__ x, float *out, int n)
{{
	__shared__ float partial[{bs}];
	int tid = threadIdx.x;
	float acc = 0.0f;
	for (int i = blockIdx.x * {bs} + tid; i < n; i += gridDim.x * {bs})
		acc += x[i];
	partial[tid] = acc;
	__syncthreads();
	for (int stride = {bs} / 2; stride > 0; stride >>= 1) {{
		if (tid < stride)
			partial[tid] += partial[tid + stride];
		__syncthreads();
	}}
	if (tid == 0)
		atomicAdd(out, partial[0]);
}}
"""
    return text, "red"


def k_warp_reduce(r, name):
    text = f"""\
__device__ __forceinline__ float {name}_warp_sum(float v)
{{
	for (int off = 16; off > 0; off >>= 1)
		v += __shfl_down_sync(0xffffffffu, v, off);
	return v;
}}

// {name}: warp-level reduction, lane 0 of each warp adds into out.
__global__ void {name}(const float *__restrict__ x, float *out, int n)
{{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	float v = i < n ? x[i] * x[i] : 0.0f;
	v = {name}_warp_sum(v);
	if ((threadIdx.x & 31) == 0)
		atomicAdd(out, v);
}}
"""
    return text, "red"


def k_softmax(r, name):
    text = f"""\
// {name}: row softmax, one block per row, max and sum through shared memory.
__global__ void {name}(const float *__restrict__ x, float *__restrict__ y, int cols)
{{
	extern __shared__ float smem[];
	const float *row = x + (size_t)blockIdx.x * cols;
	float *out = y + (size_t)blockIdx.x * cols;
	float m = -3.0e38f;
	for (int c = threadIdx.x; c < cols; c += blockDim.x)
		m = fmaxf(m, row[c]);
	smem[threadIdx.x] = m;
	__syncthreads();
	if (threadIdx.x == 0) {{
		for (int t = 1; t < blockDim.x; ++t)
			m = fmaxf(m, smem[t]);
		smem[0] = m;
	}}
	__syncthreads();
	m = smem[0];
	float s = 0.0f;
	for (int c = threadIdx.x; c < cols; c += blockDim.x) {{
		float e = __expf(row[c] - m);
		out[c] = e;
		s += e;
	}}
	__syncthreads();
	smem[threadIdx.x] = s;
	__syncthreads();
	if (threadIdx.x == 0) {{
		for (int t = 1; t < blockDim.x; ++t)
			s += smem[t];
		smem[0] = s;
	}}
	__syncthreads();
	float inv = 1.0f / smem[0];
	for (int c = threadIdx.x; c < cols; c += blockDim.x)
		out[c] *= inv;
}}
"""
    return text, "rows"


def k_transpose(r, name):
    tile = r.choice([16, 32])
    text = f"""\
#define {name.upper()}_TILE {tile}
// {name}: tiled transpose through shared memory, padded against bank conflicts.
__global__ void {name}(const float *__restrict__ in, float *__restrict__ out, int rows, int cols)
{{
	__shared__ float tile[{name.upper()}_TILE][{name.upper()}_TILE + 1];
	int x = blockIdx.x * {name.upper()}_TILE + threadIdx.x;
	int y = blockIdx.y * {name.upper()}_TILE + threadIdx.y;
	if (x < cols && y < rows)
		tile[threadIdx.y][threadIdx.x] = in[(size_t)y * cols + x];
	__syncthreads();
	x = blockIdx.y * {name.upper()}_TILE + threadIdx.x;
	y = blockIdx.x * {name.upper()}_TILE + threadIdx.y;
	if (x < rows && y < cols)
		out[(size_t)y * rows + x] = tile[threadIdx.x][threadIdx.y];
}}
"""
    return text, "2d"


def k_gather(r, name):
    text = f"""\
// {name}: embedding lookup, one row per block.
__global__ void {name}(const long long *__restrict__ ids, const float *__restrict__ table,
		float *__restrict__ out, int dim, long long vocab)
{{
	long long id = ids[blockIdx.x];
	if (id < 0 || id >= vocab)
		return;
	for (int c = threadIdx.x; c < dim; c += blockDim.x)
		out[(size_t)blockIdx.x * dim + c] = __ldg(&table[id * dim + c]);
}}
"""
    return text, "gather"


def k_half(r, name):
    text = f"""\
// {name}: float -> half cast with scaling (mixed-precision master weights).
__global__ void {name}(const float *__restrict__ x, __half *__restrict__ y, float scale, int n)
{{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n)
		y[i] = __float2half(x[i] * scale);
}}
"""
    return text, "half"


def k_bf16(r, name):
    text = f"""\
// {name}: bf16 -> float widening for the optimizer step.
__global__ void {name}(const __nv_bfloat16 *__restrict__ x, float *__restrict__ y, int n)
{{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n)
		y[i] = __bfloat162float(x[i]);
}}
"""
    return text, "bf16"


KERNELS = [k_elementwise, k_elementwise, k_block_reduce, k_warp_reduce, k_softmax, k_transpose,
           k_gather]

CU_HAZARDS = ["sync", "stream_sync", "query", "malloc", "memcpy", "legacy", "open", "inst_loop",
              "host_work"]
CPP_HAZARDS = ["sync", "query", "malloc", "memcpy", "inst_loop", "host_work"]
C_HAZARDS = ["sync", "memcpy", "open"]

HEADER_COMMENTS = [
    "Fused kernels for the {m} block, captured into one CUDA graph per batch size.",
    "{m}: forward pass helpers; the step is captured once and replayed every iteration.",
    "CUDA graph capture of the {m} update step (see docs/graphs.md).",
    "Replays the {m} micro-batch as a graph to hide launch overhead.",
    "{m} kernels and their host launchers.",
]
MODULES = ["attention", "mlp", "layernorm", "optimizer", "embedding", "rope", "moe_router",
           "softmax", "loss", "allreduce", "sampler", "kv_cache", "dropout", "grad_clip"]


def call_launch(kind, name, grid, block, stream, bufs):
    """The launch statement for a kernel of the given kind."""
    x, y, red, n = bufs
    cfg = f"{grid}, {block}" + (f", 0, {stream}" if stream is not None else "")
    if kind == "ew":
        return f"{name}<<<{cfg}>>>(1.5f, {x}, {y}, {n});"
    if kind == "red":
        return f"{name}<<<{cfg}>>>({x}, {red}, {n});"
    if kind == "rows":
        shm = f"{block} * sizeof(float)"
        cfg = f"{n} / 1024, {block}, {shm}" + (f", {stream}" if stream is not None else "")
        return f"{name}<<<{cfg}>>>({x}, {y}, 1024);"
    if kind == "2d":
        cfg = f"dim3(32, {n} / 1024 / 32 + 1), dim3(32, 32)" + (
            f", 0, {stream}" if stream is not None else "")
        return f"{name}<<<{cfg}>>>({x}, {y}, {n} / 1024, 1024);"
    if kind == "gather":
        return None
    raise ValueError(kind)


# ---------------------------------------------------------------------------------------
# .cu files
# ---------------------------------------------------------------------------------------


def gen_cu(r, target, hazard):
    mod = r.choice(MODULES)
    use_fp16 = r.random() < 0.3
    use_bf16 = r.random() < 0.2
    lib = r.choice(["none", "none", "cublas", "nccl", "curand", "fork"])
    macro = r.choice(["CUDA_CHECK", "CHECK_CUDA", "C10_CUDA_CHECK_", "CK"])
    ret_err = r.random() < 0.5   # helpers return cudaError_t instead of aborting
    out = []
    out.append(f"// {r.choice(HEADER_COMMENTS).format(m=mod)}")
    out.append("// SPDX-License-Identifier: Apache-2.0")
    out.append("#include <cuda_runtime.h>")
    if use_fp16:
        out.append("#include <cuda_fp16.h>")
    if use_bf16:
        out.append("#include <cuda_bf16.h>")
    if lib == "cublas":
        out.append("#include <cublas_v2.h>")
    if lib == "nccl":
        out.append("#include <nccl.h>")
    if lib == "curand":
        out.append("#include <curand.h>")
    out += ["#include <cstdio>", "#include <cstdlib>", "#include <cstdint>"]
    if r.random() < 0.5:
        out.append("#include <vector>")
    out.append("")
    out.append(f"#define {macro}(expr)                                                        \\")
    out.append("\tdo {                                                                     \\")
    out.append("\t\tcudaError_t err_ = (expr);                                             \\")
    out.append("\t\tif (err_ != cudaSuccess) {                                             \\")
    out.append(f"\t\t\tstd::fprintf(stderr, \"{mod}: %s failed at %s:%d: %s\\n\", #expr,    \\")
    out.append("\t\t\t\t     __FILE__, __LINE__, cudaGetErrorString(err_));                  \\")
    out.append("\t\t\tstd::abort();                                                       \\")
    out.append("\t\t}                                                                      \\")
    out.append("\t} while (0)")
    out.append("")
    out.append(f"namespace {mod} {{")
    out.append("")
    out.append(f"constexpr int kBlock = {r.choice([128, 256, 512])};")
    out.append(f"constexpr int kReplays = {r.choice([8, 16, 32, 100])};")
    out.append("")

    # kernels: the two the step launches come first, more are added to reach the size
    kinds = []
    names = []

    def add_kernel(fn):
        name = f"{fn.__name__[2:]}_{len(names)}_kernel"
        text, kind = fn(r, name)
        out.extend(text.rstrip("\n").split("\n"))
        out.append("")
        names.append(name)
        kinds.append(kind)

    add_kernel(k_elementwise)
    add_kernel(r.choice([k_block_reduce, k_warp_reduce, k_softmax, k_transpose]))
    if use_fp16:
        add_kernel(k_half)
    if use_bf16:
        add_kernel(k_bf16)

    # tail: buffers, launch helper, capture, replay (its size is known once written)
    tail = cu_tail(r, mod, macro, lib, hazard, names, kinds, use_fp16, use_bf16, ret_err)
    while len(out) + len(tail) < target - 20:
        fn = r.choice(KERNELS + [host_helper])
        if fn is host_helper:
            text = host_helper(r, f"helper_{len(out)}", macro)
            out.extend(text.rstrip("\n").split("\n"))
            out.append("")
        else:
            add_kernel(fn)
    out += tail
    out.append(f"}}  // namespace {mod}")
    out.append("")
    out.append("int main(int argc, char **argv)")
    out.append("{")
    out.append("\tint n = argc > 1 ? std::atoi(argv[1]) : (1 << 20);")
    out.append(f"\treturn {mod}::run(n);")
    out.append("}")
    return "\n".join(out) + "\n"


def host_helper(r, name, macro):
    kind = r.choice(["checksum", "fill", "timer", "props"])
    if kind == "checksum":
        return f"""\
// {name}: copy back and checksum, for the debug build's comparison against eager mode.
static double {name}(const float *d, int n)
{{
	float *h = static_cast<float *>(std::malloc(sizeof(float) * n));
	{macro}(cudaMemcpy(h, d, sizeof(float) * n, cudaMemcpyDeviceToHost));
	double s = 0.0;
	for (int i = 0; i < n; ++i)
		s += h[i];
	std::free(h);
	return s;
}}
"""
    if kind == "fill":
        return f"""\
// {name}: deterministic host init, uploaded once before capture.
static void {name}(float *d, int n, unsigned seed)
{{
	float *h = static_cast<float *>(std::malloc(sizeof(float) * n));
	for (int i = 0; i < n; ++i) {{
		seed = seed * 1664525u + 1013904223u;
		h[i] = (float)(seed >> 8) / 16777216.0f - 0.5f;
	}}
	{macro}(cudaMemcpy(d, h, sizeof(float) * n, cudaMemcpyHostToDevice));
	std::free(h);
}}
"""
    if kind == "timer":
        return f"""\
struct {name} {{
	cudaEvent_t start, stop;
	explicit {name}() {{
		{macro}(cudaEventCreate(&start));
		{macro}(cudaEventCreate(&stop));
	}}
	~{name}() {{
		cudaEventDestroy(start);
		cudaEventDestroy(stop);
	}}
	void begin(cudaStream_t s) {{ {macro}(cudaEventRecord(start, s)); }}
	float end_ms(cudaStream_t s) {{
		float ms = 0.0f;
		{macro}(cudaEventRecord(stop, s));
		{macro}(cudaEventSynchronize(stop));
		{macro}(cudaEventElapsedTime(&ms, start, stop));
		return ms;
	}}
}};
"""
    return f"""\
// {name}: pick the block count from the SM count (queried once, outside any capture).
static int {name}(int n, int block)
{{
	static int sms = 0;
	if (sms == 0) {{
		int dev = 0;
		{macro}(cudaGetDevice(&dev));
		{macro}(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev));
	}}
	int blocks = (n + block - 1) / block;
	return blocks < sms * 8 ? blocks : sms * 8;
}}
"""


def cu_tail(r, mod, macro, lib, hazard, names, kinds, use_fp16, use_bf16, ret_err):
    t = []
    t.append("struct Buffers {")
    t.append("\tfloat *x = nullptr, *y = nullptr, *sum = nullptr;")
    if use_fp16:
        t.append("\t__half *xh = nullptr;")
    if use_bf16:
        t.append("\t__nv_bfloat16 *wb = nullptr;")
    t.append("\tint n = 0;")
    t.append("};")
    t.append("")
    t.append("static void alloc_buffers(Buffers &b, int n)")
    t.append("{")
    t.append("\tb.n = n;")
    t.append(f"\t{macro}(cudaMalloc(&b.x, sizeof(float) * n));")
    t.append(f"\t{macro}(cudaMalloc(&b.y, sizeof(float) * n));")
    t.append(f"\t{macro}(cudaMalloc(&b.sum, sizeof(float)));")
    if use_fp16:
        t.append(f"\t{macro}(cudaMalloc(&b.xh, sizeof(__half) * n));")
    if use_bf16:
        t.append(f"\t{macro}(cudaMalloc(&b.wb, sizeof(__nv_bfloat16) * n));")
    t.append("}")
    t.append("")
    t.append("static void free_buffers(Buffers &b)")
    t.append("{")
    for f in ["x", "y", "sum"] + (["xh"] if use_fp16 else []) + (["wb"] if use_bf16 else []):
        t.append(f"\tcudaFree(b.{f});")
    t.append("}")
    t.append("")

    # the helper launching the step: called inside the capture
    bufs = ("b.x", "b.y", "b.sum", "b.n")
    t.append("// One training step's kernels, on the stream the caller captures.")
    t.append("static void launch_step(const Buffers &b, cudaStream_t stream)")
    t.append("{")
    t.append("\tconst int grid = (b.n + kBlock - 1) / kBlock;")
    t.append(f"\t{macro}(cudaMemsetAsync(b.sum, 0, sizeof(float), stream));")
    for name, kind in zip(names, kinds):
        if kind in ("half", "bf16", "gather"):
            continue
        call = call_launch(kind, name, "grid", "kBlock", "stream", bufs)
        t.append(f"\t{call}")
        break
    if use_fp16:
        t.append(f"\t{names[kinds.index('half')]}<<<grid, kBlock, 0, stream>>>(b.x, b.xh, 0.125f, b.n);")
    if use_bf16:
        t.append(f"\t{names[kinds.index('bf16')]}<<<grid, kBlock, 0, stream>>>(b.wb, b.y, b.n);")
    t.append(f"\t{macro}(cudaGetLastError());")
    t.append("}")
    t.append("")

    second = None
    for name, kind in list(zip(names, kinds))[1:]:
        if kind not in ("half", "bf16", "gather"):
            second = (name, kind)
            break
    if second is None:
        second = (names[0], kinds[0])

    # the capture
    modes = ["cudaStreamCaptureModeGlobal", "cudaStreamCaptureModeGlobal",
             "cudaStreamCaptureModeThreadLocal", "cudaStreamCaptureModeRelaxed"]
    # Relaxed permits cudaMalloc: that hazard needs one of the other two modes
    mode = r.choice(modes[:3] if hazard == "malloc" else modes)
    params = "const Buffers &b, cudaStream_t stream, cudaGraph_t *graph"
    if lib == "cublas":
        params += ", cublasHandle_t handle"
    if lib == "nccl":
        params += ", ncclComm_t comm"
    if lib == "curand":
        params += ", curandGenerator_t gen"
    if lib == "fork":
        params += ", cudaStream_t side, cudaEvent_t fork, cudaEvent_t join"
    rtype = "cudaError_t" if ret_err else "void"
    t.append("// Captures the step into *graph; the stream must be a non-blocking one.")
    t.append(f"static {rtype} capture_step({params})")
    t.append("{")
    if hazard == "malloc":
        t.append("\tfloat *scratch = nullptr;")
    if hazard == "memcpy":
        t.append("\tfloat host_sum = 0.0f;")
    if ret_err:
        t.append("\tcudaError_t err = cudaStreamBeginCapture(stream, %s);" % mode)
        t.append("\tif (err != cudaSuccess)")
        t.append("\t\treturn err;")
    else:
        t.append(f"\t{macro}(cudaStreamBeginCapture(stream, {mode}));")
    t.append("\tlaunch_step(b, stream);")
    if lib == "cublas":
        t.append("\tconst float alpha = 1.0f, beta = 0.0f;")
        t.append("\tcublasSgemm(handle, CUBLAS_OP_N, CUBLAS_OP_N, 1024, b.n / 1024, 1024, &alpha, b.x, 1024,")
        t.append("\t\t    b.y, 1024, &beta, b.y, 1024);")
    if lib == "nccl":
        t.append("\tncclAllReduce(b.y, b.y, b.n, ncclFloat, ncclSum, comm, stream);")
    if lib == "curand":
        t.append("\tcurandGenerateNormal(gen, b.x, b.n, 0.0f, 0.02f);")
    if lib == "fork":
        t.append(f"\t{macro}(cudaEventRecord(fork, stream));")
        t.append(f"\t{macro}(cudaStreamWaitEvent(side, fork, 0));")
        t.append(f"\t{macro}(cudaMemsetAsync(b.y, 0, sizeof(float) * b.n, side));")
        t.append(f"\t{macro}(cudaEventRecord(join, side));")
        t.append(f"\t{macro}(cudaStreamWaitEvent(stream, join, 0));")
    call = call_launch(second[1], second[0], "(b.n + kBlock - 1) / kBlock", "kBlock",
                       None if hazard == "legacy" else "stream", bufs)
    t.append(f"\t{call}" + ("  // hazard" if hazard == "legacy" else ""))
    hz = {
        "sync": "\tcudaDeviceSynchronize();  // hazard",
        "stream_sync": "\tcudaStreamSynchronize(stream);  // hazard",
        "query": "\tif (cudaStreamQuery(stream) == cudaErrorNotReady)  // hazard\n\t\tstd::fprintf(stderr, \"step still running\\n\");",
        "malloc": "\tcudaMalloc(&scratch, sizeof(float) * b.n);  // hazard\n\tcudaFree(scratch);",
        "memcpy": "\tcudaMemcpy(&host_sum, b.sum, sizeof(float), cudaMemcpyDeviceToHost);  // hazard",
        "open": "\tif (b.n == 0)\n\t\treturn%s;  // hazard" % (" cudaErrorInvalidValue" if ret_err else ""),
        "host_work": "\tstd::fprintf(stderr, \"captured step for n=%d\\n\", b.n);  // hazard",
    }
    if hazard in hz:
        t.extend(hz[hazard].split("\n"))
    if ret_err:
        t.append("\treturn cudaStreamEndCapture(stream, graph);")
    else:
        t.append(f"\t{macro}(cudaStreamEndCapture(stream, graph));")
    t.append("}")
    t.append("")

    # the replay
    t.append("static int run(int n)")
    t.append("{")
    t.append("\tBuffers b;")
    t.append("\talloc_buffers(b, n);")
    t.append("\tcudaStream_t stream;")
    t.append(f"\t{macro}(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));")
    args = "b, stream, &graph"
    if lib == "cublas":
        t.append("\tcublasHandle_t handle;")
        t.append("\tcublasCreate(&handle);")
        t.append("\tcublasSetStream(handle, stream);")
        args += ", handle"
    if lib == "nccl":
        t.append("\tncclComm_t comm;")
        t.append("\tint dev = 0;")
        t.append("\tncclCommInitAll(&comm, 1, &dev);")
        args += ", comm"
    if lib == "curand":
        t.append("\tcurandGenerator_t gen;")
        t.append("\tcurandCreateGenerator(&gen, CURAND_RNG_PSEUDO_PHILOX4_32_10);")
        t.append("\tcurandSetPseudoRandomGeneratorSeed(gen, 1234ULL);")
        t.append("\tcurandSetStream(gen, stream);")
        args += ", gen"
    if lib == "fork":
        t.append("\tcudaStream_t side;")
        t.append("\tcudaEvent_t fork, join;")
        t.append(f"\t{macro}(cudaStreamCreateWithFlags(&side, cudaStreamNonBlocking));")
        t.append(f"\t{macro}(cudaEventCreateWithFlags(&fork, cudaEventDisableTiming));")
        t.append(f"\t{macro}(cudaEventCreateWithFlags(&join, cudaEventDisableTiming));")
        args += ", side, fork, join"
    t.append("\tcudaGraph_t graph;")
    t.append("\tcudaGraphExec_t exec;")
    if ret_err:
        t.append(f"\t{macro}(capture_step({args}));")
    else:
        t.append(f"\tcapture_step({args});")
    if hazard == "inst_loop":
        t.append("\tfor (int it = 0; it < kReplays; ++it) {")
        t.append(f"\t\t{macro}(cudaGraphInstantiate(&exec, graph, 0));  // hazard")
        t.append(f"\t\t{macro}(cudaGraphLaunch(exec, stream));")
        t.append("\t}")
    else:
        t.append(f"\t{macro}(cudaGraphInstantiate(&exec, graph, 0));")
        t.append("\tfor (int it = 0; it < kReplays; ++it)")
        t.append(f"\t\t{macro}(cudaGraphLaunch(exec, stream));")
    t.append(f"\t{macro}(cudaStreamSynchronize(stream));")
    t.append("\tcudaGraphExecDestroy(exec);")
    t.append("\tcudaGraphDestroy(graph);")
    if lib == "cublas":
        t.append("\tcublasDestroy(handle);")
    if lib == "nccl":
        t.append("\tncclCommDestroy(comm);")
    if lib == "curand":
        t.append("\tcurandDestroyGenerator(gen);")
    if lib == "fork":
        t.append("\tcudaEventDestroy(fork);")
        t.append("\tcudaEventDestroy(join);")
        t.append("\tcudaStreamDestroy(side);")
    t.append("\tcudaStreamDestroy(stream);")
    t.append("\tfree_buffers(b);")
    t.append("\treturn 0;")
    t.append("}")
    t.append("")
    return t


# ---------------------------------------------------------------------------------------
# .cpp files: host-only C++ (no launches, so parsed as C++)
# ---------------------------------------------------------------------------------------


def gen_cpp(r, target, hazard):
    mod = r.choice(MODULES)
    cls = "".join(w.capitalize() for w in mod.split("_")) + "GraphRunner"
    use_cublas = r.random() < 0.5
    out = [f"// {cls}: caches one CUDA graph per batch size for the {mod} step.",
           "// SPDX-License-Identifier: Apache-2.0",
           "#include <cuda_runtime.h>"]
    if use_cublas:
        out.append("#include <cublas_v2.h>")
    out += ["#include <cstdio>", "#include <cstdlib>", "#include <stdexcept>", "#include <string>",
            "#include <unordered_map>", "#include <vector>", ""]
    out += [
        "#define THROW_ON_ERROR(expr)                                                     \\",
        "\tdo {                                                                     \\",
        "\t\tcudaError_t e_ = (expr);                                               \\",
        "\t\tif (e_ != cudaSuccess)                                                 \\",
        "\t\t\tthrow std::runtime_error(std::string(#expr) + \": \" + cudaGetErrorString(e_)); \\",
        "\t} while (0)",
        "",
        "// Kernels are compiled in a .cu next to this file; only their addresses are needed here.",
        'extern "C" void fused_step_kernel(const float *, float *, int);',
        'extern "C" void scale_kernel(float *, float, int);',
        "",
    ]
    body = []
    body += [
        f"class {cls} {{",
        "public:",
        f"\texplicit {cls}(int max_batch, int hidden) : max_batch_(max_batch), hidden_(hidden)",
        "\t{",
        "\t\tTHROW_ON_ERROR(cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking));",
        "\t\tTHROW_ON_ERROR(cudaMalloc(&in_, sizeof(float) * max_batch * hidden));",
        "\t\tTHROW_ON_ERROR(cudaMalloc(&out_, sizeof(float) * max_batch * hidden));",
    ]
    if use_cublas:
        body += ["\t\tcublasCreate(&handle_);", "\t\tcublasSetStream(handle_, stream_);"]
    body += [
        "\t}",
        "",
        f"\t~{cls}()",
        "\t{",
        "\t\tfor (auto &kv : graphs_)",
        "\t\t\tcudaGraphExecDestroy(kv.second);",
        "\t\tcudaFree(in_);",
        "\t\tcudaFree(out_);",
    ]
    if use_cublas:
        body.append("\t\tcublasDestroy(handle_);")
    body += [
        "\t\tcudaStreamDestroy(stream_);",
        "\t}",
        "",
        "\t// Replays the graph for this batch size, capturing it the first time.",
        "\tvoid run(int batch)",
        "\t{",
        "\t\tauto it = graphs_.find(batch);",
        "\t\tif (it == graphs_.end())",
        "\t\t\tit = graphs_.emplace(batch, capture(batch)).first;",
        "\t\tTHROW_ON_ERROR(cudaGraphLaunch(it->second, stream_));",
        "\t}",
        "",
        "\tvoid wait() { THROW_ON_ERROR(cudaStreamSynchronize(stream_)); }",
        "",
        "private:",
        "\tcudaGraphExec_t capture(int batch)",
        "\t{",
        "\t\tint n = batch * hidden_;",
        "\t\tvoid *args[] = {&in_, &out_, &n};",
        "\t\tdim3 grid((n + 255) / 256), block(256);",
        "\t\tcudaGraph_t graph;",
        "\t\tcudaGraphExec_t exec;",
    ]
    if hazard == "malloc":
        body.append("\t\tfloat *tmp = nullptr;")
    if hazard == "memcpy":
        body.append("\t\tstd::vector<float> probe(n);")
    body += [
        "\t\tTHROW_ON_ERROR(cudaStreamBeginCapture(stream_, cudaStreamCaptureModeThreadLocal));",
        "\t\tTHROW_ON_ERROR(cudaLaunchKernel((const void *)fused_step_kernel, grid, block, args, 0, stream_));",
    ]
    if use_cublas:
        body += ["\t\tconst float alpha = 1.0f, beta = 0.0f;",
                 "\t\tcublasSgemm(handle_, CUBLAS_OP_N, CUBLAS_OP_N, hidden_, batch, hidden_, &alpha, in_,",
                 "\t\t\t    hidden_, out_, hidden_, &beta, out_, hidden_);"]
    hz = {
        "sync": "\t\tTHROW_ON_ERROR(cudaDeviceSynchronize());  // hazard",
        "query": "\t\tif (cudaStreamQuery(stream_) != cudaSuccess)  // hazard\n\t\t\tstd::fprintf(stderr, \"busy\\n\");",
        "malloc": "\t\tTHROW_ON_ERROR(cudaMalloc(&tmp, sizeof(float) * n));  // hazard",
        "memcpy": "\t\tTHROW_ON_ERROR(cudaMemcpy(probe.data(), out_, sizeof(float) * n, cudaMemcpyDeviceToHost));  // hazard",
        "host_work": "\t\tstd::fprintf(stderr, \"capturing batch %d\\n\", batch);  // hazard",
    }
    if hazard in hz:
        body.extend(hz[hazard].split("\n"))
    body += [
        "\t\tTHROW_ON_ERROR(cudaStreamEndCapture(stream_, &graph));",
        "\t\tTHROW_ON_ERROR(cudaGraphInstantiate(&exec, graph, 0));",
        "\t\tcudaGraphDestroy(graph);",
        "\t\treturn exec;",
        "\t}",
        "",
        "\tint max_batch_, hidden_;",
        "\tcudaStream_t stream_ = nullptr;",
        "\tfloat *in_ = nullptr, *out_ = nullptr;",
    ]
    if use_cublas:
        body.append("\tcublasHandle_t handle_ = nullptr;")
    body += ["\tstd::unordered_map<int, cudaGraphExec_t> graphs_;", "};", ""]

    if hazard == "inst_loop":
        # after a weight reload: re-instantiates every cached graph instead of updating it
        body[body.index("private:"):body.index("private:")] = [
            "\tvoid refresh(cudaGraph_t g)", "\t{", "\t\tfor (auto &kv : graphs_) {",
            "\t\t\tcudaGraphExecDestroy(kv.second);",
            "\t\t\tTHROW_ON_ERROR(cudaGraphInstantiate(&kv.second, g, 0));  // hazard",
            "\t\t}", "\t}", ""]
    tail = [f"int bench_{mod}(int steps)", "{",
            f"\t{cls} runner(64, 4096);",
            "\tfor (int s = 0; s < steps; ++s)", "\t\trunner.run(1 + s % 64);",
            "\trunner.wait();", "\treturn 0;", "}"]

    extra = []
    k = 0
    while len(out) + len(body) + len(extra) + len(tail) < target:
        extra += cpp_helper(r, k, mod)
        k += 1
    return "\n".join(out + extra + body + tail) + "\n"


def cpp_helper(r, k, mod):
    kind = r.choice(["shape", "env", "stats", "pool"])
    if kind == "shape":
        return [f"// Batch sizes the {mod} runner pre-captures: powers of two up to max.",
                f"static std::vector<int> capture_sizes_{k}(int max_batch)", "{",
                "\tstd::vector<int> v;", "\tfor (int b = 1; b <= max_batch; b *= 2)",
                "\t\tv.push_back(b);", "\tif (v.empty() || v.back() != max_batch)",
                "\t\tv.push_back(max_batch);", "\treturn v;", "}", ""]
    if kind == "env":
        return [f"static int env_int_{k}(const char *name, int dflt)", "{",
                "\tconst char *s = std::getenv(name);", "\tif (!s || !*s)", "\t\treturn dflt;",
                "\ttry {", "\t\treturn std::stoi(s);", "\t} catch (const std::exception &) {",
                "\t\treturn dflt;", "\t}", "}", ""]
    if kind == "stats":
        return [f"struct Stats{k} {{", "\tdouble sum = 0, sum2 = 0;", "\tlong count = 0;",
                "\tvoid add(double x)", "\t{", "\t\tsum += x;", "\t\tsum2 += x * x;", "\t\t++count;",
                "\t}", "\tdouble mean() const { return count ? sum / count : 0.0; }",
                "\tdouble var() const { return count ? sum2 / count - mean() * mean() : 0.0; }",
                "};", ""]
    return [f"// Pinned staging buffers, allocated once (pinned allocation is never captured).",
            f"class StagingPool{k} {{", "public:", "\tfloat *get(size_t n)", "\t{",
            "\t\tif (n > cap_) {", "\t\t\tif (buf_)", "\t\t\t\tcudaFreeHost(buf_);",
            "\t\t\tTHROW_ON_ERROR(cudaMallocHost(&buf_, n * sizeof(float)));", "\t\t\tcap_ = n;",
            "\t\t}", "\t\treturn buf_;", "\t}",
            f"\t~StagingPool{k}() {{ if (buf_) cudaFreeHost(buf_); }}", "", "private:",
            "\tfloat *buf_ = nullptr;", "\tsize_t cap_ = 0;", "};", ""]


# ---------------------------------------------------------------------------------------
# .c files
# ---------------------------------------------------------------------------------------


def gen_c(r, target, hazard):
    style = r.choice(["driver", "driver", "runtime", "plain"]) if hazard is None else \
        r.choice(["driver", "runtime"])
    mod = r.choice(MODULES)
    out = [f"/* {mod}: {'driver-API graph capture of a cubin step' if style == 'driver' else 'runtime API from C' if style == 'runtime' else 'option parsing and logging for the launcher'} */",
           "/* SPDX-License-Identifier: Apache-2.0 */"]
    if style == "driver":
        out.append("#include <cuda.h>")
    elif style == "runtime":
        out.append("#include <cuda_runtime_api.h>")
    out += ["#include <stdio.h>", "#include <stdlib.h>", "#include <string.h>", ""]
    if style == "driver":
        out += ["#define DRV_CHECK(x) do { CUresult r_ = (x); if (r_ != CUDA_SUCCESS) { \\",
                "\tconst char *s_ = NULL; cuGetErrorString(r_, &s_); \\",
                "\tfprintf(stderr, \"%s:%d: %s\\n\", __FILE__, __LINE__, s_ ? s_ : \"?\"); exit(1); } } while (0)",
                ""]
    if style == "runtime":
        out += ["#define RT_CHECK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { \\",
                "\tfprintf(stderr, \"%s:%d: %s\\n\", __FILE__, __LINE__, cudaGetErrorString(e_)); exit(1); } } while (0)",
                ""]
    core = c_core(r, style, mod, hazard)
    extra = []
    k = 0
    while len(out) + len(extra) + len(core) < target:
        extra += c_helper(r, k, mod)
        k += 1
    return "\n".join(out + extra + core) + "\n"


def c_helper(r, k, mod):
    kind = r.choice(["parse", "log", "crc", "list"])
    if kind == "parse":
        return [f"static long parse_size_{k}(const char *s, long dflt)", "{",
                "\tchar *end = NULL;", "\tlong v;", "\tif (!s)", "\t\treturn dflt;",
                "\tv = strtol(s, &end, 10);", "\tif (end == s)", "\t\treturn dflt;",
                "\tswitch (*end) {", "\tcase 'k': case 'K': v <<= 10; break;",
                "\tcase 'm': case 'M': v <<= 20; break;", "\tcase 'g': case 'G': v <<= 30; break;",
                "\tdefault: break;", "\t}", "\treturn v;", "}", ""]
    if kind == "log":
        return [f"static int log_level_{k} = 1;", "",
                f"static void log_msg_{k}(int level, const char *what, long value)", "{",
                f"\tif (level > log_level_{k})", "\t\treturn;",
                f"\tfprintf(stderr, \"[{mod}] %s = %ld\\n\", what, value);", "}", ""]
    if kind == "crc":
        return [f"static unsigned crc32_{k}(const unsigned char *p, size_t n)", "{",
                "\tunsigned c = 0xffffffffu;", "\tsize_t i;", "\tint b;", "\tfor (i = 0; i < n; i++) {",
                "\t\tc ^= p[i];", "\t\tfor (b = 0; b < 8; b++)",
                "\t\t\tc = (c >> 1) ^ (0xedb88320u & (0u - (c & 1u)));", "\t}", "\treturn ~c;", "}", ""]
    return [f"struct node_{k} {{", "\tstruct node_" + str(k) + " *next;", "\tchar name[64];",
            "\tsize_t bytes;", "};", "",
            f"static struct node_{k} *push_{k}(struct node_{k} *head, const char *name, size_t bytes)",
            "{", f"\tstruct node_{k} *n = calloc(1, sizeof(*n));", "\tif (!n)", "\t\treturn head;",
            "\tstrncpy(n->name, name, sizeof(n->name) - 1);", "\tn->bytes = bytes;",
            "\tn->next = head;", "\treturn n;", "}", ""]


def c_core(r, style, mod, hazard):
    if style == "plain":
        return ["int main(int argc, char **argv)", "{", "\tint i;",
                "\tfor (i = 1; i < argc; i++)", f"\t\tprintf(\"{mod}: arg %d = %s\\n\", i, argv[i]);",
                "\treturn 0;", "}"]
    if style == "driver":
        t = ["/* Loads the step's cubin, captures one launch per layer, replays it. */",
             "int run_graph(const char *cubin, int layers, size_t n)", "{",
             "\tCUdevice dev;", "\tCUcontext ctx;", "\tCUmodule mod;", "\tCUfunction fn;",
             "\tCUstream s;", "\tCUgraph g;", "\tCUgraphExec ge;", "\tCUdeviceptr buf;",
             "\tint l, it;", "\tvoid *args[2];"]
        if hazard == "memcpy":
            t.append("\tfloat probe = 0.0f;")
        t += ["\tDRV_CHECK(cuInit(0));", "\tDRV_CHECK(cuDeviceGet(&dev, 0));",
              "\tDRV_CHECK(cuDevicePrimaryCtxRetain(&ctx, dev));", "\tDRV_CHECK(cuCtxSetCurrent(ctx));",
              "\tDRV_CHECK(cuModuleLoad(&mod, cubin));",
              "\tDRV_CHECK(cuModuleGetFunction(&fn, mod, \"step_kernel\"));",
              "\tDRV_CHECK(cuStreamCreate(&s, CU_STREAM_NON_BLOCKING));",
              "\tDRV_CHECK(cuMemAlloc(&buf, n * sizeof(float)));", "\targs[0] = &buf;", "\targs[1] = &n;",
              "\tDRV_CHECK(cuStreamBeginCapture(s, CU_STREAM_CAPTURE_MODE_GLOBAL));",
              "\tfor (l = 0; l < layers; l++)",
              "\t\tDRV_CHECK(cuLaunchKernel(fn, (unsigned)((n + 255) / 256), 1, 1, 256, 1, 1, 0, s, args, NULL));"]
        if hazard == "sync":
            t.append("\tcuCtxSynchronize(); /* hazard */")
        if hazard == "memcpy":
            t.append("\tcuMemcpyDtoH(&probe, buf, sizeof(probe)); /* hazard */")
        if hazard == "open":
            t += ["\tif (layers > 64)", "\t\treturn -1; /* hazard */"]
        t += ["\tDRV_CHECK(cuStreamEndCapture(s, &g));", "\tDRV_CHECK(cuGraphInstantiate(&ge, g, 0));",
              "\tfor (it = 0; it < 10; it++)", "\t\tDRV_CHECK(cuGraphLaunch(ge, s));",
              "\tDRV_CHECK(cuStreamSynchronize(s));", "\tcuGraphExecDestroy(ge);", "\tcuGraphDestroy(g);",
              "\tcuMemFree(buf);", "\tcuStreamDestroy(s);", "\tcuModuleUnload(mod);",
              "\tcuDevicePrimaryCtxRelease(dev);", "\treturn 0;", "}"]
        return t
    t = ["/* Captures a memset + memcpy chain that a C launcher replays between steps. */",
         "int reset_buffers(float *dev_a, float *dev_b, size_t n, cudaStream_t s)", "{",
         "\tcudaGraph_t g;", "\tcudaGraphExec_t ge;"]
    if hazard == "memcpy":
        t.append("\tfloat first = 0.0f;")
    t += ["\tRT_CHECK(cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal));",
          "\tRT_CHECK(cudaMemsetAsync(dev_a, 0, n * sizeof(float), s));",
          "\tRT_CHECK(cudaMemcpyAsync(dev_b, dev_a, n * sizeof(float), cudaMemcpyDeviceToDevice, s));"]
    if hazard == "sync":
        t.append("\tcudaDeviceSynchronize(); /* hazard */")
    if hazard == "memcpy":
        t.append("\tcudaMemcpy(&first, dev_b, sizeof(first), cudaMemcpyDeviceToHost); /* hazard */")
    if hazard == "open":
        t += ["\tif (n == 0)", "\t\treturn 1; /* hazard */"]
    t += ["\tRT_CHECK(cudaStreamEndCapture(s, &g));", "\tRT_CHECK(cudaGraphInstantiate(&ge, g, 0));",
          "\tRT_CHECK(cudaGraphLaunch(ge, s));", "\tRT_CHECK(cudaStreamSynchronize(s));",
          "\tcudaGraphExecDestroy(ge);", "\tcudaGraphDestroy(g);", "\treturn 0;", "}"]
    return t


# ---------------------------------------------------------------------------------------


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("outdir")
    ap.add_argument("-n", type=int, default=200)
    ap.add_argument("--seed", type=int, default=20250)
    a = ap.parse_args()
    r = random.Random(a.seed)
    os.makedirs(a.outdir, exist_ok=True)
    n_cu = round(a.n * 0.6)
    n_cpp = round(a.n * 0.2)
    kinds = ["cu"] * n_cu + ["cpp"] * n_cpp + ["c"] * (a.n - n_cu - n_cpp)
    r.shuffle(kinds)
    for i, kind in enumerate(kinds):
        target = int(50 * (16 ** r.random()))     # 50-800 lines, more small files than large
        bad = r.random() < 0.35
        if kind == "cu":
            hazard = r.choice(CU_HAZARDS) if bad else None
            text = gen_cu(r, target, hazard)
        elif kind == "cpp":
            hazard = r.choice(CPP_HAZARDS) if bad else None
            text = gen_cpp(r, target, hazard)
        else:
            hazard = r.choice(C_HAZARDS) if bad else None
            text = gen_c(r, target, hazard)
        label = f"bad_{hazard}" if hazard else "ok"
        path = os.path.join(a.outdir, f"{i:04d}_{kind}_{label}.{kind}")
        with open(path, "w") as f:
            f.write(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())

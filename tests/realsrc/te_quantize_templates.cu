// After TransformerEngine transformer_engine/common/cast (quantize_fp8.cuh, the dbias
// reduction) and its JAX extension's capture of a quantize call: templated kernels and
// launchers that call one another with the template's own arguments (quantize_1D<IS_ACT,
// ParamOP, OP>, reduce_dbias<IType>), a type switch macro, a launcher picked through a traits
// template (Launcher<IType>::launch), an explicit specialization with a body of its own, and a
// capture around the entry point. Hazards written in (expect:), clean edits beside them.
#include <cstdio>
#include <stdexcept>
#include <string>
#include <cuda_runtime.h>

#define NVTE_CHECK_CUDA(expr)                                                          \
	do {                                                                           \
		cudaError_t status_ = (expr);                                          \
		if (status_ != cudaSuccess)                                            \
			throw std::runtime_error(std::string("CUDA Error: ") + cudaGetErrorString(status_)); \
	} while (false)

namespace transformer_engine {

enum class DType { kFloat32 = 0, kFloat16 = 1, kBFloat16 = 2 };

struct Tensor {
	void *dptr;
	size_t numel;
	DType dtype;
};

struct Empty {};

__device__ inline float identity(float x, const Empty &) { return x; }

#define TYPE_SWITCH_INPUT(dtype, type, ...)          \
	switch (dtype) {                             \
	case DType::kFloat32: {                      \
		using type = float;                  \
		{ __VA_ARGS__ }                      \
	} break;                                     \
	default: {                                   \
		using type = double;                 \
		{ __VA_ARGS__ }                      \
	} break;                                     \
	}

template <bool IS_ACT, typename ParamOP, float (*OP)(float, const ParamOP &), typename IType>
__global__ void cast_kernel(const IType *in, float *out, float *amax, size_t n)
{
	size_t i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n)
		out[i] = IS_ACT ? OP((float)in[i], ParamOP{}) : (float)in[i];
}

namespace common {

template <typename IType>
__global__ void reduce_dbias_kernel(const float *workspace, IType *dbias, size_t rows, size_t cols)
{
	size_t c = blockIdx.x * blockDim.x + threadIdx.x;
	if (c < cols)
		dbias[c] = (IType)workspace[c];
}

// the reduction checks its partial sums on the host: a blocking copy
template <typename IType>
void reduce_dbias(const float *workspace, Tensor *dbias, size_t rows, size_t cols, cudaStream_t stream)
{
	reduce_dbias_kernel<IType><<<(cols + 255) / 256, 256, 0, stream>>>(workspace, (IType *)dbias->dptr, rows, cols);
	float first = 0.0f;
	NVTE_CHECK_CUDA(cudaMemcpy(&first, workspace, sizeof(first), cudaMemcpyDeviceToHost));  // expect: error CG303
	if (first != first)
		fprintf(stderr, "dbias: NaN in the workspace\n");  // expect: warning CG408
}

}  // namespace common

template <typename IType>
struct Launcher {
	static void launch(const Tensor &in, Tensor *out, cudaStream_t stream)
	{
		cast_kernel<false, Empty, identity, IType><<<(in.numel + 255) / 256, 256, 0, stream>>>(
			(const IType *)in.dptr, (float *)out->dptr, nullptr, in.numel);
		NVTE_CHECK_CUDA(cudaGetLastError());
		NVTE_CHECK_CUDA(cudaStreamSynchronize(stream));  // expect: error CG301
	}
};

// clean edit: the fp32 launcher, specialised, does not sync (the switch's other case reaches
// the primary's sync above)
template <>
struct Launcher<float> {
	static void launch(const Tensor &in, Tensor *out, cudaStream_t stream)
	{
		cast_kernel<false, Empty, identity, float><<<(in.numel + 255) / 256, 256, 0, stream>>>(
			(const float *)in.dptr, (float *)out->dptr, nullptr, in.numel);
		NVTE_CHECK_CUDA(cudaGetLastError());
	}
};

template <bool IS_ACT, typename ParamOP, float (*OP)(float, const ParamOP &)>
void quantize_1D(const Tensor &input, Tensor *output, cudaStream_t stream)
{
	TYPE_SWITCH_INPUT(input.dtype, IType,
		Launcher<IType>::launch(input, output, stream);
	)
}

template <bool IS_DBIAS, bool IS_ACT, typename ParamOP, float (*OP)(float, const ParamOP &)>
void quantize(const Tensor &input, Tensor *output, Tensor *dbias, Tensor *workspace, cudaStream_t stream)
{
	quantize_1D<IS_ACT, ParamOP, OP>(input, output, stream);
	if (IS_DBIAS)
		TYPE_SWITCH_INPUT(input.dtype, IType,
			common::reduce_dbias<IType>((const float *)workspace->dptr, dbias, 1, input.numel, stream);
		)
}

// a helper specialised for fp32 with a host read; the capture calls the primary only
template <typename T>
void check_scale(const T *scale, cudaStream_t stream)
{
	(void)scale;
	(void)stream;
}

template <>
void check_scale<float>(const float *scale, cudaStream_t stream)
{
	float host = 0.0f;
	NVTE_CHECK_CUDA(cudaMemcpyAsync(&host, scale, sizeof(host), cudaMemcpyDeviceToHost, stream));
	NVTE_CHECK_CUDA(cudaStreamSynchronize(stream));
	if (host <= 0.0f)
		throw std::runtime_error("scale must be positive");
}

}  // namespace transformer_engine

using namespace transformer_engine;

void nvte_quantize_dbias(const Tensor &input, Tensor *output, Tensor *dbias, Tensor *workspace, cudaStream_t stream)
{
	quantize<true, false, Empty, identity>(input, output, dbias, workspace, stream);
}

void nvte_quantize(const Tensor &input, Tensor *output, cudaStream_t stream)
{
	quantize_1D<false, Empty, identity>(input, output, stream);
}

// the JAX extension captures the quantize call and replays the graph
void CapturedQuantize(const Tensor &input, Tensor *output, Tensor *dbias, Tensor *workspace, const double *scale,
		      cudaStream_t stream, cudaGraphExec_t *exec)
{
	cudaGraph_t graph{};
	NVTE_CHECK_CUDA(cudaStreamBeginCapture(stream, cudaStreamCaptureModeThreadLocal));
	check_scale(scale, stream);
	nvte_quantize_dbias(input, output, dbias, workspace, stream);
	NVTE_CHECK_CUDA(cudaStreamEndCapture(stream, &graph));
	NVTE_CHECK_CUDA(cudaGraphInstantiate(exec, graph, 0));
	NVTE_CHECK_CUDA(cudaGraphDestroy(graph));
	// clean edit: the fp32 check runs eagerly, after the capture
	check_scale((const float *)workspace->dptr, stream);
	NVTE_CHECK_CUDA(cudaStreamSynchronize(stream));
}

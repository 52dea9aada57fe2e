// After TransformerEngine transformer_engine/jax/csrc/extensions (ffi.h's wrapInStreamCapture
// and the FFI handlers that use it): the captured work is handed over as a std::function, a
// lambda, or a handler picked from a table of function pointers.
#include <functional>
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
namespace jax {

enum class Error_Type { kOk = 0, kInternal = 1 };

using StreamFn = std::function<Error_Type(cudaStream_t, void *, size_t)>;

Error_Type wrapInStreamCapture(const StreamFn &func, cudaStream_t stream, void *buf, size_t bytes)
{
	cudaGraph_t graph{};
	NVTE_CHECK_CUDA(cudaStreamBeginCapture(stream, cudaStreamCaptureModeRelaxed));
	Error_Type error = func(stream, buf, bytes);
	NVTE_CHECK_CUDA(cudaStreamEndCapture(stream, &graph));
	NVTE_CHECK_CUDA(cudaGraphDestroy(graph));
	return error;
}

static Error_Type ZeroWorkspaceFFI(cudaStream_t stream, void *buf, size_t bytes)
{
	NVTE_CHECK_CUDA(cudaMemsetAsync(buf, 0, bytes, stream));
	return Error_Type::kOk;
}

static Error_Type CopyAmaxFFI(cudaStream_t stream, void *buf, size_t bytes)
{
	float amax = 0.0f;
	NVTE_CHECK_CUDA(cudaMemcpyAsync(&amax, buf, sizeof(float), cudaMemcpyDeviceToHost, stream));
	NVTE_CHECK_CUDA(cudaStreamSynchronize(stream));  // expect: error CG301
	return amax > 0.0f ? Error_Type::kOk : Error_Type::kInternal;
}

static Error_Type GrowWorkspaceFFI(cudaStream_t stream, void *buf, size_t bytes)
{
	void *bigger = nullptr;
	NVTE_CHECK_CUDA(cudaMalloc(&bigger, 2 * bytes));  // expect: error CG304
	NVTE_CHECK_CUDA(cudaMemcpyAsync(bigger, buf, bytes, cudaMemcpyDeviceToDevice, stream));
	return Error_Type::kOk;
}

typedef Error_Type (*HandlerFn)(cudaStream_t, void *, size_t);
static const HandlerFn kCleanHandlers[] = {ZeroWorkspaceFFI};

Error_Type CaptureAll(cudaStream_t stream, void *buf, size_t bytes)
{
	Error_Type e = wrapInStreamCapture(ZeroWorkspaceFFI, stream, buf, bytes);
	e = wrapInStreamCapture(StreamFn(CopyAmaxFFI), stream, buf, bytes);
	e = wrapInStreamCapture(
		[](cudaStream_t s, void *b, size_t n) {
			NVTE_CHECK_CUDA(cudaMemsetAsync(b, 0xff, n, s));
			NVTE_CHECK_CUDA(cudaDeviceSynchronize());  // expect: error CG301
			return Error_Type::kOk;
		},
		stream, buf, bytes);
	HandlerFn grow = GrowWorkspaceFFI;
	cudaGraph_t graph{};
	NVTE_CHECK_CUDA(cudaStreamBeginCapture(stream, cudaStreamCaptureModeGlobal));
	grow(stream, buf, bytes);
	NVTE_CHECK_CUDA(cudaStreamEndCapture(stream, &graph));
	NVTE_CHECK_CUDA(cudaGraphDestroy(graph));
	return e;
}

}  // namespace jax
}  // namespace transformer_engine

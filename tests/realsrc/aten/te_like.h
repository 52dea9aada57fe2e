// Written for cglint's tests, in the shape of a PyTorch extension's shared header such as
// TransformerEngine's pytorch/csrc/extensions.h: a C API that takes the stream last, a check
// macro that throws, and a GIL-release wrapper around each launch. Declarations only.
#pragma once

#include <ATen/cuda/CUDAContext.h>
#include <ATen/cuda/CUDAGraph.h>
#include <ATen/cuda/CUDAGraphsUtils.cuh>
#include <c10/cuda/CUDAGuard.h>
#include <torch/extension.h>

#include <stdexcept>
#include <string>
#include <tuple>
#include <vector>

#define TE_CHECK(cond, ...)                                                  \
  do {                                                                       \
    if (!(cond)) throw std::runtime_error(std::string("check failed: ") + #cond); \
  } while (0)

#define TE_SCOPED_GIL_RELEASE(code) \
  do {                              \
    code;                           \
  } while (0)

extern "C" {
typedef void *TETensor;
void te_multi_tensor_l2norm(int chunk_size, TETensor noop, TETensor *lists, size_t num_lists,
                            size_t num_tensors, TETensor output, TETensor ret, bool per_tensor,
                            cudaStream_t stream);
void te_multi_tensor_scale(int chunk_size, TETensor noop, TETensor *lists, size_t num_lists,
                           size_t num_tensors, float scale, cudaStream_t stream);
void te_multi_padding(size_t n, TETensor *in, TETensor *out, const int *rows, cudaStream_t stream);
void te_fused_adam(TETensor *lists, size_t num_tensors, float lr, float beta1, float beta2,
                   float eps, int step, cudaStream_t stream);
}

namespace te_like {
TETensor make_te_tensor(const at::Tensor &t);
std::vector<TETensor> make_te_tensor_list(const std::vector<std::vector<at::Tensor>> &lists);
}  // namespace te_like

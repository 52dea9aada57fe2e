// Written for cglint's tests, in the shape of apex's csrc (syncbn.cpp + welford.cu, and the
// amp_C multi-tensor ops): kernels launched on the current stream with AT_DISPATCH-style
// templates, statistics merged across a process group, a loss scale updated on the device.
// A graphed training step captures them; the count read through a mask (pytorch #78549's
// count_all[mask]) and a host-side loss-scale check were written into the captured path.
#include <ATen/ATen.h>
#include <ATen/cuda/CUDAContext.h>
#include <ATen/cuda/CUDAGraph.h>
#include <c10/cuda/CUDAGuard.h>
#include <torch/extension.h>

template <typename T>
__global__ void welford_kernel(const T *input, float *mean, float *var, int64_t n) {
  int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x;
  if (i < n)
    atomicAdd(mean, static_cast<float>(input[i]) / n);
  (void)var;
}

__global__ void update_scale_kernel(float *scale, const float *found_inf, int *growth, int interval) {
  if (*found_inf > 0.f) {
    *scale *= 0.5f;
    *growth = 0;
  } else if (++*growth == interval) {
    *scale *= 2.f;
    *growth = 0;
  }
}

std::vector<at::Tensor> welford_mean_var(const at::Tensor input) {
  auto mean = at::zeros({input.size(1)}, input.options().dtype(at::kFloat));
  auto var = at::zeros({input.size(1)}, input.options().dtype(at::kFloat));
  auto stream = at::cuda::getCurrentCUDAStream();
  welford_kernel<float><<<(input.numel() + 255) / 256, 256, 0, stream>>>(
      input.data_ptr<float>(), mean.data_ptr<float>(), var.data_ptr<float>(), input.numel());
  return {mean, var};
}

// Merges the per-rank statistics, dropping ranks that saw no samples.
at::Tensor merge_counts(const at::Tensor &count_all, const at::Tensor &mean_all) {
  at::Tensor mask = count_all > 0;
  at::Tensor seen = at::masked_select(mean_all, mask);  // expect: error CG312
  return seen;
}

// The same without a data-dependent shape: weights of zero for the empty ranks.
at::Tensor merge_counts_fixed(const at::Tensor &count_all, const at::Tensor &mean_all) {
  return at::where(count_all > 0, mean_all, at::zeros_like(mean_all));
}

void update_scale(at::Tensor scale, at::Tensor found_inf, at::Tensor growth, int interval) {
  update_scale_kernel<<<1, 1, 0, at::cuda::getCurrentCUDAStream()>>>(
      scale.data_ptr<float>(), found_inf.data_ptr<float>(), growth.data_ptr<int>(), interval);
}

bool skipped_step(const at::Tensor &found_inf) {
  return found_inf.item<float>() > 0.f;  // expect: error CG312
}

void graphed_bn_step(at::cuda::CUDAGraph &graph, at::Tensor input, at::Tensor count_all,
                     at::Tensor scale, at::Tensor found_inf, at::Tensor growth, bool log_skips) {
  c10::cuda::CUDAStreamGuard guard(at::cuda::getStreamFromPool());
  graph.capture_begin();
  std::vector<at::Tensor> stats = welford_mean_var(input);
  at::Tensor merged = merge_counts(count_all, stats[0]);
  at::Tensor merged_fixed = merge_counts_fixed(count_all, stats[0]);
  update_scale(scale, found_inf, growth, 2000);
  for (int64_t k = 0; k < count_all.size(0); k++) {
    if (log_skips && skipped_step(found_inf))
      break;
  }
  graph.capture_end();
  (void)merged;
  (void)merged_fixed;
}

// Eager training (no capture): the host check is fine.
bool eager_step(at::Tensor scale, at::Tensor found_inf, at::Tensor growth) {
  update_scale(scale, found_inf, growth, 2000);
  return skipped_step(found_inf);
}

// Written for cglint's tests, in the shape of TransformerEngine's permutation and padding
// extensions (pytorch/csrc/extensions/permutation.cpp, padding.cpp) driven from a graphed MoE
// layer: token counts per expert, padded row lists, a workspace. The hazards are the host
// reads and allocations such code is tempted into; the clean versions beside them are what
// stays legal in a capture (the caching allocator's pool, fixed-size outputs, device copies).
#include "te_like.h"

#include <c10/cuda/CUDACachingAllocator.h>
#include <c10/cuda/CUDAFunctions.h>
#include <torch/cuda.h>

namespace te_like {

// Rows per expert read back to size the padded outputs: .cpu() synchronizes.
std::vector<int> padded_rows(const at::Tensor &tokens_per_expert, int align) {
  at::Tensor host = tokens_per_expert.cpu();  // expect: error CG312
  std::vector<int> rows;
  for (int64_t e = 0; e < host.numel(); e++)
    rows.push_back(static_cast<int>((host.data_ptr<int64_t>()[e] + align - 1) / align * align));
  return rows;
}

// Fixed-size on the device: what a graphed layer does instead.
at::Tensor padded_rows_on_device(const at::Tensor &tokens_per_expert, int align) {
  return (tokens_per_expert + (align - 1)) / align * align;
}

// The routed token indices: nonzero's output size is read back.
at::Tensor routed_tokens(const at::Tensor &routing_map, int64_t capacity, bool fixed_capacity) {
  if (fixed_capacity)
    return at::nonzero_static(routing_map, capacity);
  return at::nonzero(routing_map);  // expect: error CG312
}

at::Tensor dropped_tokens(const at::Tensor &probs, const at::Tensor &keep) {
  return probs.masked_select(keep);  // expect: error CG312
}

// A workspace taken straight from the driver inside the capture, and given back there.
void *grab_workspace(size_t bytes, bool from_pool) {
  void *ws = nullptr;
  if (from_pool)
    return c10::cuda::CUDACachingAllocator::raw_alloc(bytes);
  cudaMalloc(&ws, bytes);  // expect: error CG304
  return ws;
}

void drop_workspace(void *ws, bool from_pool) {
  if (from_pool)
    c10::cuda::CUDACachingAllocator::raw_delete(ws);
  else
    cudaFree(ws);  // expect: error CG304
}

void pad_experts(std::vector<at::Tensor> &inputs, std::vector<at::Tensor> &outputs, bool debug) {
  for (size_t i = 0; i < inputs.size(); i++) {
    std::vector<int> rows = {static_cast<int>(inputs[i].size(0))};
    TETensor in = make_te_tensor(inputs[i]), out = make_te_tensor(outputs[i]);
    te_multi_padding(1, &in, &out, rows.data(), at::cuda::getCurrentCUDAStream());
    if (debug)
      c10::cuda::stream_synchronize(at::cuda::getCurrentCUDAStream());  // expect: error CG312
  }
}

// Host copies kept for logging: pinned on the spot, which allocates host memory.
at::Tensor stats_for_logging(const at::Tensor &tokens_per_expert) {
  return tokens_per_expert.to(at::kCPU);  // expect: error CG312
}

at::Tensor pinned_staging(const at::Tensor &like) {
  return at::empty_like(like).pin_memory();  // expect: error CG305
}

void graphed_moe_dispatch(at::cuda::CUDAGraph &graph, at::Tensor routing_map, at::Tensor tokens_per_expert,
                          at::Tensor probs, at::Tensor keep, std::vector<at::Tensor> inputs,
                          std::vector<at::Tensor> outputs, int64_t capacity, bool debug, bool fixed) {
  c10::cuda::CUDAStreamGuard guard(at::cuda::getStreamFromPool());
  graph.capture_begin();
  std::vector<int> rows = padded_rows(tokens_per_expert, 16);
  at::Tensor rows_dev = padded_rows_on_device(tokens_per_expert, 16);
  at::Tensor idx = routed_tokens(routing_map, capacity, fixed);
  at::Tensor dropped = dropped_tokens(probs, keep);
  void *ws = grab_workspace(1 << 20, fixed);
  at::Tensor scratch = torch::empty({capacity}, probs.options());  // the graph's private pool
  pad_experts(inputs, outputs, debug);
  if (debug) {
    at::Tensor stats = stats_for_logging(tokens_per_expert);
    torch::cuda::synchronize();  // expect: error CG312
  }
  at::Tensor staging = pinned_staging(probs);
  drop_workspace(ws, fixed);
  graph.capture_end();
  (void)rows_dev;
  (void)scratch;
}

// After the capture ends, the same calls are legal again.
std::vector<int> after_replay(at::cuda::CUDAGraph &graph, at::Tensor tokens_per_expert) {
  graph.replay();
  torch::cuda::synchronize();
  return padded_rows(tokens_per_expert, 16);
}

}  // namespace te_like

// Written for cglint's tests, in the shape of TransformerEngine's multi-tensor extensions
// (pytorch/csrc/extensions/multi_tensor/*.cpp): each op builds its outputs with ATen, hands
// raw pointers to the C API on the current stream, and is called from Python inside
// torch.cuda.graph. Here a C++ caller captures them with at::cuda::CUDAGraph, and host reads
// were written into the captured path the way they creep into real code.
#include "te_like.h"

namespace te_like {

std::tuple<at::Tensor, at::Tensor> multi_tensor_l2norm(int chunk_size, at::Tensor noop_flag,
                                                       std::vector<std::vector<at::Tensor>> tensor_lists,
                                                       bool per_tensor) {
  auto float_options = tensor_lists[0][0].options().dtype(at::kFloat);
  auto output = at::zeros({320}, float_options);
  auto ret = at::empty({1}, output.options());
  auto lists = make_te_tensor_list(tensor_lists);
  TE_SCOPED_GIL_RELEASE(te_multi_tensor_l2norm(chunk_size, make_te_tensor(noop_flag), lists.data(),
                                               tensor_lists.size(), tensor_lists[0].size(),
                                               make_te_tensor(output), make_te_tensor(ret), per_tensor,
                                               at::cuda::getCurrentCUDAStream()));
  return std::make_tuple(ret, output);
}

// The clip coefficient read back to the host: a sync on the capturing stream.
float clip_coefficient(const at::Tensor &norm, float max_norm) {
  float total = norm.item<float>();  // expect: error CG312
  return max_norm / (total + 1e-6f);
}

// The same computed on the device: nothing leaves the GPU.
at::Tensor clip_coefficient_on_device(const at::Tensor &norm, float max_norm) {
  return at::clamp(at::full({1}, max_norm, norm.options()) / (norm + 1e-6), 0.0, 1.0);
}

void multi_tensor_scale(int chunk_size, at::Tensor noop_flag,
                        std::vector<std::vector<at::Tensor>> tensor_lists, float scale) {
  TE_CHECK(tensor_lists.size() == 2, "expected input and output lists");
  auto lists = make_te_tensor_list(tensor_lists);
  TE_SCOPED_GIL_RELEASE(te_multi_tensor_scale(chunk_size, make_te_tensor(noop_flag), lists.data(),
                                              tensor_lists.size(), tensor_lists[0].size(), scale,
                                              at::cuda::getCurrentCUDAStream()));
}

// An overflow check that reads the flag back, behind the check macro: the read is the sync.
void check_no_overflow(const at::Tensor &noop_flag) {
  TE_CHECK(noop_flag.item<int>() == 0, "overflow in the scaled gradients");  // expect: error CG312
}

// The check done only outside captures, as PyTorch's own code does.
void check_no_overflow_eager(const at::Tensor &noop_flag) {
  if (at::cuda::currentStreamCaptureStatus() == at::cuda::CaptureStatus::None)
    TE_CHECK(noop_flag.item<int>() == 0, "overflow in the scaled gradients");
}

void graphed_clip_and_scale(at::cuda::CUDAGraph &graph, at::Tensor noop_flag,
                            std::vector<std::vector<at::Tensor>> grads, float max_norm, bool eager_check) {
  c10::cuda::CUDAStreamGuard guard(at::cuda::getStreamFromPool());
  graph.capture_begin();
  auto norms = multi_tensor_l2norm(2048 * 32, noop_flag, grads, false);
  float coef = clip_coefficient(std::get<0>(norms), max_norm);
  at::Tensor coef_dev = clip_coefficient_on_device(std::get<0>(norms), max_norm);
  multi_tensor_scale(2048 * 32, noop_flag, grads, coef);
  check_no_overflow_eager(noop_flag);
  if (eager_check)
    check_no_overflow(noop_flag);
  graph.capture_end();
  (void)coef_dev;
}

// Outside any capture the same reads are fine.
float eager_norm(at::Tensor noop_flag, std::vector<std::vector<at::Tensor>> grads) {
  auto norms = multi_tensor_l2norm(2048 * 32, noop_flag, grads, false);
  check_no_overflow(noop_flag);
  return clip_coefficient(std::get<0>(norms), 1.0f);
}

}  // namespace te_like

/* cglint shim: declarations only, for static analysis; not the NVIDIA/PyTorch/NCCL headers. */
#pragma once
#include <cglint_shim_torch.h>

namespace c10 {
struct Float8_e5m2 {
  Float8_e5m2() = default;
  Float8_e5m2(float value);
  operator float() const;
  uint8_t x;
};
}  // namespace c10

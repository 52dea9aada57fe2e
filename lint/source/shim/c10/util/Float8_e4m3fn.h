/* cglint shim: declarations only, for static analysis; not the NVIDIA/PyTorch/NCCL headers. */
#pragma once
#if __has_include(<c10/macros/cmake_macros.h>)
/* a real PyTorch before 2.1 (Debian's 1.13) has its c10 and no Float8 types: these alone, and not
 * the shim's c10 beside the real one */
#include <cstdint>
#else
#include <cglint_shim_torch.h>
#endif

namespace c10 {
struct Float8_e4m3fn {
  Float8_e4m3fn() = default;
  Float8_e4m3fn(float value);
  operator float() const;
  uint8_t x;
};
}  // namespace c10

/* cglint shim: declarations only, for static analysis; not the NVIDIA/PyTorch/NCCL headers. */
#pragma once
#include <cglint_shim_torch.h>

#define C10_LIKELY(expr) (__builtin_expect(static_cast<bool>(expr), 1))
#define C10_UNLIKELY(expr) (__builtin_expect(static_cast<bool>(expr), 0))
#if defined(__CUDACC__)
#define C10_HOST_DEVICE __host__ __device__
#define C10_HOST __host__
#define C10_DEVICE __device__
#else
#define C10_HOST_DEVICE
#define C10_HOST
#define C10_DEVICE
#endif
#define C10_API
#define TORCH_API
#define C10_EXPORT
#define C10_IMPORT
#define C10_UNUSED __attribute__((__unused__))
#define C10_ALWAYS_INLINE inline __attribute__((__always_inline__))
#define C10_NOINLINE __attribute__((__noinline__))
#define C10_STRINGIZE_IMPL(x) #x
#define C10_STRINGIZE(x) C10_STRINGIZE_IMPL(x)

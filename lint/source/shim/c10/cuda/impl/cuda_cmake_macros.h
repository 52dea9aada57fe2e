/* cglint shim: declarations only, for static analysis; not the NVIDIA/PyTorch/NCCL headers. */
/* The header a CUDA build of PyTorch generates from its CMake options (c10/cuda/CUDAMacros.h
 * includes it). A CPU build such as Debian's libtorch-dev ships c10/cuda without it, so a file
 * that includes <ATen/cuda/...> against those headers stopped there (CG919); this stands in,
 * as for a build of shared libraries, the way PyTorch's wheels are built. */
#pragma once

#define C10_CUDA_BUILD_SHARED_LIBS

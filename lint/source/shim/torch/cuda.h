/* cglint shim: declarations only, for static analysis; not the NVIDIA/PyTorch/NCCL headers. */
#pragma once
#include <cglint_shim_torch.h>

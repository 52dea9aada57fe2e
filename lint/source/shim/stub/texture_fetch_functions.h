/* SPDX-License-Identifier: MIT */
/* CUDA 13 dropped this header; clang's CUDA wrapper still includes it. */

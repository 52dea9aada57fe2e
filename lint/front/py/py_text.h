/* SPDX-License-Identifier: MIT */
/*
 * py_text: what the text of a Python recipe says before it is parsed: whether it names a
 * CUDA-graph setting at all, and whether it declares its own coding. Plain text, no tree-sitter.
 */
#ifndef CGLINT_PY_TEXT_H
#define CGLINT_PY_TEXT_H

#include <stdbool.h>
#include <stddef.h>

/* Whether a key is a CUDA-graph key, by its last name (one holding cuda_graph, *rng_tracker,
 * NCCL_GRAPH_REGISTER, PYTORCH_CUDA_ALLOC_CONF): a unit without one is not judged. */
bool py_text_is_graph_key(const char *key);
/* Whether any word of buf[0..len) is such a name. */
bool py_text_mentions_graph_key(const char *buf, size_t len);
/* A PEP 263 coding declaration in the first two lines: then the text need not be UTF-8. */
bool py_text_declares_coding(const char *buf, size_t len);

#endif

/* SPDX-License-Identifier: MIT */
/* py_text: questions about a Python source's text (see py_text.h). */
#include "front/py/py_text.h"

#include <ctype.h>
#include <string.h>

bool py_text_is_graph_key(const char *key)
{
	const char *leaf = strrchr(key, '.');
	leaf = leaf ? leaf + 1 : key;
	return strstr(leaf, "cuda_graph") || strstr(leaf, "rng_tracker") || !strcmp(leaf, "NCCL_GRAPH_REGISTER") ||
	       !strcmp(leaf, "PYTORCH_CUDA_ALLOC_CONF");
}

bool py_text_mentions_graph_key(const char *buf, size_t len)
{
	char word[64];
	for (size_t i = 0; i < len;) {
		size_t n = 0;
		while (i + n < len && (isalnum((unsigned char)buf[i + n]) || buf[i + n] == '_'))
			n++;
		if (n && n < sizeof(word)) {
			memcpy(word, buf + i, n);
			word[n] = '\0';
			if (py_text_is_graph_key(word))
				return true;
		}
		i += n ? n : 1;
	}
	return false;
}

bool py_text_declares_coding(const char *buf, size_t len)
{
	size_t end = 0;
	for (int lines = 0; end < len && lines < 2; end++)
		lines += buf[end] == '\n';
	for (size_t i = 0; i + 6 < end; i++)
		if (buf[i] == '#')
			for (size_t k = i; k + 6 < end && buf[k] != '\n'; k++)
				if (!strncmp(buf + k, "coding", 6) && (buf[k + 6] == ':' || buf[k + 6] == '='))
					return true;
	return false;
}

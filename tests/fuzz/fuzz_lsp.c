/* SPDX-License-Identifier: MIT */
/*
 * A libFuzzer target over the language server (lsp): the bytes as everything a client sends,
 * read from a file in the target's temporary folder (the server reads a descriptor), through the
 * framing (Content-Length headers, resynchronising after bad ones), JSON-RPC, the lifecycle and
 * the document methods, with the documents it opens linted; replies go to /dev/null. One
 * session serves every input, as it serves one client's whole life.
 */
#include "fuzz.h"

#include "lsp/lsp.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct session *s;
	static char *path;
	static FILE *null;
	if (!s) {
		s = fuzz_session((struct target){.mcore = 190, .bridge = 60});
		if (!(null = fopen("/dev/null", "w")))
			abort();
		path = fuzz_path("client");
	}
	fuzz_write(path, data, size);
	FILE *in = fopen(path, "rb");
	if (!in)
		abort();
	lsp_serve(s, in, null);
	fclose(in);
	return 0;
}

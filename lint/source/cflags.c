/* SPDX-License-Identifier: MIT */
/* cflags: compile-command flags that matter for parsing. */
#include "source/cflags.h"

#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/mem.h"
#include "input/read.h"

/* Append to a NULL-terminated vector in 'a' (it moves when it grows). */
static void push(struct arena *a, const char ***v, size_t *n, size_t *cap, const char *arg)
{
	if (*n + 1 >= *cap) {
		*cap = *cap ? *cap * 2 : 32;
		const char **w = arena_alloc(a, *cap * sizeof(*w));
		if (*n)
			memcpy(w, *v, *n * sizeof(*w));
		*v = w;
	}
	(*v)[(*n)++] = arg;
	(*v)[*n] = NULL;
}

void cflags_add(struct arena *a, struct cflags *f, const char *arg)
{
	push(a, &f->v, &f->n, &f->cap, arg);
}

/* Flags that take a path or a value, in both spellings: "-I dir" and "-Idir". 'clang' is
 * what libclang gets; nvcc's long forms map onto it. */
static const struct {
	const char *flag, *clang;
	bool path;
} valued[] = {
	{"-D", "-D", false},          {"--define-macro", "-D", false},
	{"-U", "-U", false},          {"--undefine-macro", "-U", false},
	{"-I", "-I", true},           {"--include-path", "-I", true},
	{"-isystem", "-isystem", true}, {"--system-include", "-isystem", true},
	{"-iquote", "-iquote", true}, {"-idirafter", "-idirafter", true},
	{"-include", "-include", true}, {"--pre-include", "-include", true},
};

static const char *absolute(struct arena *a, const char *p, const char *dir)
{
	if (p[0] == '/' || !dir || !*dir)
		return p;
	return arena_printf(a, "%s/%s", dir, p);
}

static void keep(struct arena *a, struct cflags *f, const char *clang, const char *val, bool path, const char *dir)
{
	if (path) {
		cflags_add(a, f, clang);
		cflags_add(a, f, absolute(a, val, dir));
	} else {
		cflags_add(a, f, arena_printf(a, "%s%s", clang, val));
	}
	if (!strcmp(clang, "-D") && !strncmp(val, "CUDA_API_PER_THREAD_DEFAULT_STREAM", 34) &&
	    (val[34] == 0 || val[34] == '='))
		f->per_thread_stream = true;
}

/* The arguments of a response file, as a shell splits them: blanks between, quotes and
 * backslashes as written. NULL when it cannot be read, or is not a regular file within the size
 * every input is held to (input/read.h): a database naming /dev/zero or a FIFO ends neither the
 * memory nor the run. */
static const char **read_rsp(struct arena *a, const char *path, size_t *n)
{
	int fd = open(path, O_RDONLY | O_NOCTTY | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0)
		return NULL;
	struct stat st;
	FILE *f = NULL;
	if (!fstat(fd, &st) && S_ISREG(st.st_mode) && (unsigned long long)st.st_size <= READ_MAX_BYTES)
		f = fdopen(fd, "rb");
	if (!f) {
		close(fd);
		return NULL;
	}
	struct sbuf text, tok;
	sbuf_init(&text);
	sbuf_init(&tok);
	char chunk[4096];
	size_t got;
	while (text.len < READ_MAX_BYTES && (got = fread(chunk, 1, sizeof(chunk), f)) > 0)
		sbuf_addn(&text, chunk, got);   /* a file that grows while read is cut at the limit */
	fclose(f);
	struct cflags v = {0};
	char quote = 0;
	bool in = false;
	for (const char *p = text.buf;; p++) {
		char c = *p;
		if (!c || (!quote && (c == ' ' || c == '\t' || c == '\n' || c == '\r'))) {
			if (in)
				cflags_add(a, &v, arena_strdup(a, tok.buf));
			tok.len = 0;
			tok.buf[0] = 0;
			in = false;
			if (!c)
				break;
		} else if (quote ? c == quote : c == '"' || c == '\'') {
			quote = quote ? 0 : c;
			in = true;
		} else if (c == '\\' && quote != '\'' && p[1]) {
			sbuf_addc(&tok, *++p);
			in = true;
		} else {
			sbuf_addc(&tok, c);
			in = true;
		}
	}
	sbuf_release(&text);
	sbuf_release(&tok);
	*n = v.n;
	return v.v ? v.v : arena_alloc(a, sizeof(char *));
}

static void scan(struct arena *a, struct cflags *out, const char *const *argv, size_t argc, size_t from,
		 const char *dir, unsigned depth, unsigned *reads);

/* Response files read for one command at most: nesting is cut at 8 levels, and this bounds the
 * breadth, so files naming themselves several times ("-optf a.rsp,a.rsp,...") end soon. */
#define RSP_MAX_READS 64

/* Files named by a response-file flag ("a.rsp" or nvcc's "a.rsp,b.rsp"), read relative to the
 * entry's folder, their arguments taken as if written in place. */
static void expand(struct arena *a, struct cflags *out, const char *files, bool commas, const char *dir,
		   unsigned depth, unsigned *reads)
{
	while (*files && depth < 8 && *reads < RSP_MAX_READS) {
		size_t n = commas ? strcspn(files, ",") : strlen(files);
		size_t argc;
		++*reads;
		const char **argv = read_rsp(a, absolute(a, arena_strndup(a, files, n), dir), &argc);
		if (argv)
			scan(a, out, argv, argc, 0, dir, depth + 1, reads);
		files += n + (files[n] == ',');
	}
}

/* nvcc's flags that carry other flags: response files and the host compiler's options. */
static bool nested(struct arena *a, struct cflags *out, const char *const *argv, size_t argc, size_t *i,
		   const char *dir, unsigned depth, unsigned *reads)
{
	static const struct {
		const char *flag;
		bool rsp;
	} forms[] = {{"--options-file", true}, {"-optf", true}, {"-Xcompiler", false}, {"--compiler-options", false}};
	const char *s = argv[*i];
	if (s[0] == '@' && s[1]) {
		expand(a, out, s + 1, false, dir, depth, reads);
		return true;
	}
	for (size_t k = 0; k < sizeof(forms) / sizeof(forms[0]); k++) {
		size_t m = strlen(forms[k].flag);
		if (strncmp(s, forms[k].flag, m) || (s[m] && s[m] != '='))
			continue;
		const char *val = s[m] ? s + m + 1 : *i + 1 < argc ? argv[++*i] : "";
		if (forms[k].rsp) {
			expand(a, out, val, true, dir, depth, reads);
		} else {        /* -Xcompiler -DX,-Ipath: the host compiler's, comma-separated */
			struct cflags host = {0};
			for (const char *p = val; *p;) {
				size_t n = strcspn(p, ",");
				cflags_add(a, &host, arena_strndup(a, p, n));
				p += n + (p[n] == ',');
			}
			if (host.n && depth < 8)
				scan(a, out, host.v, host.n, 0, dir, depth + 1, reads);
		}
		return true;
	}
	return false;
}

void cflags_from_command(struct arena *a, struct cflags *out, const char *const *argv, size_t argc,
			 const char *dir)
{
	unsigned reads = 0;
	scan(a, out, argv, argc, 1, dir, 0, &reads);
}

static void scan(struct arena *a, struct cflags *out, const char *const *argv, size_t argc, size_t from,
		 const char *dir, unsigned depth, unsigned *reads)
{
	for (size_t i = from; i < argc; i++) {
		const char *s = argv[i];
		bool done = nested(a, out, argv, argc, &i, dir, depth, reads);
		for (size_t k = 0; k < sizeof(valued) / sizeof(valued[0]) && !done; k++) {
			size_t m = strlen(valued[k].flag);
			if (strncmp(s, valued[k].flag, m))
				continue;
			const char *val = NULL;
			if (s[m] == 0 && i + 1 < argc)
				val = argv[++i];
			else if (s[m] == '=' && s[1] == '-')
				val = s + m + 1;        /* nvcc's --flag=value */
			else if (s[m] && s[1] != '-' && (m == 2 || s[m] == '='))
				val = s + m + (s[m] == '=');
			if (val) {
				keep(a, out, valued[k].clang, val, valued[k].path, dir);
				done = true;
			}
		}
		if (done)
			continue;
		if (!strncmp(s, "-std=", 5) || !strncmp(s, "--std=", 6)) {
			cflags_add(a, out, arena_printf(a, "-std=%s", strchr(s, '=') + 1));
		} else if ((!strcmp(s, "--std") || !strcmp(s, "-std")) && i + 1 < argc) {
			cflags_add(a, out, arena_printf(a, "-std=%s", argv[++i]));
		} else if ((!strcmp(s, "--default-stream") || !strcmp(s, "-default-stream")) && i + 1 < argc) {
			if (!strcmp(argv[++i], "per-thread"))
				keep(a, out, "-D", "CUDA_API_PER_THREAD_DEFAULT_STREAM=1", false, dir);
		} else if (!strcmp(s, "--default-stream=per-thread") || !strcmp(s, "-default-stream=per-thread")) {
			keep(a, out, "-D", "CUDA_API_PER_THREAD_DEFAULT_STREAM=1", false, dir);
		} else if (s[0] == '-') {       /* optimisation, code generation, warnings, arch lists */
			push(a, &out->drop, &out->n_drop, &out->cap_drop, s);
		}
	}
}

/* SPDX-License-Identifier: MIT */
/*
 * out: output formats as small vtables, one file each (out_*.c), and what they share. A format
 * prints; it never decides what is reported (that is the funnel's job in diag.c). NULL hooks
 * mean "nothing to do".
 */
#ifndef CGLINT_OUT_H
#define CGLINT_OUT_H

#include <stdbool.h>
#include <stdio.h>

struct diag;
struct diag_list;
struct arena;
struct rule;
struct target;
struct text_store;

struct out_ctx {
	FILE *f;
	bool color;
	const struct target *target;
	const struct text_store *texts; /* the inputs' texts, for formats that look again; may be NULL */
	const struct diag_list *suppressed; /* what suppressions hid (diag.supp), for SARIF; may be NULL */
	const struct diag_list *undecided;  /* checks no input decided (DIAG_OPEN), for JSON and SARIF; may be NULL */
	int fail_on;            /* an enum sev, --fail-on: findings below it fail no JUnit test case */
	bool quiet;             /* -q: no summary, on stderr or in a format's own output */
	void *state;            /* the format's own */
};

struct out_format {
	const char *name;
	void (*begin)(struct out_ctx *o);
	void (*diag)(struct out_ctx *o, const struct diag *d);
	void (*end)(struct out_ctx *o, const struct diag_list *l);
};

/* formats.h lists them */
extern const struct out_format out_text, out_concise, out_json, out_sarif, out_github, out_gitlab, out_junit;

void out_print(const struct out_format *fmt, struct out_ctx *o, const struct diag_list *l);

/*
 * The project root: the nearest folder upward from the current directory that holds .git (a
 * folder, or a file in a worktree or submodule), else the current directory. Absolute, without
 * a trailing '/' (except for "/" itself); found once per process and kept.
 */
const char *out_root(void);
/*
 * 'path' relative to out_root(), '/'-separated, without "./", written into 'buf'. Returns 'path'
 * itself -- the same pointer -- when it cannot be made relative: a name in angle brackets
 * ("<stdin>", "<command line>"), NULL, a path outside the root, the root itself, or a result
 * longer than 'size'. A path is judged as written first (so a symbolic link inside the project
 * keeps its own name), then resolved with realpath() when it exists.
 */
const char *out_relpath(char *buf, size_t size, const char *path);
/*
 * Where a built-in rule's page is (docs/rules/ID.md, generated from the packs): at the address the
 * build was given (-DCGLINT_DOCS_URL=, CGLINT_DOCS_URL here), else installed beside the program
 * (cmake --install, pip: CGLINT_DOCDIR_FROM_BIN, relative to the program's folder), else nowhere
 * but `cglint explain ID`. No address is made up: a link in a finding is one the user can open.
 */
#ifndef CGLINT_DOCS_URL
#define CGLINT_DOCS_URL ""
#endif
/* The page of rule 'r' as a URI (malloc'd): the build's address, else file:// of the installed
 * page when it is there; NULL otherwise and for a rule of a --rules pack, which has no page. */
char *out_rule_url(const struct rule *r);
/* What a `see:` line says for rule 'r' (malloc'd): the build's address; else `cglint explain ID`,
 * with the installed page's path after it when there is one; NULL for a --rules pack's rule. */
char *out_rule_see(const struct rule *r);
/* The address of rule 'id' under a documentation URL: '{id}' in it replaced, else 'ID.md' appended
 * after a '/' (malloc'd). */
char *out_docs_link(const char *base, const char *id);
/* The folder of the rule pages under a documentation URL (malloc'd): 'base' up to the last '/'
 * before '{id}', or 'base' itself without one; SARIF's informationUri. */
char *out_docs_home(const char *base);
/* A URI reference for 'path' between 'prefix' and 'suffix': RFC 3986 path characters kept, the
 * rest percent-encoded, ':' too, so that no first segment reads as a scheme (malloc'd). */
char *out_uri_encode(const char *prefix, const char *path, const char *suffix);

/*
 * A finding's mechanical fix (fix.h) as an edit with positions, for the formats that carry fixes
 * (JSON, SARIF). Lines are 1-based; columns are 1-based and count code points; offsets count
 * bytes. The end is exclusive.
 */
struct out_edit {
	const char *title, *text;       /* in the arena given */
	size_t offset, length;
	unsigned start_line, start_col, end_line, end_col;
};
/* False when 'd' has no mechanical fix or its file's text is not in o->texts. */
bool out_fix(const struct out_ctx *o, struct arena *a, const struct diag *d, struct out_edit *e);

/*
 * The span a finding at 1-based 'col' of 'line' (n bytes, of the file 'path') underlines, in
 * bytes: from where the column points (YAML columns count code points, the other front-ends'
 * bytes) to the end of the word there (an identifier, number, key, or a quoted string whole;
 * *end == *start when none). False when the column is past the line's end.
 */
bool out_span(const char *path, const char *line, size_t n, unsigned col, size_t *start, size_t *end);

/*
 * The character at s[0..n) as printed, into 'out': itself, or an escape, so that no byte of an
 * input reaches a terminal raw: a line end must not start a line of its own (a problem matcher or
 * a CI runner would read another finding), and a control character or a byte that is not UTF-8
 * must not drive the terminal. Returns the bytes it took; *cols is the columns it prints.
 */
size_t out_clean_char(const char *s, size_t n, char out[8], size_t *cols);
/* s[0..n) to 'f', each character as out_clean_char prints it. */
void out_put_clean(FILE *f, const char *s, size_t n);

/* A malloc'd copy of 's' in which bytes that are not UTF-8 became U+FFFD (JSON needs UTF-8). */
char *out_utf8(const char *s);

#endif

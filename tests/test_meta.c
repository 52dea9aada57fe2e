/* SPDX-License-Identifier: MIT */
/*
 * meta: tests over the rule catalogue itself. Every shipped rule has a doc, a message and a
 * firing and a silent fixture; every rule that mirrors an assertion names its source line;
 * every built-in check is used.
 */
#include <criterion/criterion.h>
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "base/diag.h"
#include "base/mem.h"
#include "config/pack.h"

struct found {
	const char *id;
	bool ko, ok, ko_expects;
	bool ok_expects;
};

static bool file_expects(const char *path, const char *id)
{
	FILE *f = fopen(path, "rb");
	if (!f)
		return false;
	char line[4096];
	bool hit = false;
	while (!hit && fgets(line, sizeof(line), f)) {
		const char *e = strstr(line, "expect");
		hit = e && strstr(e, id);
	}
	fclose(f);
	return hit;
}

static void scan(const char *dir, struct found *fd)
{
	DIR *d = opendir(dir);
	if (!d)
		return;
	size_t idlen = strlen(fd->id);
	for (struct dirent *de; (de = readdir(d));) {
		if (de->d_name[0] == '.')
			continue;
		char path[1024];
		snprintf(path, sizeof(path), "%s/%s", dir, de->d_name);
		struct stat st;
		if (stat(path, &st))
			continue;
		if (S_ISDIR(st.st_mode)) {
			scan(path, fd);
			continue;
		}
		if (strncmp(de->d_name, fd->id, idlen) || (de->d_name[idlen] != '.' && de->d_name[idlen] != '-'))
			continue;
		if (strstr(de->d_name, ".ko.")) {
			fd->ko = true;
			fd->ko_expects |= file_expects(path, fd->id);
		}
		if (strstr(de->d_name, ".ok.")) {
			fd->ok = true;
			fd->ok_expects |= file_expects(path, fd->id);
		}
	}
	closedir(d);
}

static struct pack *p;

static void load(void)
{
	p = pack_new();
	pack_load_builtin(p);
}

static void unload(void)
{
	pack_free(p);
}

Test(meta, every_rule_has_doc_message_and_fixtures, .init = load, .fini = unload)
{
	cr_assert_gt(p->n_rules, 30, "the built-in packs hold only %zu rules", p->n_rules);
	for (size_t k = 0; k < p->n_rules; k++) {
		const struct rule *r = p->rules[k];
		cr_expect(r->doc && strlen(r->doc) > 80, "%s has no real doc", r->head.id);
		cr_expect(r->message && *r->message, "%s has no message", r->head.id);
		struct found fd = {.id = r->head.id};
		scan(CGLINT_FIXTURES, &fd);
		cr_expect(fd.ko && fd.ko_expects, "%s has no firing fixture (%s*.ko.* expecting it)", r->head.id, r->head.id);
		cr_expect(fd.ok, "%s has no silent fixture (%s*.ok.*)", r->head.id, r->head.id);
		cr_expect(!fd.ok_expects, "a silent fixture of %s expects it to fire", r->head.id);
	}
}

Test(meta, assertion_rules_mirror_a_source_line, .init = load, .fini = unload)
{
	for (size_t k = 0; k < p->n_rules; k++) {
		const struct rule *r = p->rules[k];
		if (r->head.sev == SEV_ERROR && r->check != CHECK_INPUT)
			cr_expect(r->n_mirrors > 0, "%s (an error) names no source line it mirrors", r->head.id);
	}
}

Test(meta, every_check_is_used, .init = load, .fini = unload)
{
	for (int c = 0; c < CHECK_NONE; c++) {
		bool used = false;
		for (size_t k = 0; k < p->n_rules; k++)
			used |= p->rules[k]->check == (enum check_kind)c;
		cr_expect(used, "built-in check '%s' is used by no rule", pack_check_name((enum check_kind)c));
	}
}

Test(meta, ids_are_in_their_ranges, .init = load, .fini = unload)
{
	for (size_t k = 0; k < p->n_rules; k++) {
		const struct rule *r = p->rules[k];
		cr_expect(strlen(r->head.id) == 5 && !strncmp(r->head.id, "CG", 2), "%s: built-in ids are CGnnn", r->head.id);
		bool input = r->check == CHECK_INPUT;
		cr_expect(input == (r->head.id[2] == '9'), "%s: CG9xx is for input problems only", r->head.id);
	}
}

/* The built-in conditions are parsed on first use at run time; each must parse (the build checks
 * this too, in cglint_rule_docs), and parsing them leaves every rule's condition in place. */
Test(meta, every_builtin_condition_parses, .init = load, .fini = unload)
{
	struct arena *a = arena_new();
	struct diag_list d;
	diag_init(&d, a, &p->lookup, NULL);
	cr_expect_eq(pack_parse_all(p, &d), 0);
	for (size_t i = 0; i < d.n; i++)
		cr_log_error("%s:%u: %s", d.items[i].loc.path, d.items[i].loc.line, d.items[i].message);
	cr_expect_eq(d.n, 0);
	for (size_t k = 0; k < p->n_rules; k++)
		cr_expect(!p->rules[k]->when == !pack_cond(p->rules[k]->when), "%s", p->rules[k]->head.id);
	diag_release(&d);
	arena_free(a);
}

/* A --rules pack is parsed whole on load: a broken condition is a CG910 at its own line, and
 * the rule is left out, before any input is read. */
Test(meta, a_user_pack_condition_is_checked_on_load, .init = load, .fini = unload)
{
	static const char text[] = "rules:\n"
				   "  - id: X101\n    name: ok-rule\n    severity: note\n    when: model.a == 1\n"
				   "    message: m\n    doc: d\n"
				   "  - id: X102\n    name: broken-rule\n    severity: note\n    when: model.a == (\n"
				   "    message: m\n    doc: d\n";
	struct arena *a = arena_new();
	struct diag_list d;
	diag_init(&d, a, &p->lookup, NULL);
	cr_expect_eq(pack_load(p, &d, "team.yaml", text, sizeof(text) - 1), -1);
	cr_assert_eq(d.n, 1);
	cr_expect_str_eq(d.items[0].rule->head.id, "CG910");
	cr_expect_eq(d.items[0].loc.line, 11, "at the condition's line, not found later");
	cr_expect(strstr(d.items[0].message, "condition:") != NULL, "%s", d.items[0].message);
	cr_expect_not_null(pack_find(p, "X101"));
	cr_expect_null(pack_find(p, "X102"));
	diag_release(&d);
	arena_free(a);
}

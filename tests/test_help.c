/* SPDX-License-Identifier: MIT */
/*
 * help: help where people look for it (issue 41 item 8). Each subcommand's --help is its own; explain
 * with a target shows that target's variant; the man page's SYNOPSIS holds every usage; the
 * completions offer the versions, --allow's words and, after explain, rule ids; probe --from on a
 * file that is no recording says so.
 */
#define _GNU_SOURCE /* asprintf */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

#include "harness.h"

TestSuite(help, .init = harness_init, .fini = harness_fini);

#define expect_str(got, want) cr_expect_str_eq(got, want, "\n--- got:\n%s\n--- wanted:\n%s", got, want)

Test(help, every_subcommand_has_its_own_help)
{
	static const char *const cmds[] = {"explain", "rules", "suggest", "facts", "probe", "lsp", "completion"};
	for (size_t k = 0; k < sizeof(cmds) / sizeof(cmds[0]); k++) {
		char *script, *out, *want;
		cr_assert_neq(asprintf(&script, "cglint %s --help", cmds[k]), -1);
		cr_assert_neq(asprintf(&want, "Usage: cglint %s", cmds[k]), -1);
		cr_expect_eq(harness_sh(harness_dir, script, &out), 0, "%s", script);
		cr_expect(!strncmp(out, want, strlen(want)), "%s:\n%s", script, out);
		cr_expect(!strstr(out, "--show-clang-args"), "%s lists lint's options:\n%s", script, out);
		free(out);
		free(script);
		free(want);
	}
	char *out;
	harness_sh(harness_dir, "cglint probe --help", &out);
	cr_expect(strstr(out, "--from FILE") && strstr(out, "--ranks N"), "%s", out);
	free(out);
	harness_sh(harness_dir, "cglint -j 1 probe --help", &out);
	cr_expect(!strncmp(out, "Usage: cglint probe", 19), "%s", out);
	free(out);
	harness_sh(harness_dir, "cglint --help", &out); /* the whole table stays where it was */
	cr_expect(!strncmp(out, "Usage: cglint [lint]", 20) && strstr(out, "--show-clang-args"), "%s", out);
	free(out);
}

Test(help, explain_with_a_target_shows_its_variant)
{
	char *out;
	cr_expect_eq(harness_sh(harness_dir, "cglint explain --mcore 0.17 CG111 | grep -c '^applies to'", &out), 0);
	expect_str(out, "1\n");
	free(out);
	harness_sh(harness_dir, "cglint explain CG111 --mcore 0.15 | grep '^applies to'", &out);
	expect_str(out, "applies to: mcore 0.15\n");
	free(out);
	harness_sh(harness_dir, "cglint explain CG111 | grep -c '^applies to'", &out); /* no target given: every variant */
	cr_expect_gt(atoi(out), 1, "%s", out);
	free(out);
}

Test(help, man_page_synopsis_holds_every_usage)
{
	char *out;
	int rc = harness_sh(harness_dir, "man=$(dirname \"$CGLINT\")/cglint.1; test -f \"$man\" || exit 77; "
			    "sed -n '/^.SH SYNOPSIS/,/^.SH DESCRIPTION/p' \"$man\"", &out);
	if (rc == 77) {
		free(out);
		cr_skip_test("no man page in this build (help2man missing)");
	}
	static const char *const words[] = {"explain", "rules", "probe", "facts", "suggest", "lsp", "completion", "version"};
	for (size_t k = 0; k < sizeof(words) / sizeof(words[0]); k++)
		cr_expect(strstr(out, words[k]), "SYNOPSIS lacks %s:\n%s", words[k], out);
	free(out);
}

/* Complete 'words' (the last the word under the cursor) with the bash script cglint writes. */
static char *bash_complete(const char *words)
{
	char *script, *out;
	cr_assert_neq(asprintf(&script, "source <(cglint completion bash); COMP_WORDS=(%s); "
					"COMP_CWORD=$((${#COMP_WORDS[@]} - 1)); _cglint; echo \"${COMPREPLY[*]}\"", words), -1);
	cr_expect_eq(harness_sh(harness_dir, script, &out), 0, "%s", script);
	free(script);
	return out;
}

Test(help, completions_offer_values_and_rule_ids)
{
	char *out = bash_complete("cglint --mcore ''");
	cr_expect(strstr(out, "0.19") && strstr(out, "0.15-dev") && !strstr(out, "none"), "--mcore: %s", out);
	free(out);
	out = bash_complete("cglint --bridge ''");
	cr_expect(strstr(out, "0.6") && strstr(out, "none"), "--bridge: %s", out);
	free(out);
	out = bash_complete("cglint suggest --allow ''");
	expect_str(out, "full-iteration\n");
	free(out);
	out = bash_complete("cglint explain CG10");
	cr_expect(strstr(out, "CG101 ") && strstr(out, "CG104"), "explain: %s", out);
	free(out);
	out = bash_complete("cglint explain cg10");
	cr_expect(strstr(out, "CG101 "), "explain, lower case: %s", out);
	free(out);
	cr_expect_eq(harness_sh(harness_dir, "cglint completion fish | grep -c \"__fish_seen_subcommand_from explain' -x -a 'CG100 \"", &out), 0);
	expect_str(out, "1\n");
	free(out);
	cr_expect_eq(harness_sh(harness_dir, "cglint completion zsh | grep -c 'compadd -- CG100 '", &out), 0);
	expect_str(out, "1\n");
	free(out);
	cr_expect_eq(harness_sh(harness_dir, "cglint completion zsh | grep -c \"'--mcore\\[.*(0.15 0.15-dev\"", &out), 0);
	expect_str(out, "1\n");
	free(out);
}

Test(help, probe_from_a_file_that_is_no_recording_says_so)
{
	char *out;
	static const char *const inputs[] = {"printf 'model:\\n  cuda_graph_impl: local\\n' > x", "echo '{\"a\": 1}' > x",
					     "echo '[1, 2]' > x"};
	for (size_t k = 0; k < sizeof(inputs) / sizeof(inputs[0]); k++) {
		char *script;
		cr_assert_neq(asprintf(&script, "%s; cglint probe --from x 2>&1", inputs[k]), -1);
		cr_expect_eq(harness_sh(harness_dir, script, &out), 2, "%s", script);
		cr_expect(strstr(out, "cglint probe: x:1: not a recording of cglint-probe's output: "), "%s:\n%s", script, out);
		free(out);
		free(script);
	}
}

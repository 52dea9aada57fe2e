/* SPDX-License-Identifier: MIT */
/*
 * mlm: Megatron-LM's own YAML files turned into facts (catalogue §C): the functional-test
 * model_config.yaml (ENV_VARS: and MODEL_ARGS:, the literal flags of one pretrain_*.py run) and
 * --yaml-cfg files (language_model: / model_parallel: sections, which bypass validate_args).
 */
#ifndef CGLINT_MLM_H
#define CGLINT_MLM_H

#include <stdbool.h>
#include <stddef.h>

struct diag_list;
struct facts;
struct node;
struct pack;
struct target;

enum mlm_kind { MLM_NOT, MLM_TEST_CASE, MLM_YAML_CFG };

enum mlm_kind mlm_kind(const struct node *root);
/* Before parsing: does the text look like a functional-test file? (its duplicate keys are
 * passed to argparse twice, the last winning: CG909, not CG902) */
bool mlm_text_is_test_case(const char *text, size_t len);

/*
 * A functional test's flags, converted word by word as tests/functional_tests/shell_test_utils/
 * _run_training.sh does (true -> the bare flag, "[a b]" -> a b, "${VAR}" unresolved), and its
 * ENV_VARS. Returns false when some value could not be resolved.
 */
bool mlm_test_case_facts(struct facts *t, struct diag_list *d, const struct pack *p, const struct target *tg,
			 const struct node *root);
void mlm_yaml_cfg_facts(struct facts *t, const struct node *root);

#endif

/* SPDX-License-Identifier: MIT */
/*
 * py_bridge: Megatron-Bridge's model of a config, as the Python front-end needs it: which
 * section of a ConfigContainer a config class builds, which classes' field defaults the packs
 * hold (rules/defaults.yaml), and the sections a ConfigContainer constructor may leave out.
 * Plain tables, no tree-sitter.
 */
#ifndef CGLINT_PY_BRIDGE_H
#define CGLINT_PY_BRIDGE_H

#include <stdbool.h>
#include <stddef.h>

/* The section a config class builds ("rng" for RNGConfig, "" for ConfigContainer, "model" for
 * a provider), or NULL for a class that is none. */
const char *py_bridge_section(const char *cls);
/* Whether the packs hold the class's field defaults: its keyword constructor closes the section. */
bool py_bridge_defaults_known(const char *cls);
/* The k-th section a ConfigContainer(...) may leave out, NULL past the last; '*factory': it has
 * a default_factory (the class built with no arguments), else it defaults to None. */
const char *py_bridge_container_section(size_t k, bool *factory);

/* The class that builds 'section' of a ConfigContainer whose field defaults the packs hold,
 * and the module of Megatron-Bridge that names it ("RNGConfig" in megatron.bridge.training.config,
 * which imports it from Megatron-LM on 0.6): false for a section that has none. */
bool py_bridge_section_class(const char *section, const char **module, const char **cls);

/* A key of a mixed_precision section that MixedPrecisionConfig.__setattr__ keeps equal to
 * another (fp8_param and fp8_param_gather, fp4_param and fp4_param_gather): the other field's
 * name, with '*stem' the length of the key before the field; NULL for any other key. */
const char *py_bridge_mp_partner(const char *key, size_t *stem);

#endif

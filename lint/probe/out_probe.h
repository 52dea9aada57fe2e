/* SPDX-License-Identifier: MIT */
/*
 * out_probe: printing a probe report. Text for people (identity, capture, launch cost, graph
 * memory, then one line per row cell and the disagreements with file:line of the claim); JSON
 * for programs, described by docs/probe.schema.json. Without a device, one line (or object)
 * that says so.
 */
#ifndef CGLINT_OUT_PROBE_H
#define CGLINT_OUT_PROBE_H

#include <stdbool.h>
#include <stdio.h>

struct probe_run;
struct verify_report;

void out_probe_print(FILE *f, bool json, const struct probe_run *run, const struct verify_report *r);

#endif

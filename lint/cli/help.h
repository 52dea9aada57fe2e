/* SPDX-License-Identifier: MIT */
/*
 * help: `cglint COMMAND --help`, one subcommand's usage and the options it takes, from the option
 * table in opts.c (plain `cglint --help` is the whole table).
 */
#ifndef CGLINT_HELP_H
#define CGLINT_HELP_H

#include <stdio.h>

/* The help of subcommand 'cmd' ("lint" or NULL: the whole --help). */
void help_print(FILE *f, const char *cmd);

#endif

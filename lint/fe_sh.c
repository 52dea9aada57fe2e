/* SPDX-License-Identifier: MIT */
/* fe_sh: placeholder until the shell reader lands. */
#include "fe_sh.h"

int fe_sh_parse(struct arena *a, struct diag_list *d, const char *path, const char *text, size_t len,
		struct sh_script *out)
{
	(void)a, (void)d, (void)path, (void)text, (void)len;
	*out = (struct sh_script){0};
	return 0;
}

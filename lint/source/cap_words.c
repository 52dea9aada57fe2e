/* SPDX-License-Identifier: MIT */
/* cap_words: the capture checks' messages (see cap_words.h). */
#include "source/cap_words.h"

#include <string.h>

#include "base/mem.h"
#include "source/cap.h"
#include "source/sir.h"

static const char *mode_name(enum cap_mode m)
{
	static const char *const names[] = {"global-mode", "thread-local", "relaxed", "capture-mode-unknown"};
	return names[m];
}

static void put_word(struct sbuf *sb, const char *name, size_t len, const void *ctx)
{
	const struct cap_words *w = ctx;
	static const char *const names[] = {"api", "stream", "event", "var", "effect", "begun", "mode", "line"};
	const char *v[] = {w->api, w->stream, w->event, w->var, w->effect, w->begun, mode_name(w->mode), NULL};
	for (size_t k = 0; k < sizeof(names) / sizeof(names[0]); k++)
		if (strlen(names[k]) == len && !strncmp(name, names[k], len)) {
			if (v[k])
				sbuf_adds(sb, v[k]);
			else if (!strcmp(names[k], "line"))
				sbuf_printf(sb, "%u", w->line);
			else if (!strcmp(names[k], "begun"))
				sbuf_printf(sb, "begun at line %u", w->line);
			return;
		}
}

const char *cap_words_fill(const struct cap *c, const char *tmpl, const struct cap_words *w)
{
	struct sbuf sb;
	sbuf_init(&sb);
	sbuf_template(&sb, tmpl, put_word, w);
	const char *r = arena_strdup(c->arena, sb.buf);
	sbuf_release(&sb);
	return r;
}

const char *cap_words_api(const struct cap *c, const struct sir_ev *e)
{
	const char *base = e->kind == EV_LAUNCH ? arena_printf(c->arena, "launch of kernel '%s'", e->name) : e->name;
	if (e->macro && e->name && strcmp(e->macro, e->name))
		return arena_printf(c->arena, "%s (in macro %s)", base, e->macro);
	return base;
}

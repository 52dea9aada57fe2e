/* SPDX-License-Identifier: MIT */
/* cap_thread: threads started and joined, and calls made on them (see cap_thread.h). */
#include "source/cap_thread.h"

#include <string.h>

#include "source/cap_ref.h"
#include "source/sir.h"

static bool is_api(const struct sir_ev *e, const char *const *names)
{
	for (size_t k = 0; e->name && names[k]; k++)
		if (!strcmp(e->name, names[k]))
			return true;
	return false;
}

int cap_thread_start(const struct sir_ev *e, struct sir_ref *handle, unsigned *shift)
{
	static const char *const thread_types[] = {"std::thread", "std::jthread", NULL};
	static const char *const emplace[] = {"std::vector::emplace_back", "std::vector::push_back", "std::deque::emplace_back", NULL};
	if (e->kind == EV_VAR && is_api(e, thread_types) && e->n_args) {
		*handle = e->target;
		*shift = 1;
		return e->args[0].fn1;
	}
	if (e->kind == EV_CALL && e->name && !strcmp(e->name, "pthread_create") && e->n_args >= 3) {
		*handle = e->args[0];
		handle->addr = false;
		*shift = 3;
		return e->args[2].fn1;
	}
	if (e->kind == EV_CALL && is_api(e, emplace) && e->n_args && e->args[0].fn1) {
		*handle = e->object;
		*shift = 1;
		return e->args[0].fn1;
	}
	return 0;
}

bool cap_thread_join(const struct cap *c, const struct sir_ev *e, const struct sir_ref *handle)
{
	static const char *const joins[] = {"std::thread::join", "std::jthread::join", NULL};
	if (e->kind != EV_CALL || handle->kind != REF_VAR)
		return false;
	struct sir_ref o = {.kind = REF_NONE};
	if (is_api(e, joins))
		o = cap_ref_alias(c, e->object);
	else if (e->name && !strcmp(e->name, "pthread_join") && e->n_args)
		o = cap_ref_alias(c, e->args[0]);
	return o.kind == REF_VAR && o.decl == handle->decl;
}

static const char *const event_apis[] = {"cudaEventQuery", "cuEventQuery", "cudaEventSynchronize", "cuEventSynchronize",
					 "cudaEventElapsedTime", "cuEventElapsedTime", NULL};

size_t cap_thread_queried(const struct sir_ev *e, int pos[2])
{
	if (!is_api(e, event_apis))
		return 0;
	if (strstr(e->name, "Elapsed")) {
		pos[0] = 1;
		pos[1] = 2;
		return 2;
	}
	pos[0] = 0;
	return 1;
}

/* In a Global capture every thread in the default (global) interaction mode is prohibited from
 * unsafe calls; a query or sync of an event recorded in the capture, and a device sync, fail in
 * every mode (capture-hazards.md 1.2, 1.3; probe rows T-MALLOC, T-EVQUERY-OUT, T-DEVSYNC). */
const char *cap_thread_effect(const struct sir_ev *e, bool unsafe, bool global, bool captured)
{
	static const char *const device_sync[] = {"cudaDeviceSynchronize", "cudaThreadSynchronize", "cuCtxSynchronize", NULL};
	if (is_api(e, event_apis)) {
		if (captured)
			return "cudaErrorCapturedEvent (907): the event is recorded in that capture, and querying or "
			       "synchronizing it fails from any thread in every capture mode";
		if (global && !strstr(e->name, "Elapsed"))
			return "cudaErrorStreamCaptureUnsupported (900): during a Global capture an event query or sync "
			       "is an unsafe call from every thread; the capture is invalidated";
		return NULL;
	}
	if (is_api(e, device_sync))
		return "cudaErrorStreamCaptureUnsupported (900): a device sync conflicts with the capture from any "
		       "thread in every capture mode; the capture is invalidated";
	if (unsafe && global)
		return "cudaErrorStreamCaptureUnsupported (900): during a Global capture this unsafe call fails on every "
		       "thread in the default interaction mode, and the capture is invalidated (ThreadLocal and Relaxed "
		       "captures allow it on other threads)";
	return NULL;
}

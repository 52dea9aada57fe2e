/* SPDX-License-Identifier: MIT */
/*
 * cap_thread: threads a function starts and joins, and what a call made on such a thread does
 * to a capture another thread has open, below cap.c's walk of the threads a region starts.
 */
#ifndef CGLINT_CAP_THREAD_H
#define CGLINT_CAP_THREAD_H

#include <stdbool.h>
#include <stddef.h>

struct cap;
struct sir_ev;
struct sir_ref;

/* The function 'e' starts a thread with (std::thread t(f, ...), pthread_create(&t, 0, f, arg),
 * threads.emplace_back(f, ...)), as an index + 1, or 0; 'handle' gets what names the thread
 * (its std::thread, the pthread_t, the vector it is emplaced into), 'shift' the arguments before
 * the function's own. */
int cap_thread_start(const struct sir_ev *e, struct sir_ref *handle, unsigned *shift);
/* Whether 'e' joins the thread 'handle' names: t.join(), pthread_join(t, ...), or for threads
 * kept in a vector, the join of one of its elements (for (auto &t : threads) t.join()). */
bool cap_thread_join(const struct cap *c, const struct sir_ev *e, const struct sir_ref *handle);
/* The arguments of an event query or sync that name its events (written to 'pos'), or 0 for
 * any other call. */
size_t cap_thread_queried(const struct sir_ev *e, int pos[2]);
/* What the call 'e', made on another thread while a capture is open, does to that capture, or
 * NULL: 'unsafe' as the pack's table says, 'global' when the capture is a Global one and the
 * thread is not relaxed, 'captured' when an event it queries was recorded in the capture. */
const char *cap_thread_effect(const struct sir_ev *e, bool unsafe, bool global, bool captured);

#endif

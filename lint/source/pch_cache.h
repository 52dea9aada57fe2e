/* SPDX-License-Identifier: MIT */
/*
 * pch_cache: the folder of precompiled preambles kept between runs ($XDG_CACHE_HOME/cglint,
 * default ~/.cache/cglint), so that a second run over the same sources loads what the first
 * parsed of their headers. fe_clang_tu.c names each preamble by what decides its content (the
 * file's #include block, the flags, the folder, libclang's version and the embedded shim) and
 * writes beside it a list of the files it holds with their sizes and times, the preamble's size
 * and checksum, and a checksum of the list itself; a preamble whose list no longer matches the
 * disk, or whose bytes or list are damaged or cut short, is made again, never read (libclang
 * trusts a precompiled file it is given, and may crash on a damaged one). Files are written under a unique name and
 * renamed into place, so runs at the same time never read half a file, and one at a time under
 * a lock (stem.lock), so that a preamble another is made on is not replaced under it; a preamble's access time
 * is set when it is used (never its modification time: a preamble made on top of another holds
 * that one's, and clang checks it), and pch_cache_clean deletes the ones unused for
 * PCH_CACHE_DAYS, then the least recently used until the folder holds at most PCH_CACHE_MIB.
 */
#ifndef CGLINT_PCH_CACHE_H
#define CGLINT_PCH_CACHE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <time.h>

enum { PCH_CACHE_DAYS = 30, PCH_CACHE_MIB = 8192 };

/* The cache folder, made (mode 0700) if missing; NULL when neither $XDG_CACHE_HOME nor $HOME
 * names a usable one. The caller frees it. */
char *pch_cache_dir(void);

/* A name for a temporary file beside 'path' that no other process or thread picks: path.<pid>.<n>.tmp,
 * into out[0..size). */
void pch_cache_tmp(char *out, size_t size, const char *path);

/* Write the list of files a preamble holds ('files', n of them) to 'list', with the size and
 * checksum of the preamble now at 'pch' (it may be renamed later), each file's size and
 * modification time, each folder of 'dirs' with its modification time (pch_shadow.h: where a
 * file would take the place of one it holds), and last a checksum of the lines before: through
 * a temporary file renamed into place. False when it could not be written. */
bool pch_cache_put_list(const char *list, const char *pch, const char *const *files, size_t n,
			const char *const *dirs, size_t n_dirs);

/* Write n bytes as 'path', through a temporary file renamed into place: readers see the old
 * file or the whole new one. False when it could not be written. */
bool pch_cache_put(const char *path, const void *bytes, size_t n);

/* Whether the preamble 'pch' and its list 'list' still hold: the list whole (its checksum
 * matches), the preamble of the size and checksum it records, every file in it of the recorded
 * size and time (a file that could not be looked at when the list was written, such as the
 * shim's, is not checked) and every folder of the recorded time. Sets the preamble's access
 * time, so that pch_cache_clean keeps what is used. */
bool pch_cache_fresh(const char *pch, const char *list);

/* Hold the lock of the preamble 'stem' (its path without .pch; the file stem.lock), waiting
 * while another process or thread holds it: one makes a preamble, the others then find it
 * made. A descriptor for pch_cache_unlock, or -1 when no lock could be had (go on without). */
int pch_cache_lock(const char *stem);
void pch_cache_unlock(int fd);

/* The checksum of the preamble that 'list' records (pch_cache_put_list): false when the list is
 * damaged or missing. A preamble made on top of another names itself by it. */
bool pch_cache_sum(const char *list, uint64_t *sum);

/* Each file name in 'list', in order, through 'add'; none when the list is damaged. */
void pch_cache_each(const char *list, void (*add)(void *ctx, const char *name), void *ctx);

/* Delete in 'dir' the files not written or used (access time) for 'days', then the least
 * recently written or used until
 * what is left is at most max_bytes; 'now' is the time to age them from. Files of other
 * programs (names not ending in .pch, .inc, .err, .bad or .tmp) are left alone. */
void pch_cache_clean(const char *dir, time_t now, unsigned days, uint64_t max_bytes);

#endif

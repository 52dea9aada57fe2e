/* SPDX-License-Identifier: MIT */
/* read: one input's bytes, bounded. */
#include "input/read.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/diag.h"
#include "base/mem.h"

const char *read_strerror(int err)
{
	return err == ELOOP ? "symbolic link loop" : strerror(err);
}

int read_fd(struct diag_list *d, struct arena *a, const char *path, int fd, char **buf, size_t *len)
{
	struct loc whole = {path, 0, 0};
	struct stat st;
	if (fd != 0) {
		if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode)) {
			diag_input(d, "CG904", whole, "not a regular file");
			return -1;
		}
		if ((unsigned long long)st.st_size > READ_MAX_BYTES) {
			diag_input(d, "CG903", whole, "file is %lld bytes; cglint reads at most %u",
				   (long long)st.st_size, READ_MAX_BYTES);
			return -1;
		}
	}
	size_t cap = 65536, n = 0;
	char *b = mem_alloc(cap);
	for (;;) {
		if (n == cap) {
			if (cap > READ_MAX_BYTES) {
				free(b);
				diag_input(d, "CG903", whole, "input exceeds %u bytes", READ_MAX_BYTES);
				return -1;
			}
			b = mem_realloc(b, cap *= 2);
		}
		ssize_t got = read(fd, b + n, cap - n);
		if (got < 0 && errno == EINTR)
			continue;
		if (got < 0) {
			free(b);
			diag_input(d, "CG904", whole, "cannot read: %s", strerror(errno));
			return -1;
		}
		if (!got)
			break;
		n += (size_t)got;
	}
	*buf = arena_strndup(a, b, n);
	*len = n;
	free(b);
	return 0;
}

int read_path(struct diag_list *d, struct arena *a, const char *path, char **buf, size_t *len)
{
	/* O_NONBLOCK: opening a FIFO must not hang; fstat then refuses it */
	int fd = open(path, O_RDONLY | O_NOCTTY | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0) {
		diag_input(d, "CG904", (struct loc){path, 0, 0}, "cannot open: %s", read_strerror(errno));
		return -1;
	}
	int rc = read_fd(d, a, path, fd, buf, len);
	close(fd);
	return rc;
}

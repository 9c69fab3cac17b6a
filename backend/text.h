/* SPDX-License-Identifier: Apache-2.0 */
/*
 * text.h - building the backend's reports (reasons, warnings, statistics) in caller buffers, and
 * reading the kernel's one-number files.
 */
#ifndef HWOFF_BACKEND_TEXT_H
#define HWOFF_BACKEND_TEXT_H

#include <stddef.h>

/*
 * Append printf-style text to the NUL-terminated string in buf, which holds size bytes. Text
 * that does not fit is cut, and a report that is cut stays a valid string.
 */
void hwoff_appendf(char *buf, size_t size, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* The number a file such as /proc/sys/net/core/optmem_max holds; -1 when it cannot be read. */
long hwoff_read_number(const char *path);

#endif

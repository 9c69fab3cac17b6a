// SPDX-License-Identifier: Apache-2.0
/*
 * text.c - building the backend's reports in caller buffers; the kernel's one-number files.
 */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "backend/text.h"

void hwoff_appendf(char *buf, size_t size, const char *fmt, ...)
{
	size_t used;
	va_list ap;

	if (!size)
		return;
	used = strnlen(buf, size);
	if (used + 1 >= size)
		return;
	va_start(ap, fmt);
	vsnprintf(buf + used, size - used, fmt, ap);
	va_end(ap);
}

long hwoff_read_number(const char *path)
{
	FILE *f = fopen(path, "r");
	long value = -1;

	if (!f)
		return -1;
	if (fscanf(f, "%ld", &value) != 1)
		value = -1;
	fclose(f);
	return value;
}

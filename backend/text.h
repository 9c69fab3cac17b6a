/*
 * text.h - building the backend's reports (reasons, warnings, statistics) in caller buffers.
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

#endif

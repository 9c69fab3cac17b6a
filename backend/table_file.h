/* SPDX-License-Identifier: Apache-2.0 */
/*
 * table_file.h - the path table's text format (backend/TABLE.md): reading and writing it.
 */
#ifndef HWOFF_BACKEND_TABLE_FILE_H
#define HWOFF_BACKEND_TABLE_FILE_H

#include <stddef.h>
#include <stdio.h>

#include "backend/table.h"

#define HWOFF_TABLE_MAGIC   "hwoffload-path-table"
#define HWOFF_TABLE_VERSION 1

/*
 * Read the format of backend/TABLE.md. source names the input in errors, which read
 * "SOURCE:LINE: reason". Returns the table, or NULL with err filled.
 */
struct hwoff_table *hwoff_table_read(FILE *in, const char *source, char *err, size_t err_len);
struct hwoff_table *hwoff_table_load(const char *path, char *err, size_t err_len);

/* Write t so that hwoff_table_read() gives it back; comment (may be NULL, may have several
 * lines) goes first as "# " lines. Returns 0, or -1 when out fails. */
int hwoff_table_write(const struct hwoff_table *t, FILE *out, const char *comment);

#endif

// SPDX-License-Identifier: Apache-2.0
/*
 * table_file.c - the path table's text format (backend/TABLE.md): reading and writing it.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "backend/table_file.h"
#include "backend/text.h"

#define LINE_MAX_CHARS 4096
#define FIELDS_MAX     (4 + HWOFF_RANGES_MAX + 1) /* one more, to tell "too many ranges" */

static unsigned int key_bits_of(const struct hwoff_alg *alg)
{
	return alg->key_bytes * 8;
}

/* ---- reading ------------------------------------------------------------------------------ */

struct reader {
	const char *source;
	unsigned int line;
	char *err;
	size_t err_len;
	struct hwoff_table *t;
	bool header_seen;
	unsigned int kernel_line, cpu_line; /* where fingerprint kernel/cpu were, 0 if not */
	unsigned int *entry_lines; /* where each entry was set, 0 if not */
};

static int read_error(struct reader *r, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static int read_error(struct reader *r, const char *fmt, ...)
{
	va_list ap;

	snprintf(r->err, r->err_len, "%s:%u: ", r->source, r->line);
	va_start(ap, fmt);
	{
		size_t used = strlen(r->err);

		if (used < r->err_len)
			vsnprintf(r->err + used, r->err_len - used, fmt, ap);
	}
	va_end(ap);
	return -1;
}

/* A size in decimal bytes. Returns 0, -1 when it is not a number, -2 when past the limit. */
static int parse_size(const char *text, size_t len, size_t *out)
{
	size_t value = 0;

	if (!len || strspn(text, "0123456789") < len)
		return -1;
	for (size_t i = 0; i < len; i++) {
		value = value * 10 + (size_t)(text[i] - '0');
		if (value > HWOFF_SIZE_LIMIT)
			return -2;
	}
	*out = value;
	return 0;
}

static int lookup_name(const char *const *names, int count, const char *name)
{
	for (int i = 0; i < count; i++)
		if (strcmp(names[i], name) == 0)
			return i;
	return -1;
}

static int read_header(struct reader *r, char **fields, int count)
{
	size_t version;

	if (r->header_seen)
		return read_error(r, "a second '" HWOFF_TABLE_MAGIC "' header");
	if (count < 2)
		return read_error(r, "the header has no format version");
	if (parse_size(fields[1], strlen(fields[1]), &version) || version != HWOFF_TABLE_VERSION)
		return read_error(r, "format version '%s': this build reads version %d", fields[1],
				  HWOFF_TABLE_VERSION);
	if (count > 2)
		return read_error(r, "trailing garbage '%s' after the header", fields[2]);
	r->header_seen = true;
	return 0;
}

static bool module_name_valid(const char *name)
{
	size_t len = strlen(name);

	return len && len < HWOFF_MODULE_NAME_MAX &&
	       strspn(name, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-") ==
		       len;
}

static int read_fingerprint_driver(struct reader *r, char **fields, int count)
{
	struct hwoff_fingerprint *fp = &r->t->fingerprint;
	struct hwoff_fingerprint_driver *drv;

	if (count < 5)
		return read_error(r, "expected 'fingerprint driver DRIVER MODULE VERSION'");
	if (count > 5)
		return read_error(r, "trailing garbage '%s' after the driver's version", fields[5]);
	if (!hwoff_driver_name_valid(fields[2]))
		return read_error(r, "'%.64s' is not a kernel driver name", fields[2]);
	if (!module_name_valid(fields[3]))
		return read_error(r, "'%.64s' is not a module name", fields[3]);
	if (strlen(fields[4]) >= sizeof(drv->version))
		return read_error(r, "module version '%.64s...' is longer than %zu characters",
				  fields[4], sizeof(drv->version) - 1);
	for (size_t i = 0; i < fp->driver_count; i++)
		if (strcmp(fp->drivers[i].driver, fields[2]) == 0)
			return read_error(r, "a second fingerprint for driver %s", fields[2]);
	if (fp->driver_count == HWOFF_PATHS_MAX)
		return read_error(r, "more than %d driver fingerprints", HWOFF_PATHS_MAX);
	drv = &fp->drivers[fp->driver_count++];
	strcpy(drv->driver, fields[2]);
	strcpy(drv->module, fields[3]);
	strcpy(drv->version, fields[4]);
	return 0;
}

static int read_fingerprint(struct reader *r, char **fields, int count)
{
	struct hwoff_fingerprint *fp = &r->t->fingerprint;
	const char *kind = count > 1 ? fields[1] : "";

	if (strcmp(kind, "kernel") == 0) {
		if (r->kernel_line)
			return read_error(r, "a second fingerprint kernel (first on line %u)",
					  r->kernel_line);
		if (count < 3)
			return read_error(r, "fingerprint kernel without the release");
		if (count > 3)
			return read_error(r, "trailing garbage '%s' after the kernel release",
					  fields[3]);
		if (strlen(fields[2]) >= sizeof(fp->kernel))
			return read_error(r, "kernel release longer than %zu characters",
					  sizeof(fp->kernel) - 1);
		strcpy(fp->kernel, fields[2]);
		r->kernel_line = r->line;
		return 0;
	}
	if (strcmp(kind, "cpu") == 0) {
		if (r->cpu_line)
			return read_error(r, "a second fingerprint cpu (first on line %u)",
					  r->cpu_line);
		if (count < 3)
			return read_error(r, "fingerprint cpu without the model");
		/* The model is the rest of the line, blanks collapsed as on writing. */
		size_t len = (size_t)(count - 3); /* the spaces between words */

		for (int i = 2; i < count; i++)
			len += strlen(fields[i]);
		if (len >= sizeof(fp->cpu))
			return read_error(r, "CPU model longer than %zu characters",
					  sizeof(fp->cpu) - 1);
		fp->cpu[0] = '\0';
		for (int i = 2; i < count; i++)
			hwoff_appendf(fp->cpu, sizeof(fp->cpu), "%s%s", i > 2 ? " " : "",
				      fields[i]);
		r->cpu_line = r->line;
		return 0;
	}
	if (strcmp(kind, "driver") == 0)
		return read_fingerprint_driver(r, fields, count);
	return read_error(r, "unknown fingerprint '%s': kernel, cpu or driver", kind);
}

/* "proven DRIVER BYTES" or "proven DRIVER all": see struct hwoff_proof. */
static int read_proven(struct reader *r, char **fields, int count)
{
	size_t bytes = HWOFF_PROVEN_ALL;
	char err[256];

	if (count < 3)
		return read_error(r, "expected 'proven DRIVER BYTES' (or 'all' for BYTES)");
	if (count > 3)
		return read_error(r, "trailing garbage '%.64s' after the proven size", fields[3]);
	if (hwoff_table_proven(r->t, fields[1]))
		return read_error(r, "a second 'proven' line for driver %s", fields[1]);
	if (strcmp(fields[2], "all") != 0) {
		switch (parse_size(fields[2], strlen(fields[2]), &bytes)) {
		case -1:
			return read_error(r, "bad proven size '%.32s': a number of bytes, or 'all'",
					  fields[2]);
		case -2:
			return read_error(r, "proven size %.32s is past the limit of %lu bytes",
					  fields[2], HWOFF_SIZE_LIMIT);
		}
		if (!bytes)
			return read_error(r,
					  "a proven size of 0 proves nothing: leave the line out");
	}
	if (hwoff_table_set_proven(r->t, fields[1], bytes, err, sizeof(err)))
		return read_error(r, "%s", err);
	return 0;
}

static int read_entry(struct reader *r, char **fields, int count)
{
	struct hwoff_range_spec ranges[HWOFF_RANGES_MAX];
	const struct hwoff_alg *alg;
	unsigned int range_count = 0;
	int direction, objective;
	size_t index, number;
	char err[256];

	alg = hwoff_alg_by_name(fields[0]);
	if (!alg)
		return read_error(r, "unknown algorithm '%.64s'", fields[0]);
	if (count < 5)
		return read_error(r, "incomplete entry: expected ALGORITHM KEY-BITS DIRECTION "
				     "OBJECTIVE START:PATH...");
	if (hwoff_alg_is_digest(alg)) {
		if (strcmp(fields[1], "-") != 0)
			return read_error(r, "%s is a digest: key bits are '-', not '%s'",
					  alg->name, fields[1]);
	} else {
		if (strcmp(fields[1], "-") == 0)
			return read_error(r, "%s needs its key bits (%u), not '-'", alg->name,
					  key_bits_of(alg));
		if (parse_size(fields[1], strlen(fields[1]), &number))
			return read_error(r, "bad number '%.32s' for key bits", fields[1]);
		if (number != key_bits_of(alg))
			return read_error(r, "key size %zu is not %s's (%u)", number, alg->name,
					  key_bits_of(alg));
	}
	direction = lookup_name(hwoff_direction_names, HWOFF_DIRECTION_COUNT, fields[2]);
	if (direction < 0)
		return read_error(r, "bad direction '%.32s': encrypt, decrypt or digest",
				  fields[2]);
	objective = lookup_name(hwoff_objective_names, HWOFF_OBJECTIVE_COUNT, fields[3]);
	if (objective < 0)
		return read_error(r, "bad objective '%.32s': throughput or cpu", fields[3]);
	if (!hwoff_direction_fits(alg, direction))
		return read_error(r, "direction %s does not apply to %s, which takes %s", fields[2],
				  alg->name,
				  hwoff_alg_is_digest(alg) ? "digest" : "encrypt or decrypt");
	index = hwoff_table_entry_index(alg, direction, objective);
	if (r->entry_lines[index])
		return read_error(r, "a second entry for %s %s %s (first on line %u)", alg->name,
				  fields[2], fields[3], r->entry_lines[index]);
	if (count - 4 > HWOFF_RANGES_MAX)
		return read_error(r, "more than %d ranges", HWOFF_RANGES_MAX);

	for (int i = 4; i < count; i++) {
		char *colon = strchr(fields[i], ':');

		if (!colon)
			return read_error(r, "range '%.64s' is not START:PATH", fields[i]);
		switch (parse_size(fields[i], (size_t)(colon - fields[i]), &number)) {
		case -1:
			return read_error(r, "bad number '%.*s' in range '%.64s'",
					  (int)(colon - fields[i]), fields[i], fields[i]);
		case -2:
			return read_error(
				r, "size '%.*s' in range '%.64s' is past the limit of %lu bytes",
				(int)(colon - fields[i]), fields[i], fields[i], HWOFF_SIZE_LIMIT);
		}
		ranges[range_count++] =
			(struct hwoff_range_spec){ .start = number, .path = colon + 1 };
	}
	if (hwoff_table_set(r->t, alg, direction, objective, ranges, range_count, err, sizeof(err)))
		return read_error(r, "%s", err);
	r->entry_lines[index] = r->line;
	return 0;
}

/* Split at blanks; a field starting with '#' starts a comment. Returns the count, or -1. */
static int split_fields(char *line, char **fields)
{
	int count = 0;

	for (char *field = strtok(line, " \t\r\n"); field; field = strtok(NULL, " \t\r\n")) {
		if (field[0] == '#')
			break;
		if (count == FIELDS_MAX)
			return -1;
		fields[count++] = field;
	}
	return count;
}

static int read_line(struct reader *r, char *line)
{
	char *fields[FIELDS_MAX];
	int count = split_fields(line, fields);

	if (count < 0)
		return read_error(r, "more than %d ranges", HWOFF_RANGES_MAX);
	if (!count)
		return 0;
	if (strcmp(fields[0], HWOFF_TABLE_MAGIC) == 0)
		return read_header(r, fields, count);
	if (!r->header_seen)
		return read_error(
			r, "missing header: the first line must be '" HWOFF_TABLE_MAGIC " %d'",
			HWOFF_TABLE_VERSION);
	if (strcmp(fields[0], "fingerprint") == 0)
		return read_fingerprint(r, fields, count);
	if (strcmp(fields[0], "proven") == 0)
		return read_proven(r, fields, count);
	return read_entry(r, fields, count);
}

struct hwoff_table *hwoff_table_read(FILE *in, const char *source, char *err, size_t err_len)
{
	struct reader r = { .source = source, .err = err, .err_len = err_len };
	char line[LINE_MAX_CHARS];

	r.t = hwoff_table_new();
	r.entry_lines = calloc(HWOFF_TABLE_ENTRY_COUNT, sizeof(*r.entry_lines));
	if (!r.t || !r.entry_lines) {
		snprintf(err, err_len, "%s: out of memory", source);
		goto fail;
	}
	while (fgets(line, sizeof(line), in)) {
		r.line++;
		if (!strchr(line, '\n') && !feof(in)) {
			read_error(&r, "line longer than %zu characters", sizeof(line) - 2);
			goto fail;
		}
		if (read_line(&r, line))
			goto fail;
	}
	if (ferror(in)) {
		read_error(&r, "read error");
		goto fail;
	}
	if (!r.header_seen) {
		r.line = r.line ? r.line : 1;
		read_error(&r, "missing header: no '" HWOFF_TABLE_MAGIC " %d' line",
			   HWOFF_TABLE_VERSION);
		goto fail;
	}
	free(r.entry_lines);
	return r.t;
fail:
	free(r.entry_lines);
	hwoff_table_free(r.t);
	return NULL;
}

struct hwoff_table *hwoff_table_load(const char *path, char *err, size_t err_len)
{
	FILE *in = fopen(path, "r");
	struct hwoff_table *t;

	if (!in) {
		snprintf(err, err_len, "%s: %s", path, strerror(errno));
		return NULL;
	}
	t = hwoff_table_read(in, path, err, err_len);
	fclose(in);
	return t;
}

/* ---- writing ------------------------------------------------------------------------------ */

static void write_comment(FILE *out, const char *comment)
{
	while (comment && *comment) {
		size_t len = strcspn(comment, "\n");

		fprintf(out, len ? "# %.*s\n" : "#\n", (int)len, comment);
		comment += len;
		if (*comment == '\n')
			comment++;
	}
}

int hwoff_table_write(const struct hwoff_table *t, FILE *out, const char *comment)
{
	const struct hwoff_fingerprint *fp = &t->fingerprint;

	write_comment(out, comment);
	fprintf(out, "%s %d\n", HWOFF_TABLE_MAGIC, HWOFF_TABLE_VERSION);
	if (fp->kernel[0])
		fprintf(out, "fingerprint kernel %s\n", fp->kernel);
	if (fp->cpu[0])
		fprintf(out, "fingerprint cpu %s\n", fp->cpu);
	for (size_t i = 0; i < fp->driver_count; i++)
		fprintf(out, "fingerprint driver %s %s %s\n", fp->drivers[i].driver,
			fp->drivers[i].module, fp->drivers[i].version);
	for (unsigned int i = 0; i < t->proof_count; i++) {
		if (t->proofs[i].bytes == HWOFF_PROVEN_ALL)
			fprintf(out, "proven %s all\n", t->proofs[i].driver);
		else
			fprintf(out, "proven %s %zu\n", t->proofs[i].driver, t->proofs[i].bytes);
	}

	for (size_t index = 0; index < HWOFF_TABLE_ENTRY_COUNT; index++) {
		const struct hwoff_entry *e = &t->entries[index];
		const struct hwoff_alg *alg = hwoff_table_entry_alg(index);
		size_t per_alg = index % (HWOFF_DIRECTION_COUNT * HWOFF_OBJECTIVE_COUNT);

		if (!e->count)
			continue;
		fprintf(out, "%s ", alg->name);
		if (hwoff_alg_is_digest(alg))
			fputs("-", out);
		else
			fprintf(out, "%u", key_bits_of(alg));
		fprintf(out, " %s %s", hwoff_direction_names[per_alg / HWOFF_OBJECTIVE_COUNT],
			hwoff_objective_names[per_alg % HWOFF_OBJECTIVE_COUNT]);
		for (unsigned int i = 0; i < e->count; i++)
			fprintf(out, " %zu:%s", e->ranges[i].start,
				t->paths[e->ranges[i].path].name);
		fputc('\n', out);
	}
	return fflush(out) || ferror(out) ? -1 : 0;
}

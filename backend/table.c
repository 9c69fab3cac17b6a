/*
 * table.c - the path table: the decision, building, reading, writing, checking, fingerprints.
 */
#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <time.h>

#include "backend/table.h"
#include "backend/text.h"

/*
 * hwoff_path.state. "Being marked" lasts while one thread writes the reason and the back-off; it
 * decides as unusable. A failed path is tried again by one request once retry_at has passed
 * (trying), and serves again when that request succeeds.
 */
enum path_state {
	PATH_USABLE,
	PATH_BEING_MARKED,
	PATH_FAILED,
	PATH_TRYING,
	PATH_UNUSABLE, /* for good */
};

#define ENTRY_COUNT    (hwoff_alg_count * HWOFF_DIRECTION_COUNT * HWOFF_OBJECTIVE_COUNT)
#define LINE_MAX_CHARS 4096
#define FIELDS_MAX     (4 + HWOFF_RANGES_MAX + 1) /* one more, to tell "too many ranges" */

static const char *const direction_names[HWOFF_DIRECTION_COUNT] = {
	[HWOFF_ENCRYPT] = "encrypt",
	[HWOFF_DECRYPT] = "decrypt",
	[HWOFF_DIGEST] = "digest",
};

static const char *const objective_names[HWOFF_OBJECTIVE_COUNT] = {
	[HWOFF_THROUGHPUT] = "throughput",
	[HWOFF_CPU] = "cpu",
};

const char *hwoff_direction_name(enum hwoff_direction direction)
{
	return direction < HWOFF_DIRECTION_COUNT ? direction_names[direction] : "?";
}

const char *hwoff_objective_name(enum hwoff_objective objective)
{
	return objective < HWOFF_OBJECTIVE_COUNT ? objective_names[objective] : "?";
}

static size_t entry_index(const struct hwoff_alg *alg, enum hwoff_direction direction,
			  enum hwoff_objective objective)
{
	return (hwoff_alg_index(alg) * HWOFF_DIRECTION_COUNT + direction) * HWOFF_OBJECTIVE_COUNT +
	       objective;
}

static const struct hwoff_alg *alg_of_entry(size_t index)
{
	return &hwoff_algs[index / (HWOFF_DIRECTION_COUNT * HWOFF_OBJECTIVE_COUNT)];
}

static unsigned int key_bits_of(const struct hwoff_alg *alg)
{
	return alg->key_bytes * 8;
}

static bool direction_fits(const struct hwoff_alg *alg, enum hwoff_direction direction)
{
	if (hwoff_alg_is_digest(alg))
		return direction == HWOFF_DIGEST;
	return direction == HWOFF_ENCRYPT || direction == HWOFF_DECRYPT;
}

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/*
 * Whether this request tries a failed path again: its back-off has passed and no other request
 * took this turn. A try that never reports (its context freed first) is taken over by a request
 * one back-off later.
 */
static bool claim_retry(struct hwoff_path *path)
{
	int state = atomic_load_explicit(&path->state, memory_order_acquire);
	uint64_t at, now;

	if (state != PATH_FAILED && state != PATH_TRYING)
		return false;
	at = atomic_load_explicit(&path->retry_at, memory_order_relaxed);
	now = now_ns();
	if (now < at ||
	    !atomic_compare_exchange_strong(&path->retry_at, &at,
					    now + atomic_load(&path->backoff_ns)))
		return false;
	return state == PATH_TRYING ||
	       atomic_compare_exchange_strong(&path->state, &state, PATH_TRYING);
}

struct hwoff_choice hwoff_decide(struct hwoff_table *t, const struct hwoff_alg *alg,
				 enum hwoff_direction direction, size_t size,
				 enum hwoff_objective objective)
{
	struct hwoff_path *software = &t->paths[0];
	const struct hwoff_entry *e;
	struct hwoff_path *path;
	unsigned int i;

	size_t to;

	if (direction >= HWOFF_DIRECTION_COUNT || objective >= HWOFF_OBJECTIVE_COUNT)
		return (struct hwoff_choice){ .path = software, .to = SIZE_MAX };
	e = &t->entries[entry_index(alg, direction, objective)];
	if (!e->count)
		return (struct hwoff_choice){ .path = software, .to = SIZE_MAX };
	/* The starts increase from 0, so the last range starting at or below size holds it. */
	for (i = e->count - 1; i > 0 && size < e->ranges[i].start; i--)
		;
	to = i + 1 < e->count ? e->ranges[i + 1].start : SIZE_MAX;
	path = &t->paths[e->ranges[i].path];
	if (!hwoff_path_usable(path) && !claim_retry(path))
		return (struct hwoff_choice){
			.path = software, .unusable = path, .from = e->ranges[i].start, .to = to
		};
	return (struct hwoff_choice){ .path = path, .from = e->ranges[i].start, .to = to };
}

bool hwoff_path_usable(const struct hwoff_path *path)
{
	return atomic_load_explicit(&path->state, memory_order_acquire) == PATH_USABLE;
}

size_t hwoff_table_next_start(const struct hwoff_table *t, const struct hwoff_alg *alg,
			      enum hwoff_direction direction, size_t size,
			      enum hwoff_objective objective)
{
	const struct hwoff_entry *e;

	if (direction >= HWOFF_DIRECTION_COUNT || objective >= HWOFF_OBJECTIVE_COUNT)
		return SIZE_MAX;
	e = &t->entries[entry_index(alg, direction, objective)];
	for (unsigned int i = 0; i < e->count; i++)
		if (e->ranges[i].start > size)
			return e->ranges[i].start;
	return SIZE_MAX;
}

struct hwoff_table *hwoff_table_new(void)
{
	struct hwoff_table *t = calloc(1, sizeof(*t));

	if (!t)
		return NULL;
	t->entries = calloc(ENTRY_COUNT, sizeof(*t->entries));
	if (!t->entries) {
		free(t);
		return NULL;
	}
	strcpy(t->paths[0].name, HWOFF_SOFTWARE);
	t->paths[0].software = true;
	atomic_init(&t->paths[0].state, PATH_USABLE);
	t->path_count = 1;
	return t;
}

void hwoff_table_free(struct hwoff_table *t)
{
	if (!t)
		return;
	free(t->entries);
	free(t);
}

/* A kernel driver name: letters, digits, - _ . , and balanced parentheses ("cbc(aes-generic)"). */
static bool driver_name_valid(const char *name)
{
	size_t len = strlen(name);
	int depth = 0;

	if (!len || len >= HWOFF_NAME_MAX || !(isalnum((unsigned char)name[0]) || name[0] == '_'))
		return false;
	for (const char *p = name; *p; p++) {
		if (*p == '(')
			depth++;
		else if (*p == ')' && --depth < 0)
			return false;
		else if (*p != ')' && !isalnum((unsigned char)*p) && !strchr("-_.,", *p))
			return false;
	}
	return depth == 0;
}

static int find_path(const struct hwoff_table *t, const char *name)
{
	for (unsigned int p = 0; p < t->path_count; p++)
		if (strcmp(t->paths[p].name, name) == 0)
			return (int)p;
	return -1;
}

static unsigned int intern_path(struct hwoff_table *t, const char *name)
{
	int found = find_path(t, name);
	struct hwoff_path *path;

	if (found >= 0)
		return (unsigned int)found;
	path = &t->paths[t->path_count];
	strcpy(path->name, name);
	path->software = false;
	atomic_init(&path->state, PATH_USABLE);
	return t->path_count++;
}

/* Paths in ranges[] that t does not have yet, each counted once. */
static unsigned int new_path_count(const struct hwoff_table *t,
				   const struct hwoff_range_spec *ranges, unsigned int count)
{
	unsigned int added = 0;

	for (unsigned int i = 0; i < count; i++) {
		bool seen = find_path(t, ranges[i].path) >= 0;

		for (unsigned int j = 0; j < i && !seen; j++)
			seen = strcmp(ranges[j].path, ranges[i].path) == 0;
		added += !seen;
	}
	return added;
}

int hwoff_table_set(struct hwoff_table *t, const struct hwoff_alg *alg,
		    enum hwoff_direction direction, enum hwoff_objective objective,
		    const struct hwoff_range_spec *ranges, unsigned int count, char *err,
		    size_t err_len)
{
	struct hwoff_entry *e;

	if (direction >= HWOFF_DIRECTION_COUNT || !direction_fits(alg, direction)) {
		snprintf(err, err_len, "direction %s does not apply to %s, which takes %s",
			 hwoff_direction_name(direction), alg->name,
			 hwoff_alg_is_digest(alg) ? "digest" : "encrypt or decrypt");
		return -1;
	}
	if (objective >= HWOFF_OBJECTIVE_COUNT) {
		snprintf(err, err_len, "objective %d is none of throughput, cpu", (int)objective);
		return -1;
	}
	if (!count || count > HWOFF_RANGES_MAX) {
		snprintf(err, err_len, "%u ranges: an entry has 1 to %d", count, HWOFF_RANGES_MAX);
		return -1;
	}
	for (unsigned int i = 0; i < count; i++) {
		const struct hwoff_range_spec *r = &ranges[i];

		if (i == 0 && r->start != 0) {
			snprintf(err, err_len, "the first range starts at %zu, not 0", r->start);
			return -1;
		}
		if (i > 0 && r->start <= ranges[i - 1].start) {
			snprintf(err, err_len,
				 "range start %zu does not follow %zu: starts must increase",
				 r->start, ranges[i - 1].start);
			return -1;
		}
		if (r->start > HWOFF_SIZE_LIMIT) {
			snprintf(err, err_len, "range start %zu is past the limit of %lu bytes",
				 r->start, HWOFF_SIZE_LIMIT);
			return -1;
		}
		if (strcmp(r->path, HWOFF_SOFTWARE) != 0 && !driver_name_valid(r->path)) {
			snprintf(err, err_len,
				 "path '%.64s' is neither '" HWOFF_SOFTWARE
				 "' nor a kernel driver name "
				 "(letters, digits, - _ . , and balanced parentheses)",
				 r->path);
			return -1;
		}
	}
	if (t->path_count + new_path_count(t, ranges, count) > HWOFF_PATHS_MAX) {
		snprintf(err, err_len, "more than %d different paths in one table",
			 HWOFF_PATHS_MAX);
		return -1;
	}

	e = &t->entries[entry_index(alg, direction, objective)];
	e->count = count;
	for (unsigned int i = 0; i < count; i++) {
		e->ranges[i].start = ranges[i].start;
		e->ranges[i].path = intern_path(t, ranges[i].path);
	}
	return 0;
}

/* Software below the cut-off, driver from it, for every direction and objective of alg. */
static int set_default_entries(struct hwoff_table *t, const struct hwoff_alg *alg,
			       const char *driver)
{
	const struct hwoff_range_spec ranges[] = {
		{ .start = 0, .path = HWOFF_SOFTWARE },
		{ .start = hwoff_alg_is_digest(alg) ? HWOFF_DEFAULT_DIGEST_CUTOFF
						    : HWOFF_DEFAULT_CIPHER_CUTOFF,
		  .path = driver },
	};
	char err[256];

	for (int dir = 0; dir < HWOFF_DIRECTION_COUNT; dir++) {
		if (!direction_fits(alg, dir))
			continue;
		for (int obj = 0; obj < HWOFF_OBJECTIVE_COUNT; obj++)
			if (hwoff_table_set(t, alg, dir, obj, ranges, 2, err, sizeof(err)))
				return -1;
	}
	return 0;
}

struct hwoff_table *hwoff_table_default(const struct hwoff_discovery *d)
{
	struct hwoff_table *t = hwoff_table_new();

	if (!t || !d)
		return t;
	for (size_t a = 0; a < hwoff_alg_count; a++) {
		const struct hwoff_impl *engine =
			hwoff_discovery_offload_for(d, hwoff_algs[a].kernel_name);

		/*
		 * Setting fails only for a driver name outside TABLE.md's syntax; the algorithm
		 * then stays in software rather than losing the whole table.
		 */
		if (engine)
			set_default_entries(t, &hwoff_algs[a], engine->driver);
	}
	return t;
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
	if (!driver_name_valid(fields[2]))
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
	direction = lookup_name(direction_names, HWOFF_DIRECTION_COUNT, fields[2]);
	if (direction < 0)
		return read_error(r, "bad direction '%.32s': encrypt, decrypt or digest",
				  fields[2]);
	objective = lookup_name(objective_names, HWOFF_OBJECTIVE_COUNT, fields[3]);
	if (objective < 0)
		return read_error(r, "bad objective '%.32s': throughput or cpu", fields[3]);
	if (!direction_fits(alg, direction))
		return read_error(r, "direction %s does not apply to %s, which takes %s", fields[2],
				  alg->name,
				  hwoff_alg_is_digest(alg) ? "digest" : "encrypt or decrypt");
	index = entry_index(alg, direction, objective);
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
	return read_entry(r, fields, count);
}

struct hwoff_table *hwoff_table_read(FILE *in, const char *source, char *err, size_t err_len)
{
	struct reader r = { .source = source, .err = err, .err_len = err_len };
	char line[LINE_MAX_CHARS];

	r.t = hwoff_table_new();
	r.entry_lines = calloc(ENTRY_COUNT, sizeof(*r.entry_lines));
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

	for (size_t index = 0; index < ENTRY_COUNT; index++) {
		const struct hwoff_entry *e = &t->entries[index];
		const struct hwoff_alg *alg = alg_of_entry(index);
		size_t per_alg = index % (HWOFF_DIRECTION_COUNT * HWOFF_OBJECTIVE_COUNT);

		if (!e->count)
			continue;
		fprintf(out, "%s ", alg->name);
		if (hwoff_alg_is_digest(alg))
			fputs("-", out);
		else
			fprintf(out, "%u", key_bits_of(alg));
		fprintf(out, " %s %s", direction_names[per_alg / HWOFF_OBJECTIVE_COUNT],
			objective_names[per_alg % HWOFF_OBJECTIVE_COUNT]);
		for (unsigned int i = 0; i < e->count; i++)
			fprintf(out, " %zu:%s", e->ranges[i].start,
				t->paths[e->ranges[i].path].name);
		fputc('\n', out);
	}
	return fflush(out) || ferror(out) ? -1 : 0;
}

/* ---- run-time state ----------------------------------------------------------------------- */

/* From one of the states from[] to "being marked": whether this thread holds it, and from what. */
static bool take_for_marking(struct hwoff_path *path, const int *from, int count, int *was)
{
	*was = atomic_load_explicit(&path->state, memory_order_acquire);
	if (path->software)
		return false;
	for (int i = 0; i < count; i++)
		if (*was == from[i])
			return atomic_compare_exchange_strong_explicit(
				&path->state, was, PATH_BEING_MARKED, memory_order_acquire,
				memory_order_relaxed);
	return false;
}

bool hwoff_path_mark_unusable(struct hwoff_path *path, const char *reason)
{
	static const int from[] = { PATH_USABLE, PATH_FAILED, PATH_TRYING };
	int was;

	if (!take_for_marking(path, from, 3, &was))
		return false;
	snprintf(path->unusable_reason, sizeof(path->unusable_reason), "%s", reason);
	atomic_store_explicit(&path->state, PATH_UNUSABLE, memory_order_release);
	return true;
}

/*
 * Only a usable path or the request trying a failed one again takes it out of service: the
 * requests that were in flight when it first failed fail too, and must not stretch the back-off.
 */
bool hwoff_path_failed(struct hwoff_path *path, const char *reason, uint64_t backoff_ns)
{
	static const int from[] = { PATH_USABLE, PATH_TRYING };
	uint64_t now, backoff;
	int was;

	if (!take_for_marking(path, from, 2, &was))
		return false;
	now = now_ns();
	backoff = atomic_load_explicit(&path->backoff_ns, memory_order_relaxed) * 2;
	if (was == PATH_USABLE) {
		snprintf(path->unusable_reason, sizeof(path->unusable_reason), "%s", reason);
		path->failed_at = now;
		path->failures_in_row = 0;
		backoff = backoff_ns;
	} else if (backoff > backoff_ns * HWOFF_BACKOFF_GROWTH_MAX) {
		backoff = backoff_ns * HWOFF_BACKOFF_GROWTH_MAX;
	}
	path->failures_in_row++;
	atomic_store_explicit(&path->backoff_ns, backoff, memory_order_relaxed);
	atomic_store_explicit(&path->retry_at, now + backoff, memory_order_relaxed);
	hwoff_count_failure(&path->counters);
	atomic_store_explicit(&path->state, PATH_FAILED, memory_order_release);
	return true;
}

void hwoff_path_served(struct hwoff_path *path)
{
	static const int from[] = { PATH_TRYING };
	int was;

	if (atomic_load_explicit(&path->state, memory_order_relaxed) != PATH_TRYING ||
	    !take_for_marking(path, from, 1, &was))
		return;
	hwoff_count_recovery(&path->counters, now_ns() - path->failed_at);
	path->failures_in_row = 0;
	atomic_store_explicit(&path->state, PATH_USABLE, memory_order_release);
}

const char *hwoff_path_unusable_reason(const struct hwoff_path *path)
{
	switch (atomic_load_explicit(&path->state, memory_order_acquire)) {
	case PATH_USABLE:
		return NULL;
	case PATH_BEING_MARKED:
		return "being marked unusable";
	}
	return path->unusable_reason;
}

long long hwoff_path_retry_in_ms(const struct hwoff_path *path)
{
	int state = atomic_load_explicit(&path->state, memory_order_acquire);
	uint64_t at = atomic_load_explicit(&path->retry_at, memory_order_relaxed), now = now_ns();

	if (state != PATH_FAILED && state != PATH_TRYING)
		return -1;
	return at > now ? (long long)((at - now + 999999) / 1000000) : 0;
}

void hwoff_table_mark_kernel_paths_unusable(struct hwoff_table *t, const char *reason)
{
	for (unsigned int p = 1; p < t->path_count; p++)
		hwoff_path_mark_unusable(&t->paths[p], reason);
}

static void mark_and_warn(struct hwoff_path *path, const char *reason, char *warnings,
			  size_t warnings_len)
{
	hwoff_path_mark_unusable(path, reason);
	hwoff_appendf(warnings, warnings_len, "%s\n", reason);
}

size_t hwoff_table_check_drivers(struct hwoff_table *t, const struct hwoff_discovery *d,
				 char *warnings, size_t warnings_len)
{
	size_t problems = 0;
	char reason[384];

	for (unsigned int p = 1; p < t->path_count; p++) {
		struct hwoff_path *path = &t->paths[p];
		const struct hwoff_impl *impl = hwoff_discovery_find(d, path->name);

		if (!impl) {
			snprintf(reason, sizeof(reason),
				 "the table's driver %s is not in /proc/crypto (not loaded, or its "
				 "self-test did not pass)",
				 path->name);
			mark_and_warn(path, reason, warnings, warnings_len);
			problems++;
			continue;
		}
		for (size_t index = 0; index < ENTRY_COUNT; index++) {
			const struct hwoff_entry *e = &t->entries[index];
			const struct hwoff_alg *alg = alg_of_entry(index);
			bool used = false;

			for (unsigned int i = 0; i < e->count; i++)
				used |= e->ranges[i].path == p;
			if (!used || strcmp(alg->kernel_name, impl->name) == 0)
				continue;
			snprintf(reason, sizeof(reason),
				 "the table sends %s to driver %s, which implements %s, not %s",
				 alg->name, path->name, impl->name, alg->kernel_name);
			mark_and_warn(path, reason, warnings, warnings_len);
			problems++;
			break;
		}
	}
	return problems;
}

/* ---- fingerprints ------------------------------------------------------------------------- */

/* Copy src into dst with each run of blanks made one space and none at either end. */
static void collapse_blanks(char *dst, size_t size, const char *src)
{
	size_t used = 0;

	for (const char *p = src; *p && used + 1 < size; p++) {
		if (isspace((unsigned char)*p)) {
			if (used && !isspace((unsigned char)p[1]) && p[1])
				dst[used++] = ' ';
			continue;
		}
		dst[used++] = *p;
	}
	dst[used] = '\0';
}

/* The first line of a small file, blanks collapsed; false when it cannot be read. */
static bool read_first_line(const char *path, char *buf, size_t size)
{
	FILE *f = fopen(path, "r");
	char line[256];
	bool ok;

	if (!f)
		return false;
	ok = fgets(line, sizeof(line), f) != NULL;
	fclose(f);
	if (ok)
		collapse_blanks(buf, size, line);
	return ok && buf[0];
}

/* x86 says "model name"; many ARM kernels only "Hardware". */
static void read_cpu_model(char *buf, size_t size)
{
	static const char *const keys[] = { "model name", "Hardware" };
	char line[512];

	for (size_t k = 0; k < sizeof(keys) / sizeof(keys[0]); k++) {
		FILE *f = fopen("/proc/cpuinfo", "r");

		if (!f)
			break;
		while (fgets(line, sizeof(line), f)) {
			char *colon = strchr(line, ':');
			size_t key_len = strlen(keys[k]);

			if (colon && strncmp(line, keys[k], key_len) == 0 &&
			    strspn(line + key_len, " \t") == (size_t)(colon - line) - key_len) {
				collapse_blanks(buf, size, colon + 1);
				fclose(f);
				return;
			}
		}
		fclose(f);
	}
	snprintf(buf, size, "unknown");
}

static void read_module_version(const char *module, char *buf, size_t size)
{
	char path[HWOFF_MODULE_NAME_MAX + 32];

	snprintf(path, sizeof(path), "/sys/module/%s/version", module);
	if (read_first_line(path, buf, size))
		return;
	snprintf(path, sizeof(path), "/sys/module/%s/srcversion", module);
	if (read_first_line(path, buf, size))
		return;
	snprintf(buf, size, "-");
}

void hwoff_fingerprint_machine(struct hwoff_fingerprint *fp, const struct hwoff_table *t,
			       const struct hwoff_discovery *d)
{
	struct utsname uts;

	memset(fp, 0, sizeof(*fp));
	snprintf(fp->kernel, sizeof(fp->kernel), "%s", uname(&uts) ? "unknown" : uts.release);
	read_cpu_model(fp->cpu, sizeof(fp->cpu));
	for (unsigned int p = 1; p < t->path_count; p++) {
		const struct hwoff_impl *impl =
			d ? hwoff_discovery_find(d, t->paths[p].name) : NULL;
		struct hwoff_fingerprint_driver *drv;

		if (!impl)
			continue;
		drv = &fp->drivers[fp->driver_count++];
		snprintf(drv->driver, sizeof(drv->driver), "%s", impl->driver);
		snprintf(drv->module, sizeof(drv->module), "%s", impl->module);
		read_module_version(impl->module, drv->version, sizeof(drv->version));
	}
}

static const struct hwoff_fingerprint_driver *fingerprint_driver(const struct hwoff_fingerprint *fp,
								 const char *driver)
{
	for (size_t i = 0; i < fp->driver_count; i++)
		if (strcmp(fp->drivers[i].driver, driver) == 0)
			return &fp->drivers[i];
	return NULL;
}

static size_t compare_field(const char *what, const char *table_value, const char *machine_value,
			    char *warnings, size_t warnings_len)
{
	if (!table_value[0]) {
		hwoff_appendf(warnings, warnings_len,
			      "the table records no %s: it may not have been calibrated here\n",
			      what);
		return 1;
	}
	if (strcmp(table_value, machine_value) == 0)
		return 0;
	hwoff_appendf(warnings, warnings_len,
		      "the table was calibrated on %s '%s', this machine has '%s'\n", what,
		      table_value, machine_value);
	return 1;
}

size_t hwoff_fingerprint_compare(const struct hwoff_fingerprint *table_fp,
				 const struct hwoff_fingerprint *machine_fp, char *warnings,
				 size_t warnings_len)
{
	size_t differences =
		compare_field("kernel", table_fp->kernel, machine_fp->kernel, warnings,
			      warnings_len) +
		compare_field("cpu", table_fp->cpu, machine_fp->cpu, warnings, warnings_len);

	for (size_t i = 0; i < table_fp->driver_count; i++) {
		const struct hwoff_fingerprint_driver *was = &table_fp->drivers[i];
		const struct hwoff_fingerprint_driver *is =
			fingerprint_driver(machine_fp, was->driver);

		if (!is)
			hwoff_appendf(warnings, warnings_len,
				      "the table was calibrated with driver %s (module %s %s), "
				      "which this machine lacks\n",
				      was->driver, was->module, was->version);
		else if (strcmp(is->module, was->module) != 0)
			hwoff_appendf(warnings, warnings_len,
				      "driver %s is in module %s here, the table was calibrated "
				      "with module %s\n",
				      was->driver, is->module, was->module);
		else if (strcmp(is->version, was->version) != 0)
			hwoff_appendf(warnings, warnings_len,
				      "module %s is version %s here, the table was calibrated "
				      "with %s\n",
				      was->module, is->version, was->version);
		else
			continue;
		differences++;
	}
	for (size_t i = 0; i < machine_fp->driver_count; i++) {
		const struct hwoff_fingerprint_driver *is = &machine_fp->drivers[i];

		if (fingerprint_driver(table_fp, is->driver))
			continue;
		hwoff_appendf(warnings, warnings_len,
			      "the table names driver %s (module %s %s here) but records no "
			      "fingerprint for it\n",
			      is->driver, is->module, is->version);
		differences++;
	}
	return differences;
}

void hwoff_table_format_stats(const struct hwoff_table *t, char *buf, size_t size)
{
	for (unsigned int p = 0; p < t->path_count; p++) {
		const struct hwoff_path *path = &t->paths[p];
		const char *reason = hwoff_path_unusable_reason(path);

		long long retry_in = hwoff_path_retry_in_ms(path);

		hwoff_counters_format(buf, size, path->name, &path->counters);
		if (reason && retry_in >= 0)
			hwoff_appendf(buf, size,
				      "%s out of service: %s (%u failures in a row; next try in "
				      "%lld ms)\n",
				      path->name, reason, atomic_load(&path->failures_in_row),
				      retry_in);
		else if (reason)
			hwoff_appendf(buf, size, "%s unusable: %s\n", path->name, reason);
	}
}

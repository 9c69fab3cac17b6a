// SPDX-License-Identifier: Apache-2.0
/*
 * fingerprint.c - what a calibration depends on (kernel, CPU, driver modules): this machine's,
 * and its differences from the one a table records.
 */
#include <ctype.h>
#include <stdio.h>
#include <string.h>
#include <sys/utsname.h>

#include "backend/fingerprint.h"
#include "backend/table.h"
#include "backend/text.h"

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

// SPDX-License-Identifier: Apache-2.0
/*
 * config.c - the provider's configuration: its openssl.cnf section, overridden by the
 * environment.
 *
 *   [hwoffload_sect]                      environment (wins, for tests and one-off runs)
 *   table = FILE                          HWOFFLOAD_TABLE
 *   objective = throughput | cpu          HWOFFLOAD_OBJECTIVE
 *   mode = auto | software | pio | dma    HWOFFLOAD_MODE
 *   fallback = yes | no                   HWOFFLOAD_FALLBACK
 *   retry_ms = MILLISECONDS               HWOFFLOAD_RETRY_MS
 *   algorithms = all | NAME,NAME...       HWOFFLOAD_ALGORITHMS
 *   stats = yes | no                      HWOFFLOAD_STATS
 *   stats_dir = DIRECTORY                 HWOFFLOAD_STATS_DIR
 *
 * A value that is not one of these is an error that names the key and where it came from; the
 * provider then does not load, rather than run with a default the user did not ask for. The
 * environment is read with secure_getenv(): a set-user-ID program ignores it (a table file
 * chosen by whoever runs it is no input for a privileged process).
 */
#define _GNU_SOURCE /* secure_getenv */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <openssl/params.h>

#include "provider/provider.h"

struct setting {
	const char *key;
	const char *env;
	const char *value; /* NULL when not set */
	char origin[64]; /* "environment variable HWOFFLOAD_MODE" or "openssl.cnf" */
};

enum setting_index {
	TABLE,
	OBJECTIVE,
	MODE,
	FALLBACK,
	RETRY_MS,
	ALGORITHMS,
	STATS,
	STATS_DIR,
	SETTING_COUNT
};

static const char *const run_mode_names[] = {
	[HWPROV_RUN_AUTO] = "auto",
	[HWPROV_RUN_SOFTWARE] = "software",
	[HWPROV_RUN_PIO] = "pio",
	[HWPROV_RUN_DMA] = "dma",
};

const char *hwprov_run_mode_name(enum hwprov_run_mode mode)
{
	return run_mode_names[mode];
}

static int bad_value(struct hwprov *prov, const struct setting *s, const char *expected)
{
	HWPROV_RAISE(prov, HWPROV_R_CONFIG, "key '%s' (from %s): '%s' is not %s", s->key, s->origin,
		     s->value, expected);
	return 0;
}

/* The index of value in names[count], case-insensitive; -1 when absent. */
static int choose(const char *value, const char *const *names, int count)
{
	for (int i = 0; i < count; i++)
		if (strcasecmp(value, names[i]) == 0)
			return i;
	return -1;
}

static int read_bool(struct hwprov *prov, const struct setting *s, bool *out)
{
	static const char *const names[] = { "no", "yes", "false", "true", "0", "1", "off", "on" };
	int i;

	if (!s->value)
		return 1;
	i = choose(s->value, names, sizeof(names) / sizeof(names[0]));
	if (i < 0)
		return bad_value(prov, s, "yes or no");
	*out = i % 2;
	return 1;
}

/* A whole number of milliseconds up to HWPROV_RETRY_MS_MAX. */
static int read_milliseconds(struct hwprov *prov, const struct setting *s, unsigned int *out)
{
	unsigned long value;
	char *end;

	if (!s->value)
		return 1;
	errno = 0;
	value = strtoul(s->value, &end, 10);
	if (end == s->value || *end || errno || value > HWPROV_RETRY_MS_MAX || s->value[0] == '-')
		return bad_value(prov, s, "a number of milliseconds from 0 to 3600000");
	*out = (unsigned int)value;
	return 1;
}

/* "all", or names of the algorithm table (any OpenSSL alias) separated by commas or blanks. */
static int read_algorithms(struct hwprov *prov, const struct setting *s, bool *enabled)
{
	const char *separators = ", \t";
	char name[HWOFF_NAME_MAX];
	size_t count = 0;

	if (!s->value || strcasecmp(s->value, "all") == 0) {
		for (size_t a = 0; a < HWOFF_ALG_COUNT; a++)
			enabled[a] = true;
		return 1;
	}
	for (const char *p = s->value + strspn(s->value, separators); *p;
	     p += strspn(p, separators)) {
		size_t len = strcspn(p, separators);
		const struct hwoff_alg *alg;

		snprintf(name, sizeof(name), "%.*s", (int)len, p);
		alg = hwoff_alg_by_name(name);
		if (!alg) {
			HWPROV_RAISE(
				prov, HWPROV_R_CONFIG,
				"key '%s' (from %s): '%s' is not an algorithm hwoffload serves "
				"(hwoffload-info lists them)",
				s->key, s->origin, name);
			return 0;
		}
		enabled[hwoff_alg_index(alg)] = true;
		count++;
		p += len;
	}
	if (!count)
		return bad_value(prov, s, "'all' or a list of algorithm names");
	return 1;
}

/* Each key's value: its environment variable, else the openssl.cnf section, else unset. */
static int gather(struct hwprov *prov, const OSSL_DISPATCH *in, struct setting *settings)
{
	OSSL_FUNC_core_get_params_fn *core_get_params = NULL;
	OSSL_PARAM params[SETTING_COUNT + 1];
	const char *cnf[SETTING_COUNT] = { NULL };

	for (; in->function_id; in++)
		if (in->function_id == OSSL_FUNC_CORE_GET_PARAMS)
			core_get_params = OSSL_FUNC_core_get_params(in);
	for (int i = 0; i < SETTING_COUNT; i++)
		params[i] = OSSL_PARAM_construct_utf8_ptr(settings[i].key, (char **)&cnf[i], 0);
	params[SETTING_COUNT] = OSSL_PARAM_construct_end();
	if (!core_get_params || !core_get_params(prov->handle, params)) {
		HWPROV_RAISE(prov, HWPROV_R_INIT, "the core did not give the configuration");
		return 0;
	}
	for (int i = 0; i < SETTING_COUNT; i++) {
		struct setting *s = &settings[i];
		const char *env = secure_getenv(s->env);

		if (env) {
			s->value = env;
			snprintf(s->origin, sizeof(s->origin), "environment variable %s", s->env);
		} else if (cnf[i]) {
			s->value = cnf[i];
			snprintf(s->origin, sizeof(s->origin),
				 "the provider's openssl.cnf section");
		}
	}
	return 1;
}

int hwprov_config_read(struct hwprov *prov, const OSSL_DISPATCH *in)
{
	static const char *const objectives[] = {
		[HWOFF_THROUGHPUT] = "throughput", [HWOFF_CPU] = "cpu"
	};
	struct setting settings[SETTING_COUNT] = {
		[TABLE] = { "table", "HWOFFLOAD_TABLE" },
		[OBJECTIVE] = { "objective", "HWOFFLOAD_OBJECTIVE" },
		[MODE] = { "mode", "HWOFFLOAD_MODE" },
		[FALLBACK] = { "fallback", "HWOFFLOAD_FALLBACK" },
		[RETRY_MS] = { "retry_ms", "HWOFFLOAD_RETRY_MS" },
		[ALGORITHMS] = { "algorithms", "HWOFFLOAD_ALGORITHMS" },
		[STATS] = { "stats", "HWOFFLOAD_STATS" },
		[STATS_DIR] = { "stats_dir", "HWOFFLOAD_STATS_DIR" },
	};
	struct hwprov_config *c = &prov->config;
	int i;

	*c = (struct hwprov_config){ .objective = HWOFF_THROUGHPUT,
				     .mode = HWPROV_RUN_AUTO,
				     .fallback = true,
				     .retry_ms = HWPROV_RETRY_MS_DEFAULT };
	if (!gather(prov, in, settings))
		return 0;
	if (settings[TABLE].value) {
		if (!settings[TABLE].value[0] || strlen(settings[TABLE].value) >= sizeof(c->table))
			return bad_value(prov, &settings[TABLE], "a file name");
		strcpy(c->table, settings[TABLE].value);
	}
	if (settings[STATS_DIR].value) {
		const char *dir = settings[STATS_DIR].value;

		if (dir[0] != '/' || strlen(dir) >= sizeof(c->stats_dir) - HWPROV_STATS_FILE_MAX)
			return bad_value(prov, &settings[STATS_DIR], "an absolute directory name");
		strcpy(c->stats_dir, dir);
	}
	if (settings[OBJECTIVE].value) {
		i = choose(settings[OBJECTIVE].value, objectives, HWOFF_OBJECTIVE_COUNT);
		if (i < 0)
			return bad_value(prov, &settings[OBJECTIVE], "throughput or cpu");
		c->objective = i;
	}
	if (settings[MODE].value) {
		i = choose(settings[MODE].value, run_mode_names,
			   sizeof(run_mode_names) / sizeof(run_mode_names[0]));
		if (i < 0)
			return bad_value(prov, &settings[MODE], "auto, software, pio or dma");
		c->mode = i;
	}
	return read_bool(prov, &settings[FALLBACK], &c->fallback) &&
	       read_milliseconds(prov, &settings[RETRY_MS], &c->retry_ms) &&
	       read_bool(prov, &settings[STATS], &c->stats) &&
	       read_algorithms(prov, &settings[ALGORITHMS], c->enabled);
}

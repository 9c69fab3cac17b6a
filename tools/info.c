// SPDX-License-Identifier: Apache-2.0
/*
 * info.c - hwoffload-info: what the backend finds on this machine, and table validation.
 *
 * Every line is "KEY: VALUE" with a fixed key, so a check can grep for a key and a user can
 * read it top to bottom: AF_ALG, the kernel's implementations by algorithm with their class,
 * then the path table in use (the default one built from discovery, or --table FILE) with its
 * fingerprint, its paths and its routes. With --table, a table that does not load is reported
 * as FILE:LINE: reason on stderr and the exit status is 1. With --provider, what hwoffload.so
 * reports when loaded here; with --stats, the statistics running processes keep in stats_dir.
 */
#define _GNU_SOURCE /* strerrorname_np, open_memstream */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <time.h>

#include <openssl/conf.h>
#include <openssl/err.h>
#include <openssl/params.h>
#include <openssl/provider.h>

#include "backend/algs.h"
#include "backend/discover.h"
#include "backend/fingerprint.h"
#include "backend/probe.h"
#include "backend/table.h"
#include "backend/table_file.h"

#define WARNINGS_MAX	  4096
#define STATS_DIR_DEFAULT "/run/hwoffload"

static const char *const class_legend =
	"cpu = in the kernel on the CPU (software), engine-auto/-pio/-dma = the bundled "
	"engine's driver choosing by size/always PIO/always DMA, offload = another off-CPU engine";

static void usage(FILE *out)
{
	fprintf(out,
		"usage: hwoffload-info [--table FILE] [--provider DIR] [--stats[=DIR]]\n"
		"Says whether AF_ALG works here and why not, lists the kernel's implementations\n"
		"of the algorithms hwoffload serves with their class, and shows the path table:\n"
		"the one built from them, or FILE, which is validated first (exit status 1 and\n"
		"FILE:LINE: reason when it does not load), each entry in words and as written.\n"
		"With --provider, loads hwoffload.so\n"
		"from DIR with this environment's configuration (HWOFFLOAD_MODE ...) and shows\n"
		"what it reports: AF_ALG, mode, objective, table and its warnings (exit status 1\n"
		"when it does not load). With --stats, shows the statistics that running\n"
		"processes keep in DIR (default " STATS_DIR_DEFAULT ", the provider's stats_dir).\n"
		"Exit status 2 on a usage error.\n");
}

/* AF_ALG as a whole; returns whether it works. */
static bool print_af_alg(struct hwoff_probe *p)
{
	struct utsname uts;

	if (uname(&uts) == 0)
		printf("kernel: %s\n", uts.release);
	if (hwoff_probe_afalg(p) == 0) {
		printf("af_alg: available\n");
		return true;
	}
	printf("af_alg: unavailable\n");
	printf("af_alg-errno: %s\n", strerrorname_np(p->error) ? strerrorname_np(p->error) : "?");
	printf("af_alg-reason: %s\n", p->reason);
	return false;
}

static const struct hwoff_alg *first_alg_of(const char *kernel_name)
{
	for (size_t a = 0; a < HWOFF_ALG_COUNT; a++)
		if (strcmp(hwoff_algs[a].kernel_name, kernel_name) == 0)
			return &hwoff_algs[a];
	return NULL;
}

static void print_implementation(const struct hwoff_impl *impl, bool af_alg)
{
	char reason[HWOFF_PROBE_REASON_MAX];
	const char *reach = "unavailable";
	int bind_error;

	/* Whether AF_ALG hands this very driver out (Linux 7.2+ refuses off-CPU ones). */
	if (impl->device) {
		reach = "device";
	} else if (af_alg) {
		bind_error = hwoff_probe_alg(first_alg_of(impl->name), impl->driver, reason,
					     sizeof(reason));
		reach = bind_error ? "refused" : "ok";
	}
	printf("implementation: %s %s class=%s priority=%d module=%s type=%s async=%s "
	       "binds-device=%s kern-driver-only=%s af_alg=%s\n",
	       impl->name, impl->driver, hwoff_impl_class_name(impl->class), impl->priority,
	       impl->module, impl->type[0] ? impl->type : "?", impl->async ? "yes" : "no",
	       impl->binds_device ? "yes" : "no",
	       !impl->kernel_flags_known		     ? "unknown"
	       : impl->kernel_flags & HWOFF_KERN_DRIVER_ONLY ? "yes"
							     : "no",
	       reach);
	if (strcmp(reach, "refused") == 0)
		printf("implementation-reason: %s: %s\n", impl->driver, reason);
}

/* Each kernel algorithm once (cbc(aes) serves three rows), with its implementations. */
static void print_implementations(const struct hwoff_discovery *d, bool af_alg)
{
	printf("classes: %s\n", class_legend);
	for (size_t a = 0; a < HWOFF_ALG_COUNT; a++) {
		const char *kernel_name = hwoff_algs[a].kernel_name;
		const struct hwoff_impl *offload = hwoff_discovery_offload_for(d, kernel_name);
		const struct hwoff_impl *picked = NULL;
		size_t count = 0;

		if (first_alg_of(kernel_name) != &hwoff_algs[a])
			continue;
		/*
		 * What a kernel user asking by name (kernel TLS, IPsec, dm-crypt) gets: the highest
		 * priority of those registered; only when none is does the kernel build one from
		 * its templates ("template").
		 */
		for (size_t i = 0; i < d->count; i++) {
			if (strcmp(d->impls[i].name, kernel_name) != 0)
				continue;
			count++;
			if (!picked || d->impls[i].priority > picked->priority)
				picked = &d->impls[i];
		}
		printf("kernel-algorithm: %s serves=%s", kernel_name, hwoff_algs[a].name);
		for (size_t b = a + 1; b < HWOFF_ALG_COUNT; b++)
			if (strcmp(hwoff_algs[b].kernel_name, kernel_name) == 0)
				printf(",%s", hwoff_algs[b].name);
		printf(" implementations=%zu offload=%s kernel-picks=%s\n", count,
		       offload ? offload->driver : "none", picked ? picked->driver : "template");
		for (size_t i = 0; i < d->count; i++)
			if (strcmp(d->impls[i].name, kernel_name) == 0)
				print_implementation(&d->impls[i], af_alg);
	}
}

/*
 * Kernel TLS: whether the kernel's tls module is there (/proc/net/tls_stat), and its counts of
 * connections whose records the kernel encrypts or decrypts itself (tls_sw: with the gcm(aes)
 * of kernel-picks), now and since it loaded.
 */
static void print_ktls(void)
{
	static const char *const keys[] = { "TlsCurrTxSw", "TlsCurrRxSw", "TlsTxSw", "TlsRxSw" };
	FILE *f = fopen("/proc/net/tls_stat", "r");
	char key[64];
	unsigned long long value;

	if (!f) {
		printf("ktls: unavailable: no /proc/net/tls_stat (the kernel's tls module is not "
		       "loaded: modprobe tls)\n");
		return;
	}
	printf("ktls: available");
	while (fscanf(f, "%63s %llu", key, &value) == 2)
		for (size_t i = 0; i < sizeof(keys) / sizeof(keys[0]); i++)
			if (strcmp(key, keys[i]) == 0)
				printf(" %s=%llu", key, value);
	printf("\n");
	fclose(f);
}

/* Every line of text as "KEY: line". */
static void print_lines(const char *key, const char *text)
{
	while (*text) {
		size_t len = strcspn(text, "\n");

		if (len)
			printf("%s: %.*s\n", key, (int)len, text);
		text += len;
		if (*text)
			text++;
	}
}

/* The table's entries as the file format writes them: one "KEY: ENTRY" line each. */
static int print_entries(const struct hwoff_table *t, const char *key, size_t *count)
{
	char *text = NULL, *line, *save = NULL;
	size_t size = 0;
	FILE *mem = open_memstream(&text, &size);

	if (!mem || hwoff_table_write(t, mem, NULL)) {
		if (mem)
			fclose(mem);
		free(text);
		fprintf(stderr, "hwoffload-info: out of memory\n");
		return -1;
	}
	fclose(mem);
	*count = 0;
	for (line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		if (strncmp(line, HWOFF_TABLE_MAGIC " ", strlen(HWOFF_TABLE_MAGIC) + 1) == 0 ||
		    strncmp(line, "fingerprint ", 12) == 0)
			continue;
		if (strncmp(line, "proven ", 7) == 0) {
			printf("proof: %s\n", line + 7);
			continue;
		}
		printf("%s: %s\n", key, line);
		(*count)++;
	}
	free(text);
	return 0;
}

/* A path as a person names it: the bundled engine's drivers by their path, others by name. */
static const char *path_label(const struct hwoff_path *path, const struct hwoff_discovery *d)
{
	if (path->software)
		return HWOFF_SOFTWARE;
	for (size_t i = 0; d && i < d->count; i++) {
		if (strcmp(d->impls[i].driver, path->name) != 0)
			continue;
		if (d->impls[i].class == HWOFF_IMPL_ENGINE_PIO)
			return "PIO";
		if (d->impls[i].class == HWOFF_IMPL_ENGINE_DMA)
			return "DMA";
		if (d->impls[i].class == HWOFF_IMPL_ENGINE_AUTO)
			return "the engine";
	}
	return path->name;
}

/*
 * Each entry in words, for a person to read first: "table-summary: AES-128-CBC encrypt
 * (throughput): software up to 2895 B, PIO to 46335 B, DMA beyond".
 */
static void print_summary(const struct hwoff_table *t, const struct hwoff_discovery *d)
{
	for (size_t i = 0; i < HWOFF_TABLE_ENTRY_COUNT; i++) {
		const struct hwoff_entry *e = &t->entries[i];

		if (!e->count)
			continue;
		printf("table-summary: %s %s (%s):", hwoff_table_entry_alg(i)->name,
		       hwoff_direction_name(i / HWOFF_OBJECTIVE_COUNT % HWOFF_DIRECTION_COUNT),
		       hwoff_objective_name(i % HWOFF_OBJECTIVE_COUNT));
		for (unsigned int r = 0; r < e->count; r++) {
			const char *label = path_label(&t->paths[e->ranges[r].path], d);

			if (e->count == 1)
				printf(" %s at every size", label);
			else if (r == 0)
				printf(" %s up to %zu B", label, e->ranges[1].start - 1);
			else if (r + 1 < e->count)
				printf(", %s to %zu B", label, e->ranges[r + 1].start - 1);
			else
				printf(", %s beyond", label);
		}
		printf("\n");
	}
}

static int print_table(struct hwoff_table *t, const char *file, const struct hwoff_discovery *d,
		       bool af_alg, const char *probe_reason)
{
	char *warnings = calloc(1, WARNINGS_MAX);
	struct hwoff_fingerprint machine;
	size_t differences, routes = 0;
	int ret = 0;

	if (!warnings) {
		fprintf(stderr, "hwoffload-info: out of memory\n");
		return -1;
	}
	if (file) {
		printf("table: %s\n", file);
		hwoff_fingerprint_machine(&machine, t, d);
		differences = hwoff_fingerprint_compare(&t->fingerprint, &machine, warnings,
							WARNINGS_MAX);
		if (differences)
			printf("table-fingerprint: differs (%zu)\n", differences);
		else
			printf("table-fingerprint: matches this machine\n");
		print_lines("table-fingerprint-warning", warnings);
	} else {
		printf("table: default\n");
		printf("table-source: built from discovery: software below %d bytes (AES) and %d "
		       "bytes (digests), the engine driver from there; software where there is "
		       "none\n",
		       HWOFF_DEFAULT_CIPHER_CUTOFF, HWOFF_DEFAULT_DIGEST_CUTOFF);
		printf("table-fingerprint: not applicable (built on this machine)\n");
	}
	if (d) {
		warnings[0] = '\0';
		hwoff_table_check_drivers(t, d, warnings, WARNINGS_MAX);
		print_lines("table-driver-warning", warnings);
	}
	if (!af_alg && d && hwoff_discovery_has_device(d)) {
		warnings[0] = '\0';
		hwoff_table_afalg_paths_to_software(t, probe_reason, warnings, WARNINGS_MAX);
		print_lines("table-driver-warning", warnings);
	} else if (!af_alg) {
		hwoff_table_mark_afalg_paths_unusable(t, probe_reason);
	}
	for (unsigned int p = 0; p < t->path_count; p++) {
		const char *unusable = hwoff_path_unusable_reason(&t->paths[p]);

		if (unusable)
			printf("path: %s unusable: %s\n", t->paths[p].name, unusable);
		else
			printf("path: %s usable\n", t->paths[p].name);
	}
	print_summary(t, d);
	/*
	 * As the provider does: without AF_ALG and the engine's device the table is not used,
	 * software is the route.
	 */
	if (!af_alg && !(d && hwoff_discovery_has_device(d))) {
		ret = print_entries(t, "table-entry", &routes);
		if (routes)
			printf("table-not-used: its entries above are not used, as AF_ALG is "
			       "unusable here\n");
		printf("route: none: every request goes to software, as AF_ALG is unusable here: "
		       "%s\n",
		       probe_reason);
	} else if (!(ret = print_entries(t, "route", &routes))) {
		printf(routes ? "route: anything else: software\n"
			      : "route: none: every request goes to software\n");
	}
	free(warnings);
	return ret;
}

/* "PREFIX-KEY: VALUE" for each parameter a loaded hwoffload reports. */
static void print_provider_params(OSSL_PROVIDER *prov, const char *prefix)
{
	static const char *const keys[] = { "name",
					    "version",
					    "hwoffload-af-alg",
					    "hwoffload-af-alg-reason",
					    "hwoffload-mode",
					    "hwoffload-objective",
					    "hwoffload-table",
					    "hwoffload-table-warnings",
					    "hwoffload-statistics-file" };

	for (size_t i = 0; i < sizeof(keys) / sizeof(keys[0]); i++) {
		const char *value = NULL;
		OSSL_PARAM p[] = { OSSL_PARAM_utf8_ptr(keys[i], (char **)&value, 0),
				   OSSL_PARAM_END };

		if (OSSL_PROVIDER_get_params(prov, p) && value)
			printf("%s-%s: %s\n", prefix, keys[i], value[0] ? value : "-");
	}
}

/* "PREFIX-error: TEXT" for each error queued, emptying the queue. */
static void print_errors(const char *prefix)
{
	unsigned long code;
	const char *data;
	int flags;

	while ((code = ERR_get_error_all(NULL, NULL, NULL, &data, &flags)))
		printf("%s-error: %s\n", prefix,
		       (flags & ERR_TXT_STRING) ? data : ERR_reason_error_string(code));
}

/*
 * What the provider itself reports when loaded from dir (NULL: OpenSSL's modules directory) with
 * this environment's configuration (HWOFFLOAD_MODE ...): AF_ALG as it sees it, its mode and
 * objective, the table it uses and the table's warnings, as "PREFIX-KEY: VALUE" lines, or why it
 * does not load. Returns whether it loaded.
 */
static bool print_provider(const char *dir, const char *prefix)
{
	OSSL_LIB_CTX *libctx = OSSL_LIB_CTX_new();
	OSSL_PROVIDER *prov = NULL;

	if (libctx && OSSL_PROVIDER_set_default_search_path(libctx, dir))
		prov = OSSL_PROVIDER_load(libctx, "hwoffload");
	if (!prov) {
		printf("%s: does not load from %s\n", prefix, dir ? dir : "the modules directory");
		print_errors(prefix);
	} else {
		printf("%s: loaded from %s\n", prefix, dir ? dir : "the modules directory");
		print_provider_params(prov, prefix);
		OSSL_PROVIDER_unload(prov);
	}
	OSSL_LIB_CTX_free(libctx);
	return prov != NULL;
}

/* The section of conf that configures hwoffload (in its openssl_conf's providers), or NULL. */
static const char *hwoffload_section(const CONF *conf)
{
	const char *init, *providers, *section = NULL;

	ERR_set_mark(); /* a name that is not there raises an error */
	init = NCONF_get_string(conf, NULL, "openssl_conf");
	providers = init ? NCONF_get_string(conf, init, "providers") : NULL;
	if (providers)
		section = NCONF_get_string(conf, providers, "hwoffload");
	ERR_pop_to_mark();
	return section;
}

/* The environment variable of a configuration key: HWOFFLOAD_ and the key in capitals. */
static const char *key_variable(const char *key, char *buf, size_t size)
{
	snprintf(buf, size, "HWOFFLOAD_%s", key);
	for (char *c = buf; *c; c++)
		*c = (char)toupper((unsigned char)*c);
	return buf;
}

/*
 * Why the configuration's hwoffload did not load, where OpenSSL says nothing (3.0 leaves a
 * provider out when its init fails, and applications run without it): loaded here from the
 * section's module directory with the section's keys given as their environment variables
 * (HWOFFLOAD_ and the key in capitals), which the provider reads first.
 */
static void print_why_not_loaded(const CONF *conf, const char *section)
{
	STACK_OF(CONF_VALUE) *values = NCONF_get_section(conf, section);
	char dir[PATH_MAX] = "", env[64];

	printf("config-hwoffload: named in [%s] but not loaded (applications run without it); "
	       "loaded here with that section's keys:\n",
	       section);
	for (int i = 0; i < sk_CONF_VALUE_num(values); i++) {
		const CONF_VALUE *v = sk_CONF_VALUE_value(values, i);
		size_t n;

		if (strcmp(v->name, "module") == 0 && strrchr(v->value, '/')) {
			n = (size_t)(strrchr(v->value, '/') - v->value);
			snprintf(dir, sizeof(dir), "%.*s", (int)n, v->value);
		} else if (strcmp(v->name, "activate") != 0) {
			setenv(key_variable(v->name, env, sizeof(env)), v->value, 1);
		}
	}
	print_provider(dir[0] ? dir : NULL, "config");
	for (int i = 0; i < sk_CONF_VALUE_num(values); i++)
		unsetenv(key_variable(sk_CONF_VALUE_value(values, i)->name, env, sizeof(env)));
}

static int find_hwoffload(OSSL_PROVIDER *prov, void *found)
{
	if (strcmp(OSSL_PROVIDER_get0_name(prov), "hwoffload") != 0)
		return 1;
	*(OSSL_PROVIDER **)found = prov;
	return 0;
}

/*
 * hwoffload as this machine's OpenSSL configuration gives it to every application
 * (OPENSSL_CONF, else OpenSSL's openssl.cnf), with its section's keys: whether it loads, its
 * mode, the table in force and whether that was learnt here (its warnings). Returns false when
 * the configuration does not load (as when it activates hwoffload and hwoffload does not load).
 */
static bool print_configured(void)
{
	char *file = CONF_get1_default_config_file();
	OSSL_LIB_CTX *libctx = OSSL_LIB_CTX_new();
	CONF *conf = NCONF_new(NULL);
	OSSL_PROVIDER *prov = NULL;
	const char *section;
	bool ok = true;

	printf("config: %s\n", file ? file : "?");
	if (!libctx || !file || !conf || NCONF_load(conf, file, NULL) <= 0 ||
	    !OSSL_LIB_CTX_load_config(libctx, file)) {
		printf("config-hwoffload: the configuration does not load\n");
		print_errors("config");
		ok = false;
	} else {
		OSSL_PROVIDER_do_all(libctx, find_hwoffload, &prov);
		if (prov) {
			printf("config-hwoffload: loaded\n");
			print_provider_params(prov, "config");
		} else if ((section = hwoffload_section(conf))) {
			print_why_not_loaded(conf, section);
			ok = false;
		} else {
			printf("config-hwoffload: not loaded (applications use OpenSSL's own "
			       "implementations)\n");
		}
	}
	NCONF_free(conf);
	OSSL_LIB_CTX_free(libctx);
	OPENSSL_free(file);
	return ok;
}

/* The command name of process pid, or "gone" when there is none (kill(): EPERM is alive). */
static bool process_name(pid_t pid, char *buf, size_t size)
{
	char path[64];
	FILE *f;

	snprintf(buf, size, "?");
	if (kill(pid, 0) && errno == ESRCH)
		return false;
	snprintf(path, sizeof(path), "/proc/%d/comm", (int)pid);
	f = fopen(path, "r");
	if (f) {
		if (fgets(buf, (int)size, f))
			buf[strcspn(buf, "\n")] = '\0';
		fclose(f);
	}
	return true;
}

/*
 * The statistics files that providers loaded with stats_dir = dir keep up to date
 * (hwoffload.PID.INSTANCE, rewritten at most once a second while requests flow, removed at
 * unload): a process's header and a line per path. A file whose process is gone is named as left
 * behind. Returns false when dir cannot be read.
 */
static bool print_statistics(const char *dir)
{
	struct dirent **names;
	int n = scandir(dir, &names, NULL, alphasort), shown = 0;

	printf("statistics-dir: %s\n", dir);
	if (n < 0) {
		printf("statistics-process: none: %s cannot be read: %s\n", dir, strerror(errno));
		return false;
	}
	for (int i = 0; i < n; i++) {
		char path[PATH_MAX], comm[64], line[1024];
		unsigned int instance;
		struct timespec now;
		struct stat st;
		int pid, end = 0;
		FILE *f;

		if (sscanf(names[i]->d_name, "hwoffload.%d.%u%n", &pid, &instance, &end) != 2 ||
		    names[i]->d_name[end] || pid <= 0)
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, names[i]->d_name);
		shown++;
		if (!process_name(pid, comm, sizeof(comm))) {
			printf("statistics-process: %d gone (%s left behind: the process ended "
			       "without unloading hwoffload)\n",
			       pid, path);
			continue;
		}
		f = fopen(path, "r");
		if (!f || fstat(fileno(f), &st)) {
			printf("statistics-process: %d %s (%s: %s)\n", pid, comm, path,
			       strerror(errno));
			if (f)
				fclose(f);
			continue;
		}
		clock_gettime(CLOCK_REALTIME, &now);
		printf("statistics-process: %d %s (%s, written %.1f s ago)\n", pid, comm, path,
		       (double)(now.tv_sec - st.st_mtim.tv_sec) +
			       (now.tv_nsec - st.st_mtim.tv_nsec) / 1e9);
		for (bool first = true; fgets(line, sizeof(line), f); first = false)
			printf("statistics-%s: %s", first ? "provider" : "path", line);
		fclose(f);
	}
	for (int i = 0; i < n; i++)
		free(names[i]);
	free(names);
	if (!shown)
		printf("statistics-process: none (no process keeps its statistics here: set "
		       "stats_dir = %s in hwoffload's openssl.cnf section)\n",
		       dir);
	return true;
}

int main(int argc, char **argv)
{
	static const struct option options[] = {
		{ "table", required_argument, NULL, 't' },
		{ "provider", required_argument, NULL, 'p' },
		{ "stats", optional_argument, NULL, 's' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	static struct hwoff_discovery discovery;
	struct hwoff_discovery *d = &discovery;
	struct hwoff_probe probe = { 0 };
	struct hwoff_table *t = NULL; /* set whether or not a file is given; GCC -O1 cannot tell */
	const char *file = NULL, *provider_dir = NULL, *stats_dir = NULL;
	char err[512];
	bool af_alg;
	int opt, ret;

	while ((opt = getopt_long(argc, argv, "t:p:s::h", options, NULL)) != -1) {
		if (opt == 't') {
			file = optarg;
		} else if (opt == 'p') {
			provider_dir = optarg;
		} else if (opt == 's') {
			stats_dir = optarg ? optarg : STATS_DIR_DEFAULT;
		} else if (opt == 'h') {
			usage(stdout);
			return 0;
		} else {
			usage(stderr);
			return 2;
		}
	}
	if (optind < argc) {
		fprintf(stderr, "hwoffload-info: unexpected argument '%s'\n", argv[optind]);
		usage(stderr);
		return 2;
	}
	/* A table that does not load is the answer: nothing else is printed. */
	if (file) {
		t = hwoff_table_load(file, err, sizeof(err));
		if (!t) {
			fprintf(stderr, "%s\n", err);
			return 1;
		}
	}

	af_alg = print_af_alg(&probe);
	if (hwoff_discover(d, err, sizeof(err))) {
		printf("discovery: failed: %s\n", err);
		d = NULL;
	} else {
		printf("discovery: /proc/crypto, %zu implementations (left out: %zu internal, %zu "
		       "without a passed self-test)\n",
		       d->count, d->skipped_internal, d->skipped_not_passed);
		printf("discovery-basis: %s\n", d->basis);
		print_implementations(d, af_alg);
	}
	/*
	 * As the provider (routes.c): where AF_ALG is closed, only the engine's device reaches; the
	 * built-in table is made of its paths, a table file's AF_ALG paths go to software.
	 */
	if (!af_alg && d && hwoff_discovery_has_device(d)) {
		printf("af_alg-consequence: the engine's own device serves what it offers, the rest "
		       "is served in software\n");
		if (!file)
			hwoff_discovery_keep_device(d);
	} else if (!af_alg) {
		printf("af_alg-consequence: every request is served in software\n");
	}
	print_ktls();
	if (!file) {
		t = hwoff_table_default(d);
		if (!t) {
			fprintf(stderr, "hwoffload-info: out of memory\n");
			return 1;
		}
	}
	ret = print_table(t, file, d, af_alg, probe.reason);
	hwoff_table_free(t);
	if (!print_configured())
		ret = 1;
	if (provider_dir && !print_provider(provider_dir, "provider"))
		ret = 1;
	if (stats_dir && !print_statistics(stats_dir))
		ret = 1;
	return ret ? 1 : 0;
}

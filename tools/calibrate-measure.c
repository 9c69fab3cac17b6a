// SPDX-License-Identifier: Apache-2.0
/*
 * calibrate-measure.c - what to measure: the paths of each algorithm, their workers, the grid of
 * sizes and the bisection of the crossovers; the samples at one size are calibrate-sample.c's,
 * the verification of the learnt table calibrate-verify.c's.
 *
 * A worker that does not answer in time is abandoned: a request stuck in the kernel,
 * uninterruptibly, so that no signal ends it (QEMU's virtio-crypto was seen stuck in
 * skcipher_recvmsg from 128 KiB on, and afterwards every setkey on that device waited for
 * ever), stays with the worker, which is killed and left to the kernel; every driver of that
 * device (its module) is dropped for the rest of the run, keeping the sizes it was measured at
 * below, and the calibration goes on. The provider reaches another vendor's engine through its
 * guard (backend/guard.h), whose limit is shorter than the worker's: what the guard finds stuck
 * counts as no answer, with the guard's reason.
 *
 * Before a path is measured at a size its worker checks its output there against the default
 * provider's, and that the path took the request: a driver that is wrong there serves only up
 * to the largest size it was measured at below, and the derivation keeps its ranges below that.
 */
#include <errno.h>
#include <math.h>
#include <openssl/rand.h>
#include <stdlib.h>
#include <string.h>

#include "backend/fingerprint.h"
#include "backend/probe.h"
#include "backend/text.h"
#include "tools/calibrate-measure.h"

/* The software tiers of the bundled engine's auto drivers: "NAME DRIVER" lines (the driver's). */
#define CAL_SOFTWARE_TIERS "/sys/kernel/debug/hwoffload/software"

/* The time limit of a command that moves bytes (see CAL_ANSWER_SECONDS). */
double cal_answer_seconds(double bytes)
{
	return CAL_ANSWER_SECONDS + CAL_SECONDS_PER_MIB * bytes / (1 << 20);
}

/* What a driver's device is known by: its module, or for a built-in driver the driver itself. */
static const char *device_of(const struct cal_path *path)
{
	return path->module[0] && strcmp(path->module, "kernel") ? path->module : path->name;
}

void cal_fail_path(struct cal_measurement *m, unsigned int p, const char *why)
{
	struct cal_path *path = &m->s->paths[p];

	path->failed = true;
	snprintf(path->failure, sizeof(path->failure), "%s", why);
	cal_worker_end(&m->workers[p], false, CAL_STOP_SECONDS);
	hwoff_appendf(m->run->notes, sizeof(m->run->notes), "dropped %s for %s %s: %s\n",
		      path->name, m->s->alg->name, hwoff_direction_name(m->s->direction), why);
}

/*
 * Path p failed at size: it serves only up to the largest size below that it was measured at,
 * and its figures above that are forgotten; one measured at no smaller size is dropped.
 */
static void limit_below(struct cal_measurement *m, unsigned int p, size_t size, const char *why)
{
	struct cal_subject *s = m->s;
	struct cal_path *path = &s->paths[p];
	size_t below = 0;

	for (size_t i = 0; i < s->point_count; i++)
		if (s->points[i].size < size && s->points[i].bytes_per_s[p] > 0)
			below = s->points[i].size;
	if (!below) {
		cal_fail_path(m, p, why);
		return;
	}
	for (size_t i = 0; i < s->point_count; i++)
		if (s->points[i].size > below)
			cal_point_forget(&s->points[i], p);
	path->verified = below;
	path->limited = true;
	path->serves_all = false;
	hwoff_appendf(m->run->limits, sizeof(m->run->limits),
		      "%s serves %s %s up to %zu bytes only: %s\n", path->name, s->alg->name,
		      hwoff_direction_name(s->direction), below, why);
}

/*
 * Kernel path p did not answer at size (0: while setting up), for reason (worker_answer()): its
 * worker is killed, its device is taken as wedged, and every driver of it keeps the sizes below
 * it was measured at in this subject (limit_below()) and is left out of the later ones
 * (add_paths()).
 */
void cal_wedged(struct cal_measurement *m, unsigned int p, size_t size, const char *reason)
{
	struct cal_subject *s = m->s;
	char why[HWOFF_TRANSPORT_ERROR_MAX + 64];
	const char *device = device_of(&s->paths[p]);

	cal_worker_end(&m->workers[p], true, CAL_KILLED_SECONDS);
	if (size)
		snprintf(why, sizeof(why), "at %zu bytes: %s", size, reason);
	else
		snprintf(why, sizeof(why), "binding and setting a key: %s", reason);
	hwoff_appendf(m->run->notes, sizeof(m->run->notes),
		      "%s stopped answering (%s %s): %s; killed and left to the kernel; the device "
		      "may stay wedged until reboot: the drivers of %s are dropped from here on\n",
		      s->paths[p].name, s->alg->name, hwoff_direction_name(s->direction), why,
		      device);
	if (m->wedged_count < HWOFF_IMPLS_MAX)
		snprintf(m->wedged[m->wedged_count++], sizeof(m->wedged[0]), "%s", device);
	for (unsigned int q = 1; q < s->path_count; q++) {
		if (s->paths[q].failed || strcmp(device_of(&s->paths[q]), device) != 0)
			continue;
		cal_worker_end(&m->workers[q], true, CAL_KILLED_SECONDS);
		limit_below(m, q, size, q == p ? why : "its device stopped answering");
	}
}

static bool is_wedged(const struct cal_measurement *m, const struct cal_path *path)
{
	for (size_t i = 0; i < m->wedged_count; i++)
		if (strcmp(m->wedged[i], device_of(path)) == 0)
			return true;
	return false;
}

/* Whether path p may be measured at size: not failed, not limited below it, its worker there. */
bool cal_measurable(const struct cal_measurement *m, unsigned int p, size_t size)
{
	const struct cal_path *path = &m->s->paths[p];

	return !path->failed && !(path->limited && size > path->verified) && m->workers[p].pid;
}

/*
 * Check path p at size before it is measured there, by its worker (CAL_CHECK). A path that fails
 * its first check is dropped; one that fails later serves only up to the largest size it was
 * measured at below (limit_below()); one that does not answer cal_wedged() its device. Returns
 * whether p may be measured at size.
 */
bool cal_verify_path(struct cal_measurement *m, unsigned int p, size_t size)
{
	struct cal_path *path = &m->s->paths[p];
	double seconds =
		cal_answer_seconds(2.0 * size); /* the default provider's pass and the path's */
	struct cal_answer a;

	if (cal_worker_ask(&m->workers[p], CAL_CHECK, size, 0, &a, seconds)) {
		cal_wedged(m, p, size, a.err);
		return false;
	}
	if (a.status) {
		limit_below(m, p, size, a.err);
		return false;
	}
	if (size > path->verified)
		path->verified = size;
	if (!path->limited && size >= m->workers[p].request_max)
		path->serves_all = true;
	return true;
}

/* A derivation the bisection refines: an objective over some paths. */
struct view {
	cal_mask mask;
	enum hwoff_objective objective;
};

/*
 * The sizes of the views' crossovers are known to within cfg->resolve_ratio: find two adjacent
 * points with different winners further apart and measure between them, until none is left.
 */
static void bisect(struct cal_measurement *m, const struct view *views, unsigned int view_count)
{
	struct cal_subject *s = m->s;
	bool found = true;

	while (found && s->point_count < CAL_POINTS_MAX) {
		found = false;
		for (unsigned int v = 0; v < view_count && !found; v++) {
			int previous = -1;

			for (size_t i = 0; i < s->point_count && !found; i++) {
				int w = cal_winner(&s->points[i], views[v].mask & cal_usable(s),
						   views[v].objective, m->cfg->tie, previous);
				size_t lo = i ? s->points[i - 1].size : 0, hi = s->points[i].size;
				size_t mid = (size_t)sqrt((double)lo * hi);

				mid -= mid % CAL_STEP;
				if (i && w != previous && w >= 0 && previous >= 0 &&
				    hi > lo * m->cfg->resolve_ratio && mid > lo && mid < hi) {
					cal_measure_size(m, mid, "bisect", NULL);
					found = true;
				}
				previous = w;
			}
		}
	}
}

/*
 * The most data one GCM message of the kernel's takes (in steps of the grid): the grid is
 * measured there too, so that a kernel path's ranges reach up to its limit, not to the grid's
 * size below it. SIZE_MAX for the other algorithms, whose requests go in pieces.
 */
static size_t message_max(const struct cal_subject *s)
{
	size_t max = cal_gcm_data_max();

	return hwoff_alg_is_aead(s->alg) ? max - max % CAL_STEP : SIZE_MAX;
}

/*
 * The path table of path p's worker: every size of the subject to that path, for both
 * objectives; for the learnt entry's verification (a table path) the subject's ranges. Each
 * kernel driver named is proven for every size: the calibration checks each size on it before
 * it sends it there. With this machine's fingerprint, so that the provider has nothing to warn
 * of. NULL when out of memory or refused (why in err).
 */
static struct hwoff_table *worker_table(const struct cal_measurement *m, unsigned int p, char *err,
					size_t err_len)
{
	const struct cal_subject *s = m->s;
	struct hwoff_table *t = hwoff_table_new();

	for (int o = 0; t && o < HWOFF_OBJECTIVE_COUNT; o++) {
		struct hwoff_range_spec specs[HWOFF_RANGES_MAX] = { { .path = s->paths[p].name } };
		unsigned int count = 1;

		if (s->paths[p].table) {
			count = s->ranges[o].count;
			for (unsigned int k = 0; k < count; k++)
				specs[k] = (struct hwoff_range_spec){
					.start = s->ranges[o].r[k].start,
					.path = s->paths[s->ranges[o].r[k].path].name
				};
		}
		if (count &&
		    hwoff_table_set(t, s->alg, s->direction, o, specs, count, err, err_len)) {
			hwoff_table_free(t);
			return NULL;
		}
	}
	for (unsigned int q = 0; t && q < s->path_count; q++) {
		const char *driver = s->paths[q].name;

		if (s->paths[q].software || s->paths[q].table || (q != p && !s->paths[p].table) ||
		    hwoff_table_proven(t, driver))
			continue;
		if (hwoff_table_set_proven(t, driver, HWOFF_PROVEN_ALL, err, err_len)) {
			hwoff_table_free(t);
			return NULL;
		}
	}
	if (t)
		hwoff_fingerprint_machine(&t->fingerprint, t, &m->run->discovery);
	else
		snprintf(err, err_len, "out of memory");
	return t;
}

/*
 * Start path p's worker, its provider routing by objective: a path that cannot be set up is
 * dropped, one that hangs cal_wedged().
 */
void cal_start_path(struct cal_measurement *m, unsigned int p, enum hwoff_objective objective)
{
	struct cal_path *path = &m->s->paths[p];
	struct cal_answer a = { .status = -1 };
	struct cal_worker_job job = {
		.s = m->s,
		.path = path->table ? NULL : path,
		.table = worker_table(m, p, a.err, sizeof(a.err)),
		.objective = objective,
		.provider_dir = m->cfg->provider_dir,
		.in = m->in,
		.out = m->out,
	};

	if (job.table && cal_worker_start(&m->workers[p], &job, m->workers, CAL_PATHS_MAX, &a,
					  CAL_ANSWER_SECONDS))
		cal_wedged(m, p, 0, a.err);
	else if (a.status)
		cal_fail_path(m, p, a.err);
	hwoff_table_free((struct hwoff_table *)job.table);
}

/* The ranges of objective o from every point measured so far. */
void cal_derive_ranges(struct cal_measurement *m, enum hwoff_objective o)
{
	size_t limits[CAL_PATHS_MAX];

	cal_limits(m->s, limits);
	cal_derive(m->s->points, m->s->point_count, cal_usable(m->s), limits, o, m->cfg->tie,
		   &m->s->ranges[o]);
}

/* The grid, the crossovers and the ranges (verified later: measure_subjects()). */
static void measure_subject(struct cal_measurement *m)
{
	struct cal_subject *s = m->s;
	struct view views[HWOFF_OBJECTIVE_COUNT + 1];
	unsigned int view_count = 0, pio = 0, dma = 0;
	size_t most = message_max(s);

	for (size_t g = 0; g < m->cfg->grid_count; g++) {
		if (m->cfg->grid[g] > most && (!g || m->cfg->grid[g - 1] < most))
			cal_measure_size(m, most, "limit", NULL);
		cal_measure_size(m, m->cfg->grid[g], "grid", NULL);
	}
	/* Every path for each objective, and the engine's own PIO/DMA crossover for sysfs. */
	for (int o = 0; o < HWOFF_OBJECTIVE_COUNT; o++)
		views[view_count++] = (struct view){ .mask = ~0u, .objective = o };
	for (unsigned int p = 1; p < s->path_count; p++) {
		pio |= (s->paths[p].class == HWOFF_IMPL_ENGINE_PIO) << p;
		dma |= (s->paths[p].class == HWOFF_IMPL_ENGINE_DMA) << p;
	}
	if (pio && dma)
		views[view_count++] =
			(struct view){ .mask = pio | dma, .objective = HWOFF_THROUGHPUT };
	bisect(m, views, view_count);
	for (int o = 0; o < HWOFF_OBJECTIVE_COUNT; o++)
		cal_derive_ranges(m, o);
}

/*
 * Whether impl is a candidate. Off-CPU drivers are: the engine's PIO and DMA drivers and other
 * vendors' engines. The engine's auto driver is not while its PIO and DMA drivers are there:
 * the table names the concrete driver, and the auto driver is only as good as its threshold.
 * An engine driver the engine's own device reaches is measured through the device alone: the
 * same engine path without the socket's copy of every request (bench/request-cost: 2 times
 * AF_ALG's PIO requests a second, DMA 64 KiB in 1.8 times the engine's bound against 2.8), so
 * measuring both would double the engine's part of the run for a path that never wins, and the
 * table would name two paths of one driver. The kernel's CPU drivers (aes-generic, aesni,
 * sha256-generic) are not: they run the same kind of code as OpenSSL in this process, on the
 * same CPU, plus a system call and two copies; OpenSSL uses the same CPU instructions as they do.
 */
static bool candidate(const struct cal_run *run, const struct hwoff_impl *impl)
{
	const struct hwoff_discovery *d = &run->discovery;

	if (impl->class == HWOFF_IMPL_CPU || (!impl->device && !run->af_alg) ||
	    hwoff_discovery_device_twin(d, impl))
		return false;
	if (impl->class != HWOFF_IMPL_ENGINE_AUTO)
		return true;
	for (size_t i = 0; i < d->count; i++)
		if (strcmp(d->impls[i].name, impl->name) == 0 &&
		    (d->impls[i].class == HWOFF_IMPL_ENGINE_PIO ||
		     d->impls[i].class == HWOFF_IMPL_ENGINE_DMA))
			return false;
	return true;
}

/*
 * The kernel's software for a kernel user of s's algorithm, as the bundled engine's auto driver
 * has it (its software tier), after the other paths: the implementation debugfs "software" names
 * once a transform of the auto driver exists (binding one makes it). Measured through AF_ALG as
 * the engine's drivers are, so that the system call and the copies weigh on both sides alike
 * where they cross, for the software threshold (cal_software_threshold()); never a path of the
 * table.
 */
static void add_software_tier(struct cal_measurement *m, struct cal_subject *s)
{
	const struct hwoff_discovery *d = &m->run->discovery;
	char reason[HWOFF_PROBE_REASON_MAX], line[2 * HWOFF_NAME_MAX + 2], *driver = NULL;
	const struct hwoff_impl *engine_auto = NULL;
	struct cal_path *path;
	FILE *f;

	for (size_t i = 0; i < d->count; i++)
		if (d->impls[i].class == HWOFF_IMPL_ENGINE_AUTO && !d->impls[i].device &&
		    strcmp(d->impls[i].name, s->alg->kernel_name) == 0)
			engine_auto = &d->impls[i];
	if (!engine_auto || s->path_count == CAL_PATHS_MAX ||
	    hwoff_probe_alg(s->alg, engine_auto->driver, reason, sizeof(reason)))
		return;
	f = fopen(CAL_SOFTWARE_TIERS, "r");
	while (f && !driver && fgets(line, sizeof(line), f)) {
		line[strcspn(line, "\n")] = '\0';
		driver = strchr(line, ' ');
		if (driver && (*driver++ = '\0', strcmp(line, s->alg->kernel_name) != 0))
			driver = NULL;
	}
	if (f)
		fclose(f);
	if (!driver || !*driver)
		return;
	path = &s->paths[s->path_count];
	*path = (struct cal_path){ .class = HWOFF_IMPL_CPU, .kernel_software = true };
	snprintf(path->name, sizeof(path->name), "%s", driver);
	snprintf(path->module, sizeof(path->module), "kernel");
	for (size_t i = 0; i < d->count; i++)
		if (strcmp(d->impls[i].driver, driver) == 0)
			snprintf(path->module, sizeof(path->module), "%s", d->impls[i].module);
	if (!is_wedged(m, path))
		s->path_count++;
}

/*
 * Software, then each kernel candidate whose device did not stop answering; cal_measure_size()
 * checks each before it measures it.
 */
static void add_paths(struct cal_measurement *m, struct cal_subject *s)
{
	struct cal_run *run = m->run;
	const struct hwoff_discovery *d = &run->discovery;

	s->paths[0] = (struct cal_path){ .software = true };
	strcpy(s->paths[0].name, HWOFF_SOFTWARE);
	s->path_count = 1;
	for (size_t i = 0; i < d->count; i++) {
		const struct hwoff_impl *impl = &d->impls[i];
		struct cal_path *path = &s->paths[s->path_count];

		if (strcmp(impl->name, s->alg->kernel_name) != 0 || !candidate(run, impl))
			continue;
		if (s->path_count == CAL_PATHS_MAX) {
			hwoff_appendf(run->notes, sizeof(run->notes),
				      "left out %s for %s: more than %d paths\n", impl->driver,
				      s->alg->name, CAL_PATHS_MAX);
			continue;
		}
		*path = (struct cal_path){ .class = impl->class };
		snprintf(path->name, sizeof(path->name), "%s", impl->driver);
		snprintf(path->module, sizeof(path->module), "%s", impl->module);
		if (is_wedged(m, path))
			hwoff_appendf(run->notes, sizeof(run->notes),
				      "left out %s for %s %s: %s stopped answering earlier\n",
				      impl->driver, s->alg->name,
				      hwoff_direction_name(s->direction), device_of(path));
		else
			s->path_count++;
	}
	if (run->af_alg)
		add_software_tier(m, s);
}

/* One subject per algorithm of cfg->algs and direction it takes, in the table's order. */
static int make_subjects(struct cal_run *run, const struct cal_config *cfg)
{
	run->subjects = calloc(HWOFF_ALG_COUNT * 2, sizeof(*run->subjects));
	if (!run->subjects)
		return -1;
	for (size_t a = 0; a < HWOFF_ALG_COUNT; a++) {
		const struct hwoff_alg *alg = &hwoff_algs[a];

		if (cfg->algs && !cfg->algs[a])
			continue;
		for (int dir = 0; dir < HWOFF_DIRECTION_COUNT; dir++) {
			if (hwoff_alg_is_digest(alg) != (dir == HWOFF_DIGEST))
				continue;
			run->subjects[run->subject_count++] =
				(struct cal_subject){ .alg = alg, .direction = dir };
		}
	}
	return 0;
}

/* The kernel's CPU drivers are never candidates (see candidate()); say which were left out. */
static void note_cpu_drivers(struct cal_run *run)
{
	const struct hwoff_discovery *d = &run->discovery;

	for (size_t i = 0; i < d->count; i++)
		if (d->impls[i].class == HWOFF_IMPL_CPU)
			hwoff_appendf(run->notes, sizeof(run->notes),
				      "left out %s (%s): a CPU driver, software in process does "
				      "the same without the system call\n",
				      d->impls[i].driver, d->impls[i].name);
}

/* The subject's paths are done with: their workers ended. */
static void end_paths(struct cal_measurement *m)
{
	for (unsigned int p = 0; p < CAL_PATHS_MAX; p++)
		cal_worker_end(&m->workers[p], false, CAL_STOP_SECONDS);
}

/*
 * Each subject's paths that did not fail, their workers started again; false (with a note) when
 * a path's device stopped answering after the subject was measured, so that the learnt entry may
 * send requests to it.
 */
static bool restart_paths(struct cal_measurement *m)
{
	struct cal_subject *s = m->s;

	for (unsigned int p = 1; p < s->path_count; p++) {
		if (s->paths[p].failed || !is_wedged(m, &s->paths[p]))
			continue;
		hwoff_appendf(m->run->notes, sizeof(m->run->notes),
			      "%s %s not verified: %s stopped answering later\n", s->alg->name,
			      hwoff_direction_name(s->direction), device_of(&s->paths[p]));
		return false;
	}
	for (unsigned int p = 0; p < s->path_count; p++)
		if (!s->paths[p].failed)
			cal_start_path(m, p, HWOFF_THROUGHPUT);
	return !s->paths[0].failed;
}

/*
 * The measurement of every subject, then the verification of each (cal_verify_subject()): minutes
 * after the sizes that decided its crossovers were measured, so that a slow stretch of the
 * machine that misled those visits is over by the next.
 */
static int measure_subjects(struct cal_measurement *m, char *err, size_t err_len)
{
	struct cal_run *run = m->run;

	for (size_t i = 0; i < run->subject_count; i++) {
		m->s = &run->subjects[i];
		m->index = i;
		add_paths(m, m->s);
		if (!restart_paths(m)) { /* no provider, nothing to measure */
			snprintf(err, err_len, "%s", m->s->paths[0].failure);
			return -1;
		}
		measure_subject(m);
		end_paths(m);
	}
	for (size_t i = 0; i < run->subject_count; i++) {
		m->s = &run->subjects[i];
		m->index = i;
		if (restart_paths(m))
			cal_verify_subject(m);
		end_paths(m);
	}
	return 0;
}

int cal_measure(struct cal_run *run, const struct cal_config *cfg, char *err, size_t err_len)
{
	struct cal_measurement m = { .cfg = cfg, .run = run };
	struct hwoff_probe probe = { 0 };
	size_t verification_len, fixes_len;
	int ret = -1;

	memset(run, 0, sizeof(*run));
	if (!cfg->grid_count || cfg->repeats < 1 || cfg->repeats_max < cfg->repeats ||
	    cfg->repeats_max > CAL_REPEATS_MAX) {
		snprintf(err, err_len, "a grid of sizes and 1 to %d repeats are needed",
			 CAL_REPEATS_MAX);
		return -1;
	}
	m.started_ns = cal_now_ns();
	m.buf_len = cfg->grid[cfg->grid_count - 1];
	m.in = malloc(m.buf_len);
	m.out = malloc(m.buf_len + HWOFF_GCM_TAG_MAX); /* GCM writes its tag after the data */
	m.verification = open_memstream(&run->verification, &verification_len);
	m.fixes = open_memstream(&run->fixes, &fixes_len);
	if (!m.in || !m.out || !m.verification || !m.fixes || make_subjects(run, cfg) ||
	    RAND_bytes(m.in, (int)m.buf_len) != 1) {
		snprintf(err, err_len, "out of memory");
		goto out;
	}
	run->af_alg = hwoff_probe_afalg(&probe) == 0;
	snprintf(run->af_alg_reason, sizeof(run->af_alg_reason), "%s", probe.reason);
	if (hwoff_discover(&run->discovery, err, err_len)) {
		/* Without /proc/crypto there is nothing to offload to: software only. */
		hwoff_appendf(run->notes, sizeof(run->notes), "discovery failed: %s\n", err);
		run->af_alg = false;
	}
	if (!run->af_alg)
		hwoff_appendf(run->notes, sizeof(run->notes), "%s: AF_ALG: %s\n",
			      hwoff_discovery_has_device(&run->discovery)
				      ? "software and the engine's own device only"
				      : "software only",
			      run->af_alg_reason[0] ? run->af_alg_reason : "not used");
	else
		note_cpu_drivers(run);
	ret = measure_subjects(&m, err, err_len);
out:
	end_paths(&m);
	free(m.in);
	free(m.out);
	if ((m.verification && fclose(m.verification)) | (m.fixes && fclose(m.fixes))) {
		snprintf(err, err_len, "out of memory");
		ret = -1;
	}
	return ret;
}

void cal_run_free(struct cal_run *run)
{
	free(run->subjects);
	free(run->verification);
	free(run->fixes);
	memset(run, 0, sizeof(*run));
}

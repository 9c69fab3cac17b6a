// SPDX-License-Identifier: Apache-2.0
/*
 * The calibration's core (tools/calibrate.h) in the guest, on a small grid with short samples:
 * the table it writes loads without a warning from the loader's checks (fingerprint, drivers),
 * covers every algorithm, key size, direction and objective, and its decisions (hwoff_decide())
 * pick at every measured size the best path measured there or one tied with it (cal_tied()). The
 * paths are those discovery offers (the engine's PIO and DMA drivers when loaded; no CPU driver, no
 * auto driver beside them), and for each row the auto driver's software tier, never in the
 * table; measured through the provider whatever the user's HWOFFLOAD_*
 * settings; each serves no size past the largest it was checked right at, the table records each
 * driver's proof, the CSV has every sample, a choice still unclear had the most repeats, and the
 * verification pass measured the learnt entries and derived again where they lost. The engine's
 * drivers the engine's own device reaches are measured through the device, also where AF_ALG is
 * refused.
 */
#define _GNU_SOURCE /* open_memstream */
#include <check.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backend/fingerprint.h"
#include "backend/table_file.h"
#include "tools/calibrate.h"
#include "test/testutil.h"

#define TIE	    0.03
#define REPEATS	    3
#define REPEATS_MAX 7
#define WARN_MAX    4096

static const size_t grid[] = { 16, 1024, 65536 };
static struct cal_run run;
static char *csv_text;
static size_t csv_len;

/* One calibration for all cases (Check forks each case after this). */
static void calibrate_once(void)
{
	FILE *csv = open_memstream(&csv_text, &csv_len);
	struct cal_config cfg = {
		.grid = grid,
		.grid_count = sizeof(grid) / sizeof(grid[0]),
		.repeats = REPEATS,
		.repeats_max = REPEATS_MAX,
		.sample_seconds = 0.002,
		.resolve_ratio = 8,
		.tie = TIE,
		.provider_dir = getenv("HWOFFLOAD_PROVIDER_DIR") ? getenv("HWOFFLOAD_PROVIDER_DIR")
								 : "provider/.libs",
		.csv = csv,
	};
	char err[512];

	/* A user's settings for applications are not the calibration's. */
	setenv("HWOFFLOAD_MODE", "software", 1);
	setenv("HWOFFLOAD_FALLBACK", "yes", 1);
	setenv("HWOFFLOAD_TABLE", "/nonexistent", 1);
	ck_assert_ptr_nonnull(csv);
	fputs(CAL_CSV_HEADER, csv);
	ck_assert_msg(cal_measure(&run, &cfg, err, sizeof(err)) == 0, "%s", err);
	fclose(csv);
	printf("calibrated %zu subjects; notes:\n%s%s\nverification:\n%s%s", run.subject_count,
	       run.notes, run.limits, run.verification, run.fixes);
	for (size_t i = 0; i < run.subject_count; i++) {
		printf("%s %s:", run.subjects[i].alg->name,
		       hwoff_direction_name(run.subjects[i].direction));
		for (unsigned int p = 0; p < run.subjects[i].path_count; p++)
			printf(" %s", run.subjects[i].paths[p].name);
		putchar('\n');
	}
}

static void free_run(void)
{
	cal_run_free(&run);
	free(csv_text);
}

/* The table as the calibration writes it, and read back by the loader. */
static struct hwoff_table *written_and_read(char **text)
{
	static const bool both[HWOFF_OBJECTIVE_COUNT] = { true, true };
	struct hwoff_table *t, *back;
	char err[512] = "";
	size_t len, left_out;
	FILE *mem;

	t = cal_table(&run, both, err, sizeof(err), &left_out);
	ck_assert_ptr_nonnull(t);
	ck_assert_msg(left_out == 0, "%s", err);
	mem = open_memstream(text, &len);
	ck_assert_int_eq(hwoff_table_write(t, mem, "test"), 0);
	fclose(mem);
	hwoff_table_free(t);
	mem = fmemopen(*text, len, "r");
	back = hwoff_table_read(mem, "calibrated", err, sizeof(err));
	fclose(mem);
	ck_assert_msg(back != NULL, "%s\n%s", err, *text);
	return back;
}

START_TEST(test_table_loads_without_warnings)
{
	struct hwoff_fingerprint machine;
	char *text, warnings[WARN_MAX] = "";
	struct hwoff_table *t = written_and_read(&text);

	hwoff_fingerprint_machine(&machine, t, &run.discovery);
	ck_assert_msg(hwoff_fingerprint_compare(&t->fingerprint, &machine, warnings,
						sizeof(warnings)) == 0,
		      "fingerprint: %s", warnings);
	ck_assert_msg(hwoff_table_check_drivers(t, &run.discovery, warnings, sizeof(warnings)) == 0,
		      "drivers: %s", warnings);
	hwoff_table_free(t);
	free(text);
}
END_TEST

/* Exactly one line per algorithm, direction and objective. */
START_TEST(test_table_covers_everything)
{
	char *text, prefix[128];
	struct hwoff_table *t = written_and_read(&text);
	size_t subjects = 0;

	for (size_t a = 0; a < HWOFF_ALG_COUNT; a++)
		subjects += hwoff_alg_is_digest(&hwoff_algs[a]) ? 1 : 2;
	ck_assert_uint_eq(run.subject_count, subjects);
	for (size_t i = 0; i < run.subject_count; i++) {
		const struct cal_subject *s = &run.subjects[i];

		for (int o = 0; o < HWOFF_OBJECTIVE_COUNT; o++) {
			const char *at;
			int found = 0;

			if (hwoff_alg_is_digest(s->alg))
				snprintf(prefix, sizeof(prefix), "\n%s - digest %s ", s->alg->name,
					 hwoff_objective_name(o));
			else
				snprintf(prefix, sizeof(prefix), "\n%s %u %s %s ", s->alg->name,
					 s->alg->key_bytes * 8, hwoff_direction_name(s->direction),
					 hwoff_objective_name(o));
			for (at = strstr(text, prefix); at; at = strstr(at + 1, prefix))
				found++;
			ck_assert_msg(found == 1, "%d lines start with '%s' in:\n%s", found,
				      prefix + 1, text);
		}
	}
	hwoff_table_free(t);
	free(text);
}
END_TEST

START_TEST(test_ranges_ordered)
{
	for (size_t i = 0; i < run.subject_count; i++) {
		const struct cal_subject *s = &run.subjects[i];

		for (int o = 0; o < HWOFF_OBJECTIVE_COUNT; o++) {
			const struct cal_ranges *r = &s->ranges[o];

			ck_assert_uint_ge(r->count, 1);
			ck_assert_uint_le(r->count, HWOFF_RANGES_MAX);
			ck_assert_uint_eq(r->r[0].start, 0);
			for (unsigned int k = 0; k < r->count; k++) {
				ck_assert_uint_lt(r->r[k].path, s->path_count);
				ck_assert(!s->paths[r->r[k].path].failed);
				if (k)
					ck_assert_uint_gt(r->r[k].start, r->r[k - 1].start);
			}
		}
	}
}
END_TEST

static int path_index(const struct cal_subject *s, const char *name)
{
	for (unsigned int p = 0; p < s->path_count; p++)
		if (strcmp(s->paths[p].name, name) == 0)
			return (int)p;
	return -1;
}

/*
 * At every measured size the table's path is the best measured there, or tied with it; but for an
 * entry whose winners alternated more often than the table has ranges (HWOFF_RANGES_MAX), where
 * the derivation cut the ranges with the fewest points (cal_ranges.cut, said here).
 */
START_TEST(test_decisions_match_measurements)
{
	char *text;
	struct hwoff_table *t = written_and_read(&text);

	for (size_t i = 0; i < run.subject_count; i++) {
		const struct cal_subject *s = &run.subjects[i];

		for (size_t k = 0; k < s->point_count; k++) {
			const struct cal_point *pt = &s->points[k];

			for (int o = 0; o < HWOFF_OBJECTIVE_COUNT; o++) {
				const double *m =
					o == HWOFF_CPU ? pt->cpu_ns_per_byte : pt->bytes_per_s;

				if (s->ranges[o].cut) {
					if (!k)
						printf("%s %s %s: %u ranges cut\n", s->alg->name,
						       hwoff_direction_name(s->direction),
						       hwoff_objective_name(o), s->ranges[o].cut);
					continue;
				}
				struct hwoff_choice c =
					hwoff_decide(t, s->alg, s->direction, pt->size, o);
				int chosen = path_index(s, c.path->name);
				unsigned int best = 0;

				ck_assert_msg(chosen >= 0 && pt->bytes_per_s[chosen] > 0,
					      "%s: %s not measured", s->alg->name, c.path->name);
				for (unsigned int p = 1; p < s->path_count; p++)
					if ((cal_usable(s) & 1u << p) && pt->bytes_per_s[p] > 0 &&
					    (o == HWOFF_CPU ? m[p] < m[best] : m[p] > m[best]))
						best = p;
				ck_assert_msg(cal_tied(pt, o, (unsigned int)chosen, best, TIE),
					      "%s %s %zu bytes %s: %s has %g, %s %g", s->alg->name,
					      hwoff_direction_name(s->direction), pt->size,
					      hwoff_objective_name(o), c.path->name, m[chosen],
					      s->paths[best].name, m[best]);
			}
		}
	}
	hwoff_table_free(t);
	free(text);
}
END_TEST

/* The candidates are what discovery offers off the CPU, the auto driver only as a last resort. */
START_TEST(test_paths_from_discovery)
{
	const struct hwoff_discovery *d = &run.discovery;

	ck_assert(run.af_alg);
	ck_assert_msg(hwoff_discovery_has_device(d), "no /dev/hwoffload0 in discovery: %s",
		      d->basis);
	for (size_t i = 0; i < run.subject_count; i++) {
		const struct cal_subject *s = &run.subjects[i];
		bool engine_split = false;

		ck_assert(s->paths[0].software);
		for (size_t j = 0; j < d->count; j++)
			engine_split |= strcmp(d->impls[j].name, s->alg->kernel_name) == 0 &&
					(d->impls[j].class == HWOFF_IMPL_ENGINE_PIO ||
					 d->impls[j].class == HWOFF_IMPL_ENGINE_DMA);
		for (size_t j = 0; j < d->count; j++) {
			const struct hwoff_impl *impl = &d->impls[j];
			/* an engine driver the device reaches is measured through the device */
			bool wanted = impl->class != HWOFF_IMPL_CPU &&
				      !(impl->class == HWOFF_IMPL_ENGINE_AUTO && engine_split) &&
				      !hwoff_discovery_device_twin(d, impl);
			int p = path_index(s, impl->driver);

			if (strcmp(impl->name, s->alg->kernel_name) != 0)
				continue;
			/* a CPU driver only as the auto driver's software tier, not the table's */
			if (p >= 0 && s->paths[p].kernel_software)
				continue;
			ck_assert_msg((p >= 0) == wanted, "%s: %s (%s) %s", s->alg->name,
				      impl->driver, hwoff_impl_class_name(impl->class),
				      wanted ? "missing" : "should not be a path");
		}
		/* the rows beside the engine's PIO and DMA drivers have the software tier */
		ck_assert_msg(!engine_split || cal_software_tier(s) > 0,
			      "%s %s: no software tier measured", s->alg->name,
			      hwoff_direction_name(s->direction));
	}
}
END_TEST

/*
 * Every kernel path was checked at each size it was measured at, up to the largest measured
 * unless a check failed (then run.limits says so); no range reaches past that, and the table
 * sends the next size elsewhere, unless the path serves all (checked at a size the kernel never
 * gets more of in one request).
 */
START_TEST(test_paths_within_verified)
{
	char *text;
	struct hwoff_table *t = written_and_read(&text);

	for (size_t i = 0; i < run.subject_count; i++) {
		const struct cal_subject *s = &run.subjects[i];
		size_t largest = s->points[s->point_count - 1].size;

		for (unsigned int p = 1; p < s->path_count; p++) {
			const struct cal_path *path = &s->paths[p];

			if (path->failed)
				continue;
			ck_assert_uint_le(path->verified, largest);
			if (path->limited)
				ck_assert_ptr_nonnull(strstr(run.limits, path->name));
			else
				ck_assert_uint_eq(path->verified, largest);
			for (size_t k = 0; k < s->point_count; k++)
				ck_assert(s->points[k].bytes_per_s[p] == 0 ||
					  s->points[k].size <= path->verified);
			if (path->serves_all) {
				ck_assert(!path->limited);
				continue;
			}
			for (int o = 0; o < HWOFF_OBJECTIVE_COUNT; o++) {
				const struct cal_ranges *r = &s->ranges[o];
				struct hwoff_choice c = hwoff_decide(t, s->alg, s->direction,
								     path->verified + 1, o);

				for (unsigned int k = 0; k < r->count; k++)
					ck_assert_msg(
						r->r[k].path != p ||
							(k + 1 < r->count &&
							 r->r[k + 1].start <= path->verified + 1),
						"%s %s: %s range from %zu past %zu", s->alg->name,
						hwoff_objective_name(o), path->name, r->r[k].start,
						path->verified);
				ck_assert_str_ne(c.path->name, path->name);
			}
		}
	}
	hwoff_table_free(t);
	free(text);
}
END_TEST

/*
 * The table, read back, has a proof for every kernel driver it names: the least over the
 * subjects the driver served of what each showed (every size where it serves all, else the
 * largest size it was checked right at), so that the loader keeps another vendor's engine within
 * what was checked.
 */
START_TEST(test_table_has_proofs)
{
	char *text;
	struct hwoff_table *t = written_and_read(&text);

	for (unsigned int k = 0; k < t->path_count; k++) {
		const char *driver = t->paths[k].name;
		size_t proven = hwoff_table_proven(t, driver);
		bool reached = false;

		if (t->paths[k].software)
			continue;
		ck_assert_msg(proven > 0, "no proof of %s in:\n%s", driver, text);
		for (size_t i = 0; i < run.subject_count; i++) {
			const struct cal_subject *s = &run.subjects[i];
			int p = path_index(s, driver);
			size_t shown;

			if (p < 0 || s->paths[p].failed)
				continue;
			shown = s->paths[p].serves_all ? HWOFF_PROVEN_ALL : s->paths[p].verified;
			ck_assert_msg(proven <= shown, "%s: proof %zu past %zu shown on %s %s",
				      driver, proven, shown, s->alg->name,
				      hwoff_direction_name(s->direction));
			reached |= proven == shown;
		}
		ck_assert_msg(reached, "%s: proof %zu, which no subject showed", driver, proven);
	}
	hwoff_table_free(t);
	free(text);
}
END_TEST

/* The CSV rows of subject s, path p, size. */
static unsigned int csv_rows(const struct cal_subject *s, unsigned int p, size_t size)
{
	char key[256];
	unsigned int rows = 0;

	snprintf(key, sizeof(key), "\n%s,%u,%s,%s,%zu,", s->alg->name, s->alg->key_bytes * 8,
		 hwoff_direction_name(s->direction), s->paths[p].name, size);
	for (const char *at = strstr(csv_text, key); at; at = strstr(at + 1, key))
		rows++;
	return rows;
}

/*
 * One CSV row per sample: at each size a path was measured at, REPEATS to REPEATS_MAX of them
 * (more than once where a size was measured again), and no fewer than its median is of.
 */
START_TEST(test_csv_has_every_sample)
{
	for (size_t i = 0; i < run.subject_count; i++) {
		const struct cal_subject *s = &run.subjects[i];

		for (size_t k = 0; k < s->point_count; k++) {
			const struct cal_point *pt = &s->points[k];

			for (unsigned int p = 0; p < s->path_count; p++) {
				unsigned int rows = csv_rows(s, p, pt->size);

				if (!pt->bytes_per_s[p])
					continue;
				ck_assert_msg(rows >= REPEATS && rows >= pt->repeats[p] &&
						      pt->repeats[p] >= 1,
					      "%s %s at %zu: %u rows, a median of %u", s->alg->name,
					      s->paths[p].name, pt->size, rows, pt->repeats[p]);
			}
		}
	}
	ck_assert_ptr_nonnull(strstr(csv_text, ",16,0,"));
	ck_assert_ptr_nonnull(strstr(csv_text, ",65536,2,"));
}
END_TEST

/* Each row's last field, at_ms, says when its sample was asked for: in the run, in order. */
START_TEST(test_csv_rows_in_time)
{
	double previous = 0;
	unsigned int rows = 0;

	for (const char *line = strchr(csv_text, '\n'); line && line[1];
	     line = strchr(line + 1, '\n')) {
		char one[512], *last;
		double at;

		snprintf(one, sizeof(one), "%.*s", (int)strcspn(line + 1, "\n"), line + 1);
		last = strrchr(one, ',');
		ck_assert_msg(last, "a CSV row without fields: %s", one);
		at = strtod(last + 1, NULL);
		ck_assert_msg(at >= previous, "a row asked for at %.0f ms after one at %.0f ms", at,
			      previous);
		previous = at;
		rows++;
	}
	ck_assert_uint_gt(rows, 0);
	ck_assert_msg(previous > 0, "the last sample asked for at %.0f ms", previous);
}
END_TEST

/*
 * Where the best path and another are more than the tie apart but within the noise, the size was
 * measured REPEATS_MAX times: a choice is never left to the first REPEATS samples when they cannot
 * tell.
 */
START_TEST(test_unclear_choices_measured_most)
{
	unsigned int unclear = 0, clear = 0;

	for (size_t i = 0; i < run.subject_count; i++) {
		const struct cal_subject *s = &run.subjects[i];

		for (size_t k = 0; k < s->point_count; k++) {
			const struct cal_point *pt = &s->points[k];

			for (int o = 0; o < HWOFF_OBJECTIVE_COUNT; o++) {
				int best = cal_best(pt, cal_usable(s), o);

				for (unsigned int p = 0; best >= 0 && p < s->path_count; p++) {
					if (!pt->bytes_per_s[p] || p == (unsigned int)best ||
					    !(cal_usable(s) & 1u << p))
						continue;
					if (cal_compare(pt, o, (unsigned int)best, p, TIE, NULL) !=
					    CAL_UNCLEAR) {
						clear++;
						continue;
					}
					unclear++;
					ck_assert_msg(
						csv_rows(s, p, pt->size) >= REPEATS_MAX,
						"%s %s %zu B %s: %s against %s unclear after "
						"%u samples",
						s->alg->name, hwoff_direction_name(s->direction),
						pt->size, hwoff_objective_name(o), s->paths[p].name,
						s->paths[best].name, csv_rows(s, p, pt->size));
				}
			}
		}
	}
	printf("comparisons: %u clear or equal, %u unclear\n", clear, unclear);
}
END_TEST

/*
 * Every path was measured through the provider, each by its own path: the user's HWOFFLOAD_*
 * settings (mode software, a missing table) changed nothing, and the provider's own rule that a
 * GCM message larger than one kernel request goes to software limits the kernel paths there.
 */
START_TEST(test_measured_through_the_provider)
{
	for (size_t i = 0; i < run.subject_count; i++) {
		const struct cal_subject *s = &run.subjects[i];

		for (unsigned int p = 0; p < s->path_count; p++)
			ck_assert_msg(!s->paths[p].failed && s->points[0].bytes_per_s[p] > 0,
				      "%s %s: %s", s->alg->name, s->paths[p].name,
				      s->paths[p].failure);
		for (unsigned int p = 1; hwoff_alg_is_aead(s->alg) && p < s->path_count; p++)
			ck_assert_msg(s->paths[p].limited &&
					      s->paths[p].verified ==
						      cal_gcm_data_max() -
							      cal_gcm_data_max() % CAL_STEP,
				      "%s %s: verified to %zu", s->alg->name, s->paths[p].name,
				      s->paths[p].verified);
	}
	ck_assert_ptr_nonnull(strstr(run.limits, "by another path"));
}
END_TEST

/* Whether a line of text starts with prefix and holds needle. */
static bool line_with(const char *text, const char *prefix, const char *needle)
{
	for (const char *line = text; line && *line; line = strchr(line, '\n'), line += !!line) {
		size_t len = strcspn(line, "\n");
		const char *at = strstr(line, needle);

		if (strncmp(line, prefix, strlen(prefix)) == 0 && at && at < line + len)
			return true;
	}
	return false;
}

/*
 * The verification pass measured the learnt entry of each subject with a crossover, or the entry
 * was derived again after the other objective's lost; where one clearly lost to a path it did
 * not send the size to, both were derived again (run.fixes, a line each).
 */
START_TEST(test_verification)
{
	for (size_t i = 0; i < run.subject_count; i++) {
		const struct cal_subject *s = &run.subjects[i];

		for (int o = 0; o < HWOFF_OBJECTIVE_COUNT; o++) {
			char entry[128];

			snprintf(entry, sizeof(entry), "%s %s %s", s->alg->name,
				 hwoff_direction_name(s->direction), hwoff_objective_name(o));
			if (s->ranges[o].count > 1)
				ck_assert_msg(
					line_with(run.verification, entry, " B: the table (") ||
						line_with(run.fixes, entry, ": derived again ("),
					"no verification of %s", entry);
		}
	}
	for (const char *line = run.verification; line && *line;
	     line = strchr(line, '\n'), line += !!line) {
		char alg[64], dir[16], obj[16], chosen[HWOFF_NAME_MAX], best[HWOFF_NAME_MAX];
		char prefix[128], lost[64], one[512];

		snprintf(one, sizeof(one), "%.*s", (int)strcspn(line, "\n"), line);
		if (sscanf(one, "%63s %15s %15s %*u B: the table (%63[^)]) loses to %63s", alg, dir,
			   obj, chosen, best) != 5 ||
		    strcmp(chosen, best) == 0 || !strstr(one, "(clear,"))
			continue;
		snprintf(lost, sizeof(lost), "the %s entry lost at ", obj);
		for (int o = 0; o < HWOFF_OBJECTIVE_COUNT; o++) {
			snprintf(prefix, sizeof(prefix), "%s %s %s: derived again (", alg, dir,
				 hwoff_objective_name(o));
			ck_assert_msg(line_with(run.fixes, prefix, lost), "%s: not derived again",
				      one);
		}
	}
}
END_TEST

/*
 * The verification came after every subject was measured (each CSV row's phase: no grid, limit or
 * bisection row after the first verification row), and it visited again the two measured sizes
 * each crossover of an entry it kept lies between: the sizes that decided it.
 */
START_TEST(test_verification_revisits_deciding_sizes)
{
	bool verifying = false;

	for (const char *line = strchr(csv_text, '\n'); line && line[1];
	     line = strchr(line + 1, '\n')) {
		char one[512], *phase;

		snprintf(one, sizeof(one), "%.*s", (int)strcspn(line + 1, "\n"), line + 1);
		*strrchr(one, ',') = '\0';
		phase = strrchr(one, ',') + 1;
		ck_assert_msg(!verifying || strcmp(phase, "verify") == 0,
			      "a %s row after the verification began: %s", phase, one);
		verifying |= strcmp(phase, "verify") == 0;
	}
	for (size_t i = 0; i < run.subject_count; i++) {
		const struct cal_subject *s = &run.subjects[i];

		for (int o = 0; o < HWOFF_OBJECTIVE_COUNT; o++) {
			const struct cal_ranges *r = &s->ranges[o];
			char entry[128], size[32];

			snprintf(entry, sizeof(entry), "%s %s %s", s->alg->name,
				 hwoff_direction_name(s->direction), hwoff_objective_name(o));
			if (line_with(run.fixes, entry, ": derived again ("))
				continue;
			for (unsigned int k = 1; k < r->count; k++) {
				size_t j = 0;

				while (j < s->point_count && s->points[j].size < r->r[k].start)
					j++;
				ck_assert_uint_gt(j, 0);
				for (size_t at = j - 1; at <= j && at < s->point_count; at++) {
					snprintf(size, sizeof(size), " %zu B: the table (",
						 s->points[at].size);
					ck_assert_msg(line_with(run.verification, entry, size),
						      "%s: %zu B decided the crossover at %zu, not "
						      "verified",
						      entry, s->points[at].size, r->r[k].start);
				}
			}
		}
	}
}
END_TEST

/*
 * Where AF_ALG is refused (a seccomp filter, as Linux 7.2 and container runtimes refuse it), the
 * calibration measures the engine's own device: AES-128-CBC's kernel paths are the device's PIO
 * and DMA paths, each checked right through the provider (which uses a table file of device paths
 * there), and the table it writes names no other kernel path.
 */
START_TEST(test_af_alg_refused_measures_the_device)
{
	static const size_t two_sizes[] = { 16, 65536 };
	static const bool both[HWOFF_OBJECTIVE_COUNT] = { true, true };
	bool algs[HWOFF_ALG_COUNT] = { false };
	struct cal_config cfg = {
		.grid = two_sizes,
		.grid_count = 2,
		.repeats = REPEATS,
		.repeats_max = REPEATS,
		.sample_seconds = 0.002,
		.resolve_ratio = 8,
		.tie = TIE,
		.algs = algs,
		.provider_dir = getenv("HWOFFLOAD_PROVIDER_DIR") ? getenv("HWOFFLOAD_PROVIDER_DIR")
								 : "provider/.libs",
	};
	struct cal_run refused;
	struct hwoff_table *t;
	size_t left_out;
	char err[512];

	algs[hwoff_alg_index(hwoff_alg_by_name("AES-128-CBC"))] = true;
	test_refuse_af_alg(EPERM);
	ck_assert_msg(cal_measure(&refused, &cfg, err, sizeof(err)) == 0, "%s", err);
	printf("with AF_ALG refused: notes:\n%s%s", refused.notes, refused.limits);
	ck_assert(!refused.af_alg);
	ck_assert_msg(strstr(refused.notes, "the engine's own device only"), "%s", refused.notes);
	ck_assert_uint_eq(refused.subject_count, 2);
	for (size_t i = 0; i < refused.subject_count; i++) {
		const struct cal_subject *s = &refused.subjects[i];
		bool pio = false, dma = false;

		for (unsigned int p = 1; p < s->path_count; p++) {
			ck_assert_msg(!strncmp(s->paths[p].name, "dev.", 4) && !s->paths[p].failed,
				      "%s %s: %s %s", s->alg->name,
				      hwoff_direction_name(s->direction), s->paths[p].name,
				      s->paths[p].failed ? "failed" : "is not the device's");
			pio |= s->paths[p].class == HWOFF_IMPL_ENGINE_PIO;
			dma |= s->paths[p].class == HWOFF_IMPL_ENGINE_DMA;
		}
		ck_assert_msg(pio && dma, "%s %s: the device's PIO and DMA paths not both measured",
			      s->alg->name, hwoff_direction_name(s->direction));
	}
	t = cal_table(&refused, both, err, sizeof(err), &left_out);
	ck_assert_msg(t && left_out == 0, "%s", err);
	for (unsigned int p = 0; p < t->path_count; p++)
		ck_assert_msg(t->paths[p].software || !strncmp(t->paths[p].name, "dev.", 4),
			      "the table names %s", t->paths[p].name);
	hwoff_table_free(t);
	cal_run_free(&refused);
}
END_TEST

int main(void)
{
	Suite *suite = suite_create("calibrate");
	TCase *tc = tcase_create("small grid");

	tcase_add_unchecked_fixture(tc, calibrate_once, free_run);
	tcase_set_timeout(tc, 120);
	tcase_add_test(tc, test_table_loads_without_warnings);
	tcase_add_test(tc, test_table_covers_everything);
	tcase_add_test(tc, test_ranges_ordered);
	tcase_add_test(tc, test_decisions_match_measurements);
	tcase_add_test(tc, test_paths_from_discovery);
	tcase_add_test(tc, test_paths_within_verified);
	tcase_add_test(tc, test_table_has_proofs);
	tcase_add_test(tc, test_csv_has_every_sample);
	tcase_add_test(tc, test_csv_rows_in_time);
	tcase_add_test(tc, test_unclear_choices_measured_most);
	tcase_add_test(tc, test_measured_through_the_provider);
	tcase_add_test(tc, test_verification);
	tcase_add_test(tc, test_verification_revisits_deciding_sizes);
	suite_add_tcase(suite, tc);
	tc = tcase_create("AF_ALG refused");
	tcase_set_timeout(tc, 120);
	tcase_add_test(tc, test_af_alg_refused_measures_the_device);
	suite_add_tcase(suite, tc);
	return test_run_suite(suite);
}

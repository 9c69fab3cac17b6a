// SPDX-License-Identifier: Apache-2.0
/*
 * calibrate_test.c - the calibration's derivation (tools/calibrate-derive.c) on synthetic
 * medians: known curves in, the expected ranges out; ties, one path, noise, too many
 * crossovers, paths left out, paths limited to the sizes they were verified at, and the
 * engine's auto threshold (for GCM no more than the driver takes), and each driver's proof.
 */
#include <check.h>
#include <limits.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "tools/calibrate.h"
#include "kernel/hwoffload_regs.h"
#include "test/testutil.h"

#define TIE 0.05

enum { SW, PIO, DMA };

static const size_t sizes7[] = { 16, 64, 256, 1024, 4096, 16384, 65536 };

/* Points at sizes7 from per-path throughput (MB/s) and CPU (ns/byte) rows; 0 = not measured. */
static void fill(struct cal_point *pts, unsigned int paths, const double thr[][7],
		 const double cpu[][7])
{
	for (size_t i = 0; i < 7; i++) {
		pts[i] = (struct cal_point){ .size = sizes7[i] };
		for (unsigned int p = 0; p < paths; p++) {
			pts[i].bytes_per_s[p] = thr[p][i] * 1e6;
			pts[i].cpu_ns_per_byte[p] = cpu[p][i];
		}
	}
}

/* Derive from pts[0..n) with paths limited by limits (NULL: none); compare with want. */
static void derive_limited_eq(const struct cal_point *pts, size_t n, cal_mask mask,
			      const size_t *limits, enum hwoff_objective objective, double tie,
			      const struct cal_range *want, unsigned int count)
{
	struct cal_ranges got;

	ck_assert_uint_eq(cal_derive(pts, n, mask, limits, objective, tie, &got), count);
	ck_assert_uint_eq(got.count, count);
	for (unsigned int k = 0; k < count; k++) {
		ck_assert_msg(got.r[k].start == want[k].start && got.r[k].path == want[k].path,
			      "%s range %u: got %zu:%u, want %zu:%u",
			      objective == HWOFF_CPU ? "cpu" : "throughput", k, got.r[k].start,
			      got.r[k].path, want[k].start, want[k].path);
	}
}

static void derive_eq(const struct cal_point *pts, size_t n, cal_mask mask,
		      enum hwoff_objective objective, double tie, const struct cal_range *want,
		      unsigned int count)
{
	derive_limited_eq(pts, n, mask, NULL, objective, tie, want, count);
}

/* Software small, PIO in the middle, DMA large: crossovers at the geometric means. */
START_TEST(test_known_curves)
{
	static const double thr[3][7] = {
		{ 100, 100, 100, 100, 100, 100, 100 },
		{ 10, 40, 90, 150, 190, 200, 200 },
		{ 1, 4, 16, 60, 180, 700, 1500 },
	};
	static const double cpu[3][7] = {
		{ 10, 10, 10, 10, 10, 10, 10 },
		{ 50, 20, 12, 9, 8, 8, 8 },
		{ 400, 100, 25, 15, 1.5, 0.4, 0.1 },
	};
	static const struct cal_range want_thr[] = { { 0, SW }, { 512, PIO }, { 8192, DMA } };
	static const struct cal_range want_cpu[] = { { 0, SW }, { 512, PIO }, { 2048, DMA } };
	struct cal_point pts[7];

	fill(pts, 3, thr, cpu);
	derive_eq(pts, 7, 7, HWOFF_THROUGHPUT, TIE, want_thr, 3);
	derive_eq(pts, 7, 7, HWOFF_CPU, TIE, want_cpu, 3);
}
END_TEST

/* Within the tie, the other metric decides: CPU for throughput, throughput for CPU. */
START_TEST(test_ties)
{
	static const double thr[2][7] = {
		{ 100, 100, 100, 100, 100, 100, 100 },
		{ 98, 98, 98, 98, 98, 98, 130 },
	};
	static const double cpu[2][7] = {
		{ 10, 10, 10, 10, 10, 10, 10 },
		{ 5, 5, 5, 5, 5, 5, 10.2 },
	};
	static const struct cal_range want_thr[] = { { 0, 1 } };
	static const struct cal_range want_cpu_no_tie[] = { { 0, 1 }, { 32768, SW } };
	struct cal_point pts[7];

	fill(pts, 2, thr, cpu);
	/* Path 1 is 2 % slower but takes half the CPU: it wins throughput's tie throughout. */
	derive_eq(pts, 7, 3, HWOFF_THROUGHPUT, TIE, want_thr, 1);
	/* At 64 KiB the CPU costs tie (2 %), and path 1's throughput breaks it. */
	derive_eq(pts, 7, 3, HWOFF_CPU, TIE, want_thr, 1);
	/* Without the tie rule software would win at 64 KiB (10 < 10.2 ns/byte). */
	derive_eq(pts, 7, 3, HWOFF_CPU, 0, want_cpu_no_tie, 2);
}
END_TEST

/*
 * Two paths equally fast, one far cheaper in CPU: that one takes over from the path in use
 * (GCM at 16 KiB: PIO and DMA within 3 % in the calibration, DMA 5-8 % ahead in `openssl speed`).
 */
START_TEST(test_tie_goes_to_the_cheaper_path)
{
	static const double thr[3][7] = {
		{ 100, 100, 100, 100, 100, 100, 100 },
		{ 10, 40, 150, 150, 150, 150, 150 },
		{ 1, 4, 16, 60, 148, 149, 300 },
	};
	static const double cpu[3][7] = {
		{ 10, 10, 10, 10, 10, 10, 10 },
		{ 8, 8, 8, 8, 8, 8, 8 },
		{ 400, 100, 25, 15, 2, 1, 0.5 },
	};
	static const struct cal_range want[] = { { 0, SW }, { 128, PIO }, { 2048, DMA } };
	struct cal_point pts[7];

	fill(pts, 3, thr, cpu);
	derive_eq(pts, 7, 7, HWOFF_THROUGHPUT, TIE, want, 3);
}
END_TEST

START_TEST(test_single_path)
{
	static const double thr[1][7] = { { 1, 2, 3, 4, 5, 6, 7 } };
	static const double cpu[1][7] = { { 7, 6, 5, 4, 3, 2, 1 } };
	static const struct cal_range want[] = { { 0, SW } };
	struct cal_point pts[7];

	fill(pts, 1, thr, cpu);
	for (int o = 0; o < HWOFF_OBJECTIVE_COUNT; o++)
		derive_eq(pts, 7, 1, o, TIE, want, 1);
}
END_TEST

/* Noise around a near-tie does not flip the choice: the path in use stays until beaten. */
START_TEST(test_noise)
{
	static const double thr[2][7] = {
		{ 100, 100, 100, 100, 100, 100, 100 },
		{ 50, 99, 101, 99, 103, 150, 200 },
	};
	static const double cpu[2][7] = {
		{ 10, 10, 10, 10, 10, 10, 10 },
		{ 10, 10, 10, 10, 10, 10, 10 },
	};
	static const struct cal_range want[] = { { 0, SW }, { 8192, 1 } };
	struct cal_point pts[7];
	struct cal_ranges r;

	fill(pts, 2, thr, cpu);
	derive_eq(pts, 7, 3, HWOFF_THROUGHPUT, TIE, want, 2);
	/* Without the tie the noise makes four ranges. */
	ck_assert_uint_eq(cal_derive(pts, 7, 3, NULL, HWOFF_THROUGHPUT, 0, &r), 4);
}
END_TEST

/*
 * A spread is noise, not a tie: the best median wins (the calibration measures more where the
 * noise hides the choice). Before, overlapping repeats were a tie and the path in use stayed:
 * SHA2-256 stayed on PIO at 1 MiB (PIO's repeats 112-181 MB/s, DMA 170-176) and never reached DMA.
 */
START_TEST(test_spread_is_not_a_tie)
{
	struct cal_point pts[3] = {
		{ .size = 4096, .bytes_per_s = { 50, 100, 60 }, .cpu_ns_per_byte = { 10, 7, 4 } },
		{ .size = 65536,
		  .bytes_per_s = { 50, 150, 172 },
		  .cpu_ns_per_byte = { 10, 7, 4 },
		  .bytes_per_s_spread = { 0.1, 0.6, 0.02 },
		  .repeats = { 3, 3, 3 } },
		{ .size = 1048576,
		  .bytes_per_s = { 50, 150, 173 },
		  .cpu_ns_per_byte = { 10, 7, 4 },
		  .bytes_per_s_spread = { 0.1, 0.6, 0.02 },
		  .repeats = { 3, 3, 3 } },
	};
	static const struct cal_range want[] = { { 0, 1 }, { 16384, 2 } };
	double margin;

	derive_eq(pts, 3, 7, HWOFF_THROUGHPUT, TIE, want, 2);
	ck_assert(!cal_tied(&pts[2], HWOFF_THROUGHPUT, 1, 2, TIE));
	/* 13 % behind, but 3 repeats spread by 60 % cannot tell: more repeats are needed */
	ck_assert_int_eq(cal_compare(&pts[2], HWOFF_THROUGHPUT, 2, 1, TIE, &margin), CAL_UNCLEAR);
	ck_assert_double_eq_tol(margin, 23.0 / 173, 1e-9);
	/* 25 repeats spread by 10 % can */
	pts[2].repeats[1] = pts[2].repeats[2] = 25;
	pts[2].bytes_per_s_spread[1] = 0.1;
	ck_assert_int_eq(cal_compare(&pts[2], HWOFF_THROUGHPUT, 2, 1, TIE, NULL), CAL_CLEAR);
	ck_assert_int_eq(cal_compare(&pts[2], HWOFF_THROUGHPUT, 1, 2, TIE, &margin), CAL_CLEAR);
	ck_assert(margin < 0);
	/* within the tie the paths are equal, whatever the noise */
	pts[2].bytes_per_s[1] = 170;
	ck_assert_int_eq(cal_compare(&pts[2], HWOFF_THROUGHPUT, 2, 1, TIE, NULL), CAL_EQUAL);
	ck_assert(cal_tied(&pts[2], HWOFF_THROUGHPUT, 1, 2, TIE));
	/* CPU: fewer ns per byte lead; 4 against 7 with no spread known is clear */
	ck_assert_int_eq(cal_compare(&pts[0], HWOFF_CPU, 2, 1, TIE, &margin), CAL_CLEAR);
	ck_assert_double_eq_tol(margin, 3.0 / 7, 1e-9);
}
END_TEST

/* The median without outliers (Tukey's fences, from 4 figures), the spread of what is left. */
START_TEST(test_median_spread)
{
	double odd[] = { 5, 1, 3 }, even[] = { 4, 1, 3, 2 }, slow[] = { 10, 10.2, 9.9, 10.1, 30 };
	double spread;
	unsigned int kept;

	ck_assert_double_eq(cal_median(odd, 3, &spread, &kept), 3);
	ck_assert_double_eq_tol(spread, 4.0 / 3, 1e-12);
	ck_assert_uint_eq(kept, 3);
	ck_assert_double_eq(cal_median(even, 4, &spread, &kept), 2.5);
	ck_assert_double_eq_tol(spread, (4.0 - 2) / 2.5, 1e-12);
	ck_assert_uint_eq(kept, 4);
	/* one sample slowed threefold by a busy moment is left out */
	ck_assert_double_eq_tol(cal_median(slow, 5, &spread, &kept), 10.05, 1e-12);
	ck_assert_uint_eq(kept, 4);
	ck_assert_double_eq_tol(spread, (10.2 - 10) / 10.05, 1e-12);
}
END_TEST

/* Random noise over clear winners: whatever the noise, at most HWOFF_RANGES_MAX valid ranges. */
START_TEST(test_too_many_crossovers)
{
	struct cal_point pts[CAL_POINTS_MAX];
	struct test_rng rng;
	struct cal_ranges r;

	test_rng_init(&rng, 5);
	for (size_t i = 0; i < CAL_POINTS_MAX; i++) {
		pts[i] = (struct cal_point){ .size = 16 * (i + 1) };
		for (unsigned int p = 0; p < 3; p++) {
			pts[i].bytes_per_s[p] = (double)test_rng_range(&rng, 1, 1000);
			pts[i].cpu_ns_per_byte[p] = (double)test_rng_range(&rng, 1, 1000);
		}
	}
	for (int o = 0; o < HWOFF_OBJECTIVE_COUNT; o++) {
		unsigned int n = cal_derive(pts, CAL_POINTS_MAX, 7, NULL, o, TIE, &r);

		ck_assert_uint_ge(n, 1);
		ck_assert_uint_le(n, HWOFF_RANGES_MAX);
		ck_assert_uint_eq(r.r[0].start, 0);
		for (unsigned int k = 1; k < n; k++) {
			ck_assert_uint_gt(r.r[k].start, r.r[k - 1].start);
			ck_assert_uint_ne(r.r[k].path, r.r[k - 1].path);
			ck_assert_uint_eq(r.r[k].start % CAL_STEP, 0);
		}
	}
}
END_TEST

/* A path outside the mask, or not measured at a size, is never chosen there. */
START_TEST(test_mask_and_unmeasured)
{
	static const double thr[3][7] = {
		{ 100, 100, 100, 100, 100, 100, 100 },
		{ 900, 900, 900, 900, 900, 900, 900 },
		{ 0, 0, 0, 500, 500, 500, 500 },
	};
	static const double cpu[3][7] = {
		{ 10, 10, 10, 10, 10, 10, 10 },
		{ 1, 1, 1, 1, 1, 1, 1 },
		{ 0, 0, 0, 1, 1, 1, 1 },
	};
	static const struct cal_range want[] = { { 0, SW }, { 512, DMA } };
	struct cal_point pts[7];
	struct cal_ranges r;

	fill(pts, 3, thr, cpu);
	derive_eq(pts, 7, (1u << SW) | (1u << DMA), HWOFF_THROUGHPUT, TIE, want, 2);
	ck_assert_int_eq(cal_winner(&pts[0], 1u << DMA, HWOFF_THROUGHPUT, TIE, -1), -1);
	ck_assert_uint_eq(cal_derive(pts, 3, 1u << DMA, NULL, HWOFF_CPU, TIE, &r), 0);
}
END_TEST

/* Two adjacent points one step apart: the new path starts at the larger one. */
START_TEST(test_boundary_rounding)
{
	struct cal_point pts[2] = {
		{ .size = 16, .bytes_per_s = { 100, 1 }, .cpu_ns_per_byte = { 1, 1 } },
		{ .size = 32, .bytes_per_s = { 1, 100 }, .cpu_ns_per_byte = { 1, 1 } },
	};
	static const struct cal_range want[] = { { 0, 0 }, { 32, 1 } };

	derive_eq(pts, 2, 3, HWOFF_THROUGHPUT, TIE, want, 2);
}
END_TEST

/*
 * DMA verified only up to 4 KiB (its check at 16 KiB failed or hung, so it has no figures
 * above), PIO up to 64 KiB, the largest size measured: no range of either reaches past its
 * limit, whatever the geometric means say, and sizes past 64 KiB go to software.
 */
START_TEST(test_verified_limits)
{
	static const double thr[3][7] = {
		{ 100, 100, 100, 100, 100, 100, 100 },
		{ 10, 40, 90, 150, 190, 200, 200 },
		{ 1, 4, 16, 60, 900, 0, 0 },
	};
	static const double cpu[3][7] = {
		{ 10, 10, 10, 10, 10, 10, 10 },
		{ 50, 20, 12, 9, 8, 8, 8 },
		{ 400, 100, 25, 15, 1.5, 0, 0 },
	};
	static const size_t limits[3] = { SIZE_MAX, 65536, 4096 };
	/* both objectives; unlimited, DMA would serve 2048-8191 (geometric mean of 4 and 16 KiB) */
	static const struct cal_range want[] = {
		{ 0, SW }, { 512, PIO }, { 2048, DMA }, { 4097, PIO }, { 65537, SW }
	};
	static const struct cal_range without_limits[] = {
		{ 0, SW }, { 512, PIO }, { 2048, DMA }, { 8192, PIO }
	};
	struct cal_point pts[7];
	struct cal_subject s = { .path_count = 3 };
	size_t from_subject[CAL_PATHS_MAX];

	fill(pts, 3, thr, cpu);
	derive_limited_eq(pts, 7, 7, limits, HWOFF_THROUGHPUT, TIE, want, 5);
	derive_limited_eq(pts, 7, 7, limits, HWOFF_CPU, TIE, want, 5);
	derive_eq(pts, 7, 7, HWOFF_THROUGHPUT, TIE, without_limits, 4);

	/* cal_limits(): software without limit, a kernel path up to what it was verified at */
	s.paths[SW].software = true;
	s.paths[PIO].verified = 65536;
	s.paths[DMA].verified = 4096;
	s.paths[DMA].limited = true;
	cal_limits(&s, from_subject);
	ck_assert_uint_eq(from_subject[SW], SIZE_MAX);
	ck_assert_uint_eq(from_subject[PIO], 65536);
	ck_assert_uint_eq(from_subject[DMA], 4096);
	/* checked at the most the kernel gets in one request: every size */
	s.paths[PIO].serves_all = true;
	cal_limits(&s, from_subject);
	ck_assert_uint_eq(from_subject[PIO], SIZE_MAX);
}
END_TEST

/*
 * A path verified only to 64 KiB, alternating with software every two points up to there, then
 * software for one point and DMA above: too many ranges. Cutting them down to HWOFF_RANGES_MAX
 * must not hand the software point after 64 KiB to the limited path before it (it goes to DMA),
 * nor start the next range past its limit.
 */
START_TEST(test_verified_limit_survives_merging)
{
	static const size_t limits[3] = { SIZE_MAX, 65536, SIZE_MAX };
	struct cal_point pts[CAL_POINTS_MAX];
	struct cal_ranges r;
	unsigned int n;

	for (size_t i = 0; i < CAL_POINTS_MAX; i++) {
		size_t size = 4096 * (i + 1);
		unsigned int w = size <= 65536 ? (i / 2 % 2 ? PIO : SW) : size == 69632 ? SW : DMA;

		pts[i] = (struct cal_point){ .size = size };
		for (unsigned int p = 0; p < 3; p++) {
			if (p == PIO && size > limits[PIO])
				continue; /* not measured past its limit */
			pts[i].bytes_per_s[p] = p == w ? 1000 : 100;
			pts[i].cpu_ns_per_byte[p] = p == w ? 1 : 10;
		}
	}
	for (int o = 0; o < HWOFF_OBJECTIVE_COUNT; o++) {
		n = cal_derive(pts, CAL_POINTS_MAX, 7, limits, o, TIE, &r);
		ck_assert_uint_le(n, HWOFF_RANGES_MAX);
		ck_assert_uint_gt(r.cut, 0); /* said, for the report and the guest suite */
		ck_assert_uint_eq(r.r[0].start, 0);
		for (unsigned int k = 0; k < n; k++) {
			size_t end = k + 1 < n ? r.r[k + 1].start - 1 : SIZE_MAX;

			if (k)
				ck_assert_uint_gt(r.r[k].start, r.r[k - 1].start);
			ck_assert_msg(end <= limits[r.r[k].path],
				      "range %u of path %u ends at %zu, past %zu", k, r.r[k].path,
				      end, limits[r.r[k].path]);
		}
		ck_assert_uint_eq(r.r[n - 1].path, DMA);
	}
}
END_TEST

static const struct hwoff_alg cbc = { .mode = HWOFF_MODE_CBC }, gcm = { .mode = HWOFF_MODE_GCM };

static void engine_subject(struct cal_subject *s, const struct hwoff_alg *alg,
			   const double thr[][7])
{
	static const double cpu[3][7];

	*s = (struct cal_subject){ .alg = alg, .path_count = 3 };
	s->paths[SW].software = true;
	s->paths[PIO].class = HWOFF_IMPL_ENGINE_PIO;
	s->paths[DMA].class = HWOFF_IMPL_ENGINE_DMA;
	s->point_count = 7;
	fill(s->points, 3, thr, cpu);
}

/* The auto driver's threshold: PIO/DMA only, software's figures play no part. */
START_TEST(test_engine_threshold)
{
	static const double crossing[3][7] = {
		{ 9999, 9999, 9999, 9999, 9999, 9999, 9999 },
		{ 10, 40, 90, 150, 190, 200, 200 },
		{ 1, 4, 16, 60, 180, 700, 1500 },
	};
	static const double pio_only[3][7] = {
		{ 1, 1, 1, 1, 1, 1, 1 },
		{ 10, 40, 90, 150, 190, 200, 200 },
		{ 1, 4, 16, 60, 100, 100, 100 },
	};
	static const double noisy[3][7] = {
		{ 1, 1, 1, 1, 1, 1, 1 },
		{ 10, 40, 90, 150, 190, 200, 200 },
		{ 1, 4, 60, 60, 300, 400, 150 },
	};
	static const double dma_only[3][7] = {
		{ 1, 1, 1, 1, 1, 1, 1 },
		{ 1, 1, 1, 1, 1, 1, 1 },
		{ 2, 2, 2, 2, 2, 2, 2 },
	};
	struct cal_subject s;
	unsigned int threshold;

	engine_subject(&s, &cbc, crossing);
	ck_assert(cal_engine_threshold(&s, &threshold));
	ck_assert_uint_eq(threshold, 8191);
	engine_subject(&s, &cbc, pio_only);
	ck_assert(cal_engine_threshold(&s, &threshold));
	ck_assert_uint_eq(threshold, UINT_MAX);
	/* PIO wins at 64 KiB by noise: the crossover stays where most sizes put it. */
	engine_subject(&s, &cbc, noisy);
	ck_assert(cal_engine_threshold(&s, &threshold));
	ck_assert_uint_eq(threshold, 2047);
	engine_subject(&s, &cbc, dma_only);
	ck_assert(cal_engine_threshold(&s, &threshold));
	ck_assert_uint_eq(threshold, 0);
	/*
	 * GCM: the driver takes no threshold past the FIFO (PIO does not split a message), so that
	 * is "PIO throughout", and a crossover past it is the FIFO too; one below it stays.
	 */
	engine_subject(&s, &gcm, pio_only);
	ck_assert(cal_engine_threshold(&s, &threshold));
	ck_assert_uint_eq(threshold, HWE_FIFO_DEPTH);
	engine_subject(&s, &gcm, crossing);
	ck_assert(cal_engine_threshold(&s, &threshold));
	ck_assert_uint_eq(threshold, HWE_FIFO_DEPTH);
	engine_subject(&s, &gcm, noisy);
	ck_assert(cal_engine_threshold(&s, &threshold));
	ck_assert_uint_eq(threshold, 2047);
	engine_subject(&s, &gcm, dma_only);
	ck_assert(cal_engine_threshold(&s, &threshold));
	ck_assert_uint_eq(threshold, 0);
	s.paths[DMA].failed = true;
	ck_assert(!cal_engine_threshold(&s, &threshold));
	s.paths[DMA].failed = false;
	s.paths[DMA].class = HWOFF_IMPL_OFFLOAD;
	ck_assert(!cal_engine_threshold(&s, &threshold));
}
END_TEST

/*
 * The software threshold: the auto driver's software tier (a path of its own, never the table's)
 * against the better of PIO and DMA at each size; software's figures play no part.
 */
START_TEST(test_software_threshold)
{
	enum { TIER = 3 };
	static const double crossing[4][7] = {
		{ 9999, 9999, 9999, 9999, 9999, 9999, 9999 },
		{ 10, 40, 90, 150, 190, 200, 200 },
		{ 1, 4, 16, 60, 180, 700, 1500 },
		{ 50, 80, 100, 110, 115, 120, 120 },
	};
	static const double engine_best[4][7] = {
		{ 1, 1, 1, 1, 1, 1, 1 },
		{ 10, 40, 90, 150, 190, 200, 200 },
		{ 1, 4, 16, 60, 180, 700, 1500 },
		{ 5, 5, 5, 5, 5, 5, 5 },
	};
	static const double tier_best[4][7] = {
		{ 1, 1, 1, 1, 1, 1, 1 },
		{ 10, 40, 90, 150, 190, 200, 200 },
		{ 1, 4, 16, 60, 180, 700, 1500 },
		{ 9000, 9000, 9000, 9000, 9000, 9000, 9000 },
	};
	static const double cpu[4][7];
	const double(*curves[3])[7] = { crossing, engine_best, tier_best };
	static const unsigned int want[3] = { 511, 0, UINT_MAX };
	struct cal_subject s;
	unsigned int threshold;

	for (int c = 0; c < 3; c++) {
		s = (struct cal_subject){ .alg = &cbc, .path_count = 4, .point_count = 7 };
		s.paths[SW].software = true;
		s.paths[PIO].class = HWOFF_IMPL_ENGINE_PIO;
		s.paths[DMA].class = HWOFF_IMPL_ENGINE_DMA;
		s.paths[TIER].class = HWOFF_IMPL_CPU;
		s.paths[TIER].kernel_software = true;
		s.paths[TIER].serves_all = true;
		snprintf(s.paths[TIER].name, sizeof(s.paths[TIER].name), "cbc(aes-generic)");
		fill(s.points, 4, curves[c], cpu);
		ck_assert_int_eq(cal_software_tier(&s), TIER);
		ck_assert(cal_software_threshold(&s, &threshold));
		ck_assert_uint_eq(threshold, want[c]);
		/* never a path of the table, nor proven in it */
		ck_assert_uint_eq(cal_usable(&s), 7);
		ck_assert_uint_eq(cal_proven(&s, 1, "cbc(aes-generic)"), 0);
	}
	s.paths[TIER].failed = true;
	ck_assert_int_eq(cal_software_tier(&s), -1);
	ck_assert(!cal_software_threshold(&s, &threshold));
	s.paths[TIER].failed = false;
	s.paths[DMA].failed = true;
	ck_assert(!cal_software_threshold(&s, &threshold));
}
END_TEST

/* A driver's proof: the least over the subjects it served, failed ones left out. */
START_TEST(test_proven)
{
	struct cal_subject s[3] = { { .path_count = 3 }, { .path_count = 2 }, { .path_count = 2 } };

	for (int i = 0; i < 3; i++) {
		s[i].paths[0] = (struct cal_path){ .name = HWOFF_SOFTWARE, .software = true };
		s[i].paths[1] = (struct cal_path){ .name = "other", .serves_all = true };
	}
	s[0].paths[2] =
		(struct cal_path){ .name = "engine", .verified = 1048576, .serves_all = true };
	ck_assert_uint_eq(cal_proven(s, 3, "engine"), HWOFF_PROVEN_ALL);
	ck_assert_uint_eq(cal_proven(s, 3, "other"), HWOFF_PROVEN_ALL);
	ck_assert_uint_eq(cal_proven(s, 3, "nobody"), 0);
	ck_assert_uint_eq(cal_proven(s, 3, HWOFF_SOFTWARE), 0);
	/* limited in one subject (a check failed or hung above 65536): that bounds it */
	s[1].path_count = 3;
	s[1].paths[2] = (struct cal_path){ .name = "engine", .verified = 65536, .limited = true };
	ck_assert_uint_eq(cal_proven(s, 3, "engine"), 65536);
	/* failed in another: it serves nothing there, which bounds nothing */
	s[2].path_count = 3;
	s[2].paths[2] = (struct cal_path){ .name = "engine", .failed = true };
	ck_assert_uint_eq(cal_proven(s, 3, "engine"), 65536);
	s[2].paths[2] = (struct cal_path){ .name = "engine", .verified = 4096 };
	ck_assert_uint_eq(cal_proven(s, 3, "engine"), 4096);
	s[0].paths[2].failed = s[1].paths[2].failed = s[2].paths[2].failed = true;
	ck_assert_uint_eq(cal_proven(s, 3, "engine"), 0);
}
END_TEST

int main(void)
{
	Suite *suite = suite_create("calibrate-derive");
	TCase *tc = tcase_create("derive");

	tcase_add_test(tc, test_known_curves);
	tcase_add_test(tc, test_ties);
	tcase_add_test(tc, test_tie_goes_to_the_cheaper_path);
	tcase_add_test(tc, test_single_path);
	tcase_add_test(tc, test_noise);
	tcase_add_test(tc, test_median_spread);
	tcase_add_test(tc, test_spread_is_not_a_tie);
	tcase_add_test(tc, test_too_many_crossovers);
	tcase_add_test(tc, test_mask_and_unmeasured);
	tcase_add_test(tc, test_boundary_rounding);
	tcase_add_test(tc, test_verified_limits);
	tcase_add_test(tc, test_verified_limit_survives_merging);
	tcase_add_test(tc, test_engine_threshold);
	tcase_add_test(tc, test_software_threshold);
	tcase_add_test(tc, test_proven);
	suite_add_tcase(suite, tc);
	return test_run_suite(suite);
}

// SPDX-License-Identifier: Apache-2.0
/*
 * backend_discover_test.c - discovery on real /proc/crypto captures (test/data/proc-crypto-*:
 * Debian 6.1 and 6.12 guests with and without AES-NI/AVX, this build host's 6.18, a 6.1 guest
 * with a paravirtual engine and its /sys/module and crypto_user answers), on fixtures for
 * another vendor's engine (omap) and for ours, and on malformed text.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backend/algs.h"
#include "backend/discover.h"
#include "test/host/backend_test.h"

static struct hwoff_discovery *d;

static void setup(void)
{
	d = calloc(1, sizeof(*d));
	ck_assert_ptr_nonnull(d);
}

static void teardown(void)
{
	free(d);
}

static void load(const char *name)
{
	char path[4096], err[512];

	test_data_path(path, sizeof(path), name);
	ck_assert_msg(hwoff_discovery_load(d, path, err, sizeof(err)) == 0, "%s", err);
}

static int read_text(const char *text, char *err, size_t err_len);

static void read_modules(const char *name)
{
	char path[4096];

	test_data_path(path, sizeof(path), name);
	hwoff_discovery_read_modules(d, path);
}

static const struct hwoff_impl *find(const char *driver)
{
	const struct hwoff_impl *impl = hwoff_discovery_find(d, driver);

	ck_assert_msg(impl != NULL, "driver %s not discovered", driver);
	return impl;
}

static bool row_has_kernel_name(const char *kernel_name)
{
	for (size_t a = 0; a < HWOFF_ALG_COUNT; a++)
		if (strcmp(hwoff_algs[a].kernel_name, kernel_name) == 0)
			return true;
	return false;
}

/*
 * What discovery kept and skipped of the capture name, against a count made here from its lines,
 * so that it follows the rows of algs.h: entries of a row's kernel name that are internal
 * ("internal : yes" or a name starting "__", of the kernel name after the "__"); of the others,
 * those whose self-test did not pass; the rest, each of which must have been discovered, so
 * that d->count equal to their number means discovery kept exactly these.
 */
static void assert_kept_as_rows_say(const char *name)
{
	char path[4096], line[512], key[32], value[HWOFF_NAME_MAX];
	char impl_name[HWOFF_NAME_MAX] = "", driver[HWOFF_NAME_MAX] = "";
	bool internal = false, passed = false, more = true, rows;
	size_t usable = 0, skipped_internal = 0, skipped_not_passed = 0;
	FILE *in;

	test_data_path(path, sizeof(path), name);
	in = fopen(path, "r");
	ck_assert_msg(in != NULL, "%s", path);
	while (more) {
		more = fgets(line, sizeof(line), in) != NULL;
		if (more && sscanf(line, "%31[^ :] : %127[^\n]", key, value) == 2) {
			if (strcmp(key, "name") == 0)
				snprintf(impl_name, sizeof(impl_name), "%s", value);
			else if (strcmp(key, "driver") == 0)
				snprintf(driver, sizeof(driver), "%s", value);
			else if (strcmp(key, "internal") == 0)
				internal = strcmp(value, "yes") == 0;
			else if (strcmp(key, "selftest") == 0)
				passed = strcmp(value, "passed") == 0;
			continue;
		}
		/* a blank line or the end: the entry is complete */
		rows = driver[0] && row_has_kernel_name(impl_name + strspn(impl_name, "_"));
		if (rows && (internal || strncmp(impl_name, "__", 2) == 0)) {
			skipped_internal++;
		} else if (rows && !passed) {
			skipped_not_passed++;
		} else if (rows) {
			find(driver);
			usable++;
		}
		impl_name[0] = driver[0] = '\0';
		internal = passed = false;
	}
	fclose(in);
	ck_assert_msg(usable > 0, "%s lists no implementation of the rows' kernel names", name);
	ck_assert_msg(d->count == usable, "%s: %zu kept, %zu usable", name, d->count, usable);
	ck_assert_msg(d->skipped_internal == skipped_internal,
		      "%s: %zu skipped as internal, %zu are", name, d->skipped_internal,
		      skipped_internal);
	ck_assert_msg(d->skipped_not_passed == skipped_not_passed,
		      "%s: %zu skipped as not passed, %zu are", name, d->skipped_not_passed,
		      skipped_not_passed);
}

static void assert_all_cpu(void)
{
	for (size_t i = 0; i < d->count; i++)
		ck_assert_msg(d->impls[i].class == HWOFF_IMPL_CPU, "%s is %s", d->impls[i].driver,
			      hwoff_impl_class_name(d->impls[i].class));
}

static const char *const kernel_names[] = {
	"ecb(aes)", "cbc(aes)", "ctr(aes)", "md5", "sha1", "sha224", "sha256", "sha384", "sha512",
};

static void assert_no_offload(void)
{
	for (size_t i = 0; i < sizeof(kernel_names) / sizeof(kernel_names[0]); i++)
		ck_assert_ptr_null(hwoff_discovery_offload_for(d, kernel_names[i]));
}

/* AES-NI skciphers are async (a crypto/simd.c wrapper of "__cbc-aes-aesni"), yet CPU code. */
START_TEST(test_debian_6_1_aesni)
{
	const struct hwoff_impl *cbc;

	load("proc-crypto-6.1-max.txt");
	/*
	 * With today's rows: SHA-1 and the four SHA-2 in 4 drivers each, MD5 and each AES mode in
	 * one kept (24); __D and cryptd(__D) of the 3 AES modes skipped as internal (6).
	 */
	assert_kept_as_rows_say("proc-crypto-6.1-max.txt");
	cbc = find("cbc-aes-aesni");
	ck_assert_str_eq(cbc->name, "cbc(aes)");
	ck_assert_str_eq(cbc->module, "aesni_intel");
	ck_assert_str_eq(cbc->type, "skcipher");
	ck_assert_int_eq(cbc->priority, 400);
	ck_assert(cbc->async);
	ck_assert(cbc->simd_wrapper);
	ck_assert_int_eq(cbc->fips_allowed, HWOFF_FIPS_UNKNOWN);
	ck_assert_int_eq(find("md5-generic")->priority, 0);
	ck_assert(!find("sha256-avx2")->async);
	ck_assert_ptr_null(hwoff_discovery_find(d, "__cbc-aes-aesni"));
	ck_assert_ptr_null(hwoff_discovery_find(d, "aes-aesni")); /* not a table name */
	ck_assert_ptr_nonnull(strstr(d->basis, "/proc/crypto"));
	assert_all_cpu();
	assert_no_offload();
}
END_TEST

/* 6.12 adds cryptd instances named "__cbc(aes)": internal, skipped, and CPU anyway. */
START_TEST(test_debian_6_12_aesni)
{
	load("proc-crypto-6.12-max.txt");
	assert_kept_as_rows_say("proc-crypto-6.12-max.txt");
	ck_assert(find("ctr-aes-aesni")->simd_wrapper);
	assert_all_cpu();
	assert_no_offload();
}
END_TEST

START_TEST(test_debian_6_1_generic_cpu)
{
	load("proc-crypto-6.1-qemu64.txt");
	assert_kept_as_rows_say("proc-crypto-6.1-qemu64.txt"); /* one of each kernel name */
	ck_assert(!find("cbc(aes-generic)")->async);
	ck_assert_str_eq(find("ctr(aes-generic)")->module, "ctr");
	assert_all_cpu();
}
END_TEST

/* The build host: 6.18 has lskcipher and "-lib" hashes. */
START_TEST(test_host_6_18_lskcipher)
{
	load("proc-crypto-6.18-host.txt");
	assert_kept_as_rows_say("proc-crypto-6.18-host.txt");
	ck_assert_str_eq(find("cbc(ecb(aes-fixed-time))")->type, "lskcipher");
	ck_assert_int_eq(find("sha256-lib")->priority, 300);
	assert_all_cpu();
}
END_TEST

START_TEST(test_foreign_engine_omap)
{
	const struct hwoff_impl *omap;

	load("proc-crypto-omap.txt");
	omap = find("cbc-aes-omap");
	ck_assert_int_eq(omap->class, HWOFF_IMPL_OFFLOAD);
	ck_assert_str_eq(omap->module, "omap_aes_driver");
	ck_assert_int_eq(omap->priority, 300);
	ck_assert_int_eq(find("omap-sha256")->class, HWOFF_IMPL_OFFLOAD);
	ck_assert_int_eq(find("omap-md5")->class, HWOFF_IMPL_OFFLOAD);
	/* NEON bit-sliced AES is async through the same SIMD wrapper as AES-NI */
	ck_assert_int_eq(find("cbc-aes-neonbs")->class, HWOFF_IMPL_CPU);
	ck_assert_int_eq(find("cbc(aes-arm)")->class, HWOFF_IMPL_CPU);
	ck_assert_int_eq(find("sha256-neon")->class, HWOFF_IMPL_CPU);
	ck_assert_ptr_null(hwoff_discovery_find(d, "omap-sha512")); /* self-test not passed */
	assert_kept_as_rows_say("proc-crypto-omap.txt"); /* omap-sha512 skipped as not passed */
	/* another vendor's engine is no default: it serves only what a calibration proved */
	ck_assert_ptr_null(hwoff_discovery_offload_for(d, "cbc(aes)"));
	ck_assert_ptr_null(hwoff_discovery_offload_for(d, "ctr(aes)"));
	ck_assert_ptr_null(hwoff_discovery_offload_for(d, "sha256"));
	ck_assert_ptr_null(hwoff_discovery_offload_for(d, "sha512"));
	ck_assert_ptr_null(hwoff_discovery_offload_for(d, "sha384"));
}
END_TEST

START_TEST(test_bundled_engine)
{
	load("proc-crypto-6.1-hwoffload.txt");
	assert_kept_as_rows_say("proc-crypto-6.1-hwoffload.txt");
	ck_assert_int_eq(find("cbc-aes-hwoffload-pio")->class, HWOFF_IMPL_ENGINE_PIO);
	ck_assert_int_eq(find("ecb-aes-hwoffload-dma")->class, HWOFF_IMPL_ENGINE_DMA);
	ck_assert_int_eq(find("ctr-aes-hwoffload")->class, HWOFF_IMPL_ENGINE_AUTO);
	ck_assert_int_eq(find("cbc-aes-aesni")->class, HWOFF_IMPL_CPU);
	ck_assert_str_eq(hwoff_discovery_offload_for(d, "cbc(aes)")->driver, "cbc-aes-hwoffload");
	ck_assert_ptr_null(hwoff_discovery_offload_for(d, "sha256"));
}
END_TEST

/*
 * crypto_user's answers as recorded (test/data/README), put where
 * hwoff_discovery_query_kernel_flags() puts them; returns how many of d's implementations got one.
 */
static size_t inject_kernel_flags(const char *name)
{
	char path[4096], driver[HWOFF_NAME_MAX];
	unsigned int flags;
	size_t answered = 0;
	FILE *in;

	test_data_path(path, sizeof(path), name);
	in = fopen(path, "r");
	ck_assert_msg(in != NULL, "%s", path);
	while (fscanf(in, "%127s %x", driver, &flags) == 2) {
		struct hwoff_impl *impl = (struct hwoff_impl *)hwoff_discovery_find(d, driver);

		if (!impl)
			continue;
		impl->kernel_flags = flags;
		impl->kernel_flags_known = true;
		answered++;
	}
	fclose(in);
	return answered;
}

/*
 * virtio_crypto (QEMU's virtio-crypto-pci) is an engine that does not set
 * CRYPTO_ALG_KERN_DRIVER_ONLY. It is an engine by /proc/crypto alone, by /proc/crypto and
 * /sys/module, and still with crypto_user's answers; every other driver keeps its class too.
 */
START_TEST(test_paravirtual_engine_either_way)
{
	enum hwoff_impl_class without_netlink[HWOFF_IMPLS_MAX];
	const struct hwoff_impl *virtio;

	load("proc-crypto-6.1-virtio.txt");
	assert_kept_as_rows_say("proc-crypto-6.1-virtio.txt");
	virtio = find("virtio_crypto_aes_cbc");
	ck_assert_int_eq(virtio->class, HWOFF_IMPL_OFFLOAD);
	read_modules("sys-module-6.1-virtio");
	ck_assert(virtio->binds_device);
	ck_assert_int_eq(virtio->class, HWOFF_IMPL_OFFLOAD);
	/* aesni_intel holds crypto_simd, which binds nothing */
	ck_assert(!find("cbc-aes-aesni")->binds_device);
	ck_assert_ptr_nonnull(strstr(d->basis, "sys-module-6.1-virtio"));
	ck_assert_ptr_null(hwoff_discovery_offload_for(d, "cbc(aes)"));
	for (size_t i = 0; i < d->count; i++) {
		without_netlink[i] = d->impls[i].class;
		ck_assert_msg(d->impls[i].class == HWOFF_IMPL_CPU || &d->impls[i] == virtio,
			      "%s is %s", d->impls[i].driver,
			      hwoff_impl_class_name(d->impls[i].class));
	}

	ck_assert_uint_eq(inject_kernel_flags("crypto-user-6.1-virtio.txt"), d->count);
	ck_assert(!(virtio->kernel_flags & HWOFF_KERN_DRIVER_ONLY));
	hwoff_discovery_classify(d);
	for (size_t i = 0; i < d->count; i++)
		ck_assert_msg(d->impls[i].class == without_netlink[i], "%s: %s with netlink",
			      d->impls[i].driver, hwoff_impl_class_name(d->impls[i].class));
}
END_TEST

/* A synchronous driver of a module that binds a device is an engine; in sysfs only. */
START_TEST(test_sync_engine_by_module)
{
	char text[1024], err[256];

	snprintf(text, sizeof(text),
		 "name : cbc(aes)\ndriver : virtio_crypto_aes_cbc\nmodule : virtio_crypto\n"
		 "priority : 150\nselftest : passed\ninternal : no\ntype : skcipher\n"
		 "async : no\n");
	ck_assert_msg(read_text(text, err, sizeof(err)) == 0, "%s", err);
	ck_assert_int_eq(find("virtio_crypto_aes_cbc")->class, HWOFF_IMPL_CPU);
	read_modules("sys-module-6.1-virtio");
	ck_assert_int_eq(find("virtio_crypto_aes_cbc")->class, HWOFF_IMPL_OFFLOAD);
	read_modules("no-such-sys-module");
	ck_assert_int_eq(find("virtio_crypto_aes_cbc")->class, HWOFF_IMPL_CPU);
	ck_assert_ptr_nonnull(strstr(d->basis, "(unreadable)"));
}
END_TEST

static int read_text(const char *text, char *err, size_t err_len)
{
	FILE *in = fmemopen((void *)text, strlen(text), "r");
	int ret;

	ck_assert_ptr_nonnull(in);
	ret = hwoff_discovery_read(d, in, "text", err, err_len);
	fclose(in);
	return ret;
}

static const char *entry(const char *name, const char *driver, const char *module, int prio,
			 const char *extra)
{
	static char buf[1024];

	snprintf(buf, sizeof(buf),
		 "name : %s\ndriver : %s\nmodule : %s\npriority : %d\nselftest : passed\n"
		 "internal : no\ntype : skcipher\nasync : yes\n%s",
		 name, driver, module, prio, extra);
	return buf;
}

/* Without an auto driver, our driver of the highest priority; ours before another vendor's. */
START_TEST(test_engine_without_auto)
{
	char text[4096], err[256];

	snprintf(text, sizeof(text), "%s\n", entry("cbc(aes)", "cbc-aes-omap", "omap", 900, ""));
	strcat(text, entry("cbc(aes)", "cbc-aes-hwoffload-dma", "hwoffload", 100, "\n"));
	strcat(text, entry("cbc(aes)", "cbc-aes-hwoffload-pio", "hwoffload", 200, "fips : no\n"));
	ck_assert_msg(read_text(text, err, sizeof(err)) == 0, "%s", err);
	ck_assert_uint_eq(d->count, 3);
	ck_assert_str_eq(hwoff_discovery_offload_for(d, "cbc(aes)")->driver,
			 "cbc-aes-hwoffload-pio");
	ck_assert_int_eq(find("cbc-aes-hwoffload-pio")->fips_allowed, HWOFF_FIPS_NO);
}
END_TEST

START_TEST(test_malformed)
{
	static const struct {
		const char *text;
		const char *error;
	} cases[] = {
		{ "name : md5\nthis line has no colon\n",
		  "text:2: 'this line has no colon' is not" },
		{ "name : md5\nmodule : kernel\npriority : 0\n",
		  "text:1: entry has no 'driver' line" },
		{ "\n\nname : md5\ndriver : d\nmodule : m\n",
		  "text:3: entry has no 'priority' line" },
		{ "name : md5\ndriver : d\nmodule : m\npriority : high\n",
		  "text:4: priority 'high' is not a number" },
		{ "name : md5\ndriver : d\nmodule : m\npriority : 1\nasync : maybe\n",
		  "text:5: async is 'maybe', not yes or no" },
	};
	char err[256];

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		ck_assert_int_eq(read_text(cases[i].text, err, sizeof(err)), -1);
		ck_assert_msg(strncmp(err, cases[i].error, strlen(cases[i].error)) == 0,
			      "got '%s', want '%s...'", err, cases[i].error);
	}
}
END_TEST

START_TEST(test_missing_file)
{
	char err[256];

	ck_assert_int_eq(hwoff_discovery_load(d, "/nonexistent/crypto", err, sizeof(err)), -1);
	ck_assert_str_eq(err, "/nonexistent/crypto: No such file or directory");
}
END_TEST

/*
 * crypto_user netlink where the machine has it (a guest with the module), else the basis says
 * why. Either way the classes stay as /proc/crypto gave them.
 */
START_TEST(test_netlink_or_reason)
{
	int ret;

	load("proc-crypto-6.1-max.txt");
	ret = hwoff_discovery_query_kernel_flags(d);
	if (ret < 0) {
		ck_assert_msg(strstr(d->basis, "crypto_user netlink unavailable") != NULL, "%s",
			      d->basis);
		ck_assert_msg(strstr(d->basis, strerror(-ret)) != NULL, "%s", d->basis);
	} else {
		ck_assert_msg(strstr(d->basis, "CRYPTO_ALG_KERN_DRIVER_ONLY recorded, not used") !=
				      NULL,
			      "%s", d->basis);
	}
	assert_all_cpu();
}
END_TEST

START_TEST(test_this_machine)
{
	char err[256];

	ck_assert_msg(hwoff_discover(d, err, sizeof(err)) == 0, "%s", err);
	ck_assert_msg(d->basis[0], "no classification basis");
}
END_TEST

Suite *backend_discover_suite(void)
{
	Suite *s = suite_create("backend_discover");
	TCase *tc = tcase_create("proc_crypto");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, test_debian_6_1_aesni);
	tcase_add_test(tc, test_debian_6_12_aesni);
	tcase_add_test(tc, test_debian_6_1_generic_cpu);
	tcase_add_test(tc, test_host_6_18_lskcipher);
	tcase_add_test(tc, test_foreign_engine_omap);
	tcase_add_test(tc, test_bundled_engine);
	tcase_add_test(tc, test_engine_without_auto);
	tcase_add_test(tc, test_paravirtual_engine_either_way);
	tcase_add_test(tc, test_sync_engine_by_module);
	tcase_add_test(tc, test_malformed);
	tcase_add_test(tc, test_missing_file);
	tcase_add_test(tc, test_netlink_or_reason);
	tcase_add_test(tc, test_this_machine);
	suite_add_tcase(s, tc);
	return s;
}

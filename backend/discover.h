/* SPDX-License-Identifier: Apache-2.0 */
/*
 * discover.h - the kernel's implementations of the algorithms in algs.h, and what each one is.
 *
 * /proc/crypto lists every implementation; discovery keeps those that a user could get (not
 * internal, self-test passed) for the kernel names in the algorithm table, and classifies each:
 * the bundled engine's PIO, DMA or auto driver, another vendor's off-CPU engine, or a CPU
 * implementation in the kernel. The class rests on /proc/crypto and sysfs only, never on
 * crypto_user netlink, so that a driver gets one class whether netlink is reachable or not
 * (see classify()); netlink's CRYPTO_ALG_KERN_DRIVER_ONLY is recorded for hwoffload-info only.
 */
#ifndef HWOFF_BACKEND_DISCOVER_H
#define HWOFF_BACKEND_DISCOVER_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#define HWOFF_NAME_MAX	      128 /* the kernel's CRYPTO_MAX_ALG_NAME, NUL included */
#define HWOFF_MODULE_NAME_MAX 64 /* the kernel's MODULE_NAME_LEN is smaller */
#define HWOFF_IMPLS_MAX	      128 /* 6.12 on x86 with AVX2 has 29 */

/*
 * The value of the kernel's CRYPTO_ALG_KERN_DRIVER_ONLY (include/linux/crypto.h, "hardware not
 * directly usable by users"), mirrored here as no uapi header exports it: a bit of cru_flags.
 */
#define HWOFF_KERN_DRIVER_ONLY 0x00001000

/* The module of the bundled engine driver (kernel/); its drivers end in -pio, -dma or neither. */
#define HWOFF_ENGINE_MODULE "hwoffload"

enum hwoff_impl_class {
	HWOFF_IMPL_CPU, /* in the kernel, on the CPU: generic C, AES-NI, AVX2, NEON */
	HWOFF_IMPL_OFFLOAD, /* an off-CPU engine that is not ours */
	HWOFF_IMPL_ENGINE_AUTO, /* ours, choosing PIO or DMA by itself */
	HWOFF_IMPL_ENGINE_PIO, /* ours, always PIO */
	HWOFF_IMPL_ENGINE_DMA, /* ours, always DMA */
};

/* /proc/crypto shows "fips" only when the kernel runs in FIPS mode. */
enum hwoff_fips_allowed {
	HWOFF_FIPS_UNKNOWN,
	HWOFF_FIPS_NO,
	HWOFF_FIPS_YES,
};

struct hwoff_impl {
	char name[HWOFF_NAME_MAX]; /* cra_name, one of the table's kernel names */
	char driver[HWOFF_NAME_MAX]; /* cra_driver_name, what a path names */
	char module[HWOFF_MODULE_NAME_MAX]; /* "kernel" when built in */
	char type[32]; /* skcipher, lskcipher, shash, ahash ... */
	int priority;
	bool async;
	enum hwoff_fips_allowed fips_allowed;
	bool simd_wrapper; /* an internal "__DRIVER" exists: see classify() */
	bool binds_device; /* its module, or one linked with it, has a device driver (sysfs) */
	bool kernel_flags_known; /* kernel_flags came from crypto_user netlink */
	uint32_t kernel_flags; /* cru_flags: CRYPTO_ALG_*, shown, never used to classify */
	bool device; /* reached through the engine's own device, not AF_ALG (device.h) */
	enum hwoff_impl_class class;
};

struct hwoff_discovery {
	size_t count;
	struct hwoff_impl impls[HWOFF_IMPLS_MAX];
	size_t skipped_internal; /* internal or "__" entries of the table's kernel names */
	size_t skipped_not_passed; /* self-test failed or not run: the kernel will not hand out */
	char basis[512]; /* how the classes were decided, for the provider to report */
};

/*
 * Parse /proc/crypto text. source names the input in errors ("SOURCE:LINE: reason"). Classifies
 * by /proc/crypto alone. Returns 0, or -1 with err filled.
 */
int hwoff_discovery_read(struct hwoff_discovery *d, FILE *in, const char *source, char *err,
			 size_t err_len);
int hwoff_discovery_load(struct hwoff_discovery *d, const char *path, char *err, size_t err_len);

/*
 * Which implementations come from a module that binds a device, from the sysfs tree of modules
 * at sys_module ("/sys/module": MODULE/drivers/BUS:NAME, MODULE/holders/MODULE), and classify
 * again. A module sysfs does not show (built in, or no such tree) binds nothing known.
 */
void hwoff_discovery_read_modules(struct hwoff_discovery *d, const char *sys_module);

/* Classify every implementation from its facts (see classify()); the readers above call it. */
void hwoff_discovery_classify(struct hwoff_discovery *d);

/* Keep only the implementations the engine's device reaches (where AF_ALG is unusable). */
void hwoff_discovery_keep_device(struct hwoff_discovery *d);

/* Whether the engine's own device reaches any implementation. */
bool hwoff_discovery_has_device(const struct hwoff_discovery *d);

/*
 * The engine's own device's path named after impl, an AF_ALG driver ("dev.hwoffload0." and its
 * name: the same engine path without the socket's copies), or NULL.
 */
const struct hwoff_impl *hwoff_discovery_device_twin(const struct hwoff_discovery *d,
						     const struct hwoff_impl *impl);

/*
 * Ask crypto_user netlink (CRYPTO_MSG_GETALG) for each implementation's flags and record them;
 * the classes do not change. Returns 0, or -errno when netlink could not be used at all.
 */
int hwoff_discovery_query_kernel_flags(struct hwoff_discovery *d);

/*
 * This machine: /proc/crypto, /sys/module, netlink, then the engine's device nodes. Returns 0,
 * or -1 with err filled.
 */
int hwoff_discover(struct hwoff_discovery *d, char *err, size_t err_len);

/*
 * The first implementation of kernel_name in this class (e.g. the engine's PIO driver), one
 * through the engine's device before one through AF_ALG; or NULL.
 */
const struct hwoff_impl *hwoff_discovery_find_class(const struct hwoff_discovery *d,
						    const char *kernel_name,
						    enum hwoff_impl_class class);

/* The implementation with this driver name, or NULL. */
const struct hwoff_impl *hwoff_discovery_find(const struct hwoff_discovery *d, const char *driver);

/*
 * The engine driver a request for kernel_name goes to when no calibration says otherwise: the
 * bundled engine's auto driver, else its driver of highest priority, through its device where
 * there is one; NULL when there is none.
 * Never another vendor's engine: it serves only the sizes a calibration proved on it (table.h,
 * struct hwoff_proof), as one request of a size it cannot take may wedge it for every process.
 */
const struct hwoff_impl *hwoff_discovery_offload_for(const struct hwoff_discovery *d,
						     const char *kernel_name);

/*
 * The path of a driver of the bundled engine, by its suffix inside a template's parentheses
 * ("hmac(sha256-hwoffload-pio)": ENGINE_PIO; no suffix: ENGINE_AUTO); its device's paths too.
 */
enum hwoff_impl_class hwoff_engine_class(const char *driver);

/* "cpu", "offload", "engine-auto", "engine-pio", "engine-dma". */
const char *hwoff_impl_class_name(enum hwoff_impl_class class);

#endif

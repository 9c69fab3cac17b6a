// SPDX-License-Identifier: Apache-2.0
/*
 * discover.c - read /proc/crypto and /sys/module, classify the implementations, and record what
 * crypto_user netlink says of them.
 */
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>

#include <linux/cryptouser.h>
#include <linux/netlink.h>

#include "backend/algs.h"
#include "backend/discover.h"
#include "backend/device.h"
#include "backend/text.h"

#define PROC_CRYPTO "/proc/crypto"
#define SYS_MODULE  "/sys/module"
#define OFFLOAD_RULE                                                                           \
	"off-CPU = its module or one linked with it binds a device, or async and neither the " \
	"SIMD wrapper of an internal CPU implementation nor cryptd"
/* Modules that bind a device: 6.1 in QEMU has 5, a desktop some dozens. */
#define DEVICE_MODULES_MAX 512

/* One /proc/crypto entry while it is read; only the fields discovery uses. */
struct entry {
	unsigned int line; /* its first line, for errors */
	bool seen_name, seen_driver, seen_module, seen_priority;
	bool internal, selftest_passed;
	struct hwoff_impl impl;
};

struct parse {
	struct hwoff_discovery *d;
	const char *source;
	char *err;
	size_t err_len;
	/* drivers D that have an internal "__D": see classify() */
	size_t wrapped_count;
	char wrapped[HWOFF_IMPLS_MAX][HWOFF_NAME_MAX];
};

static int parse_error(struct parse *p, unsigned int line, const char *fmt, ...)
{
	va_list ap;
	int n = snprintf(p->err, p->err_len, "%s:%u: ", p->source, line);

	va_start(ap, fmt);
	if (n >= 0 && (size_t)n < p->err_len)
		vsnprintf(p->err + n, p->err_len - (size_t)n, fmt, ap);
	va_end(ap);
	return -1;
}

static bool ends_with(const char *s, const char *suffix)
{
	size_t len = strlen(s), suffix_len = strlen(suffix);

	return len >= suffix_len && strcmp(s + len - suffix_len, suffix) == 0;
}

enum hwoff_impl_class hwoff_engine_class(const char *driver)
{
	char name[HWOFF_NAME_MAX];
	size_t len;

	snprintf(name, sizeof(name), "%s", driver);
	for (len = strlen(name); len && name[len - 1] == ')'; len--)
		name[len - 1] = '\0';
	if (ends_with(name, "-pio"))
		return HWOFF_IMPL_ENGINE_PIO;
	if (ends_with(name, "-dma"))
		return HWOFF_IMPL_ENGINE_DMA;
	return HWOFF_IMPL_ENGINE_AUTO;
}

/*
 * Ours are known by module. The kernel's CRYPTO_ALG_KERN_DRIVER_ONLY flag would be its own word
 * for the rest, but only crypto_user netlink shows it, and engine drivers do not all set it
 * (virtio_crypto, paravirtual, does not): a class taken from it would change with netlink's reach.
 * So the class rests on what /proc/crypto and sysfs always show. A driver whose module, or a
 * module linked with it (ccp_crypto on ccp, intel_qat under qat_4xxx), binds a device is an
 * engine. So is an async one, which covers engines built into the kernel, whose module sysfs
 * does not name, but "async: yes" alone is not enough: on x86 the AES-NI skciphers are async
 * too, because crypto/simd.c wraps each internal "__cbc-aes-aesni" in an async "cbc-aes-aesni"
 * (through cryptd) for when the FPU cannot be used; such wrappers and cryptd instances are CPU
 * code. shash, lskcipher and cipher types are synchronous CPU code by construction.
 */
static enum hwoff_impl_class classify(const struct hwoff_impl *impl)
{
	if (strcmp(impl->module, HWOFF_ENGINE_MODULE) == 0)
		return hwoff_engine_class(impl->driver);
	if (impl->binds_device)
		return HWOFF_IMPL_OFFLOAD;
	if (impl->async && !impl->simd_wrapper && strncmp(impl->driver, "cryptd(", 7) != 0)
		return HWOFF_IMPL_OFFLOAD;
	return HWOFF_IMPL_CPU;
}

void hwoff_discovery_classify(struct hwoff_discovery *d)
{
	for (size_t i = 0; i < d->count; i++)
		d->impls[i].class = classify(&d->impls[i]);
}

static int copy_value(struct parse *p, unsigned int line, char *dst, size_t size, const char *key,
		      const char *value)
{
	size_t len = strlen(value);

	if (len >= size)
		return parse_error(p, line, "%s '%.40s...' is longer than %zu characters", key,
				   value, size - 1);
	memcpy(dst, value, len + 1);
	return 0;
}

static int parse_yes_no(struct parse *p, unsigned int line, const char *key, const char *value,
			bool *out)
{
	if (strcmp(value, "yes") == 0)
		*out = true;
	else if (strcmp(value, "no") == 0)
		*out = false;
	else
		return parse_error(p, line, "%s is '%s', not yes or no", key, value);
	return 0;
}

static int parse_field(struct parse *p, struct entry *e, unsigned int line, const char *key,
		       const char *value)
{
	struct hwoff_impl *impl = &e->impl;

	if (strcmp(key, "name") == 0) {
		e->seen_name = true;
		return copy_value(p, line, impl->name, sizeof(impl->name), key, value);
	}
	if (strcmp(key, "driver") == 0) {
		e->seen_driver = true;
		return copy_value(p, line, impl->driver, sizeof(impl->driver), key, value);
	}
	if (strcmp(key, "module") == 0) {
		e->seen_module = true;
		return copy_value(p, line, impl->module, sizeof(impl->module), key, value);
	}
	if (strcmp(key, "type") == 0)
		return copy_value(p, line, impl->type, sizeof(impl->type), key, value);
	if (strcmp(key, "priority") == 0) {
		char *end;
		long prio;

		errno = 0;
		prio = strtol(value, &end, 10);
		if (errno || end == value || *end || prio < INT_MIN || prio > INT_MAX)
			return parse_error(p, line, "priority '%s' is not a number", value);
		impl->priority = (int)prio;
		e->seen_priority = true;
		return 0;
	}
	if (strcmp(key, "selftest") == 0) {
		/* "unknown" when the test failed or has not run; the kernel hands out neither */
		e->selftest_passed = strcmp(value, "passed") == 0;
		return 0;
	}
	if (strcmp(key, "internal") == 0)
		return parse_yes_no(p, line, key, value, &e->internal);
	if (strcmp(key, "async") == 0)
		return parse_yes_no(p, line, key, value, &impl->async);
	if (strcmp(key, "fips") == 0) {
		bool allowed;

		if (parse_yes_no(p, line, key, value, &allowed))
			return -1;
		impl->fips_allowed = allowed ? HWOFF_FIPS_YES : HWOFF_FIPS_NO;
		return 0;
	}
	/* the type-specific lines (blocksize, keysizes, ivsize, digestsize...) are not needed */
	return 0;
}

/* Keep or count a complete entry. */
static int finish_entry(struct parse *p, struct entry *e)
{
	struct hwoff_discovery *d = p->d;
	const char *missing = !e->seen_name	  ? "name"
			      : !e->seen_driver	  ? "driver"
			      : !e->seen_module	  ? "module"
			      : !e->seen_priority ? "priority"
						  : NULL;

	if (missing)
		return parse_error(p, e->line, "entry has no '%s' line", missing);

	if (e->internal || strncmp(e->impl.name, "__", 2) == 0) {
		/* Internal entries are never handed out, but "__D" tells us D is a SIMD wrapper. */
		if (!hwoff_alg_kernel_name_known(e->impl.name + strspn(e->impl.name, "_")))
			return 0;
		d->skipped_internal++;
		if (strncmp(e->impl.driver, "__", 2) != 0)
			return 0;
		if (p->wrapped_count == HWOFF_IMPLS_MAX)
			return parse_error(p, e->line, "more than %d internal implementations",
					   HWOFF_IMPLS_MAX);
		strcpy(p->wrapped[p->wrapped_count++], e->impl.driver + 2);
		return 0;
	}
	if (!hwoff_alg_kernel_name_known(e->impl.name))
		return 0;
	if (!e->selftest_passed) {
		d->skipped_not_passed++;
		return 0;
	}
	if (d->count == HWOFF_IMPLS_MAX)
		return parse_error(p, e->line,
				   "more than %d implementations of the algorithms served",
				   HWOFF_IMPLS_MAX);
	d->impls[d->count++] = e->impl;
	return 0;
}

static char *trim(char *s)
{
	char *end;

	s += strspn(s, " \t");
	end = s + strlen(s);
	while (end > s && (end[-1] == ' ' || end[-1] == '\t' || end[-1] == '\n'))
		*--end = '\0';
	return s;
}

int hwoff_discovery_read(struct hwoff_discovery *d, FILE *in, const char *source, char *err,
			 size_t err_len)
{
	struct parse *p = calloc(1, sizeof(*p));
	struct entry e;
	bool in_entry = false;
	unsigned int line_no = 0;
	char line[512];
	int ret = -1;

	if (!p) {
		snprintf(err, err_len, "%s: out of memory", source);
		return -1;
	}
	*p = (struct parse){ .d = d, .source = source, .err = err, .err_len = err_len };
	memset(d, 0, sizeof(*d));

	while (fgets(line, sizeof(line), in)) {
		char *colon, *text;

		line_no++;
		if (!strchr(line, '\n') && !feof(in)) {
			parse_error(p, line_no, "line longer than %zu characters",
				    sizeof(line) - 2);
			goto out;
		}
		text = trim(line);
		if (!*text) {
			if (in_entry && finish_entry(p, &e))
				goto out;
			in_entry = false;
			continue;
		}
		if (!in_entry) {
			memset(&e, 0, sizeof(e));
			e.line = line_no;
			in_entry = true;
		}
		colon = strchr(text, ':');
		if (!colon) {
			parse_error(p, line_no, "'%.40s' is not a 'key : value' line", text);
			goto out;
		}
		*colon = '\0';
		if (parse_field(p, &e, line_no, trim(text), trim(colon + 1)))
			goto out;
	}
	if (ferror(in)) {
		parse_error(p, line_no + 1, "read error: %s", strerror(errno));
		goto out;
	}
	if (in_entry && finish_entry(p, &e))
		goto out;

	for (size_t i = 0; i < d->count; i++)
		for (size_t w = 0; w < p->wrapped_count; w++)
			if (strcmp(p->wrapped[w], d->impls[i].driver) == 0)
				d->impls[i].simd_wrapper = true;
	hwoff_discovery_classify(d);
	snprintf(d->basis, sizeof(d->basis), "classified from /proc/crypto: " OFFLOAD_RULE);
	ret = 0;
out:
	free(p);
	return ret;
}

int hwoff_discovery_load(struct hwoff_discovery *d, const char *path, char *err, size_t err_len)
{
	FILE *in = fopen(path, "r");
	int ret;

	if (!in) {
		snprintf(err, err_len, "%s: %s", path, strerror(errno));
		return -1;
	}
	ret = hwoff_discovery_read(d, in, path, err, err_len);
	fclose(in);
	return ret;
}

/* Whether directory path has an entry besides "." and "..". */
static bool has_entries(const char *path)
{
	DIR *dir = opendir(path);
	const struct dirent *e;
	bool found = false;

	if (!dir)
		return false;
	while (!found && (e = readdir(dir)))
		found = strcmp(e->d_name, ".") != 0 && strcmp(e->d_name, "..") != 0;
	closedir(dir);
	return found;
}

/* Whether SYS_MODULE/holder/holders/held exists: module held uses holder's symbols. */
static bool holds(const char *sys_module, const char *holder, const char *held)
{
	char path[4096];

	snprintf(path, sizeof(path), "%s/%s/holders/%s", sys_module, holder, held);
	return access(path, F_OK) == 0;
}

/* Whether module, or a module linked with it either way, is one of binders[0..count). */
static bool binds_device(const char *sys_module, const char *module,
			 char (*binders)[HWOFF_MODULE_NAME_MAX], size_t count)
{
	for (size_t i = 0; i < count; i++)
		if (strcmp(binders[i], module) == 0 || holds(sys_module, binders[i], module) ||
		    holds(sys_module, module, binders[i]))
			return true;
	return false;
}

void hwoff_discovery_read_modules(struct hwoff_discovery *d, const char *sys_module)
{
	char(*binders)[HWOFF_MODULE_NAME_MAX] = calloc(DEVICE_MODULES_MAX, sizeof(*binders));
	DIR *dir = binders ? opendir(sys_module) : NULL;
	const struct dirent *e;
	size_t count = 0;
	char path[4096];

	while (dir && count < DEVICE_MODULES_MAX && (e = readdir(dir))) {
		if (e->d_name[0] == '.' || strlen(e->d_name) >= HWOFF_MODULE_NAME_MAX)
			continue;
		snprintf(path, sizeof(path), "%s/%s/drivers", sys_module, e->d_name);
		if (has_entries(path))
			strcpy(binders[count++], e->d_name);
	}
	for (size_t i = 0; i < d->count; i++) {
		struct hwoff_impl *impl = &d->impls[i];

		/* "kernel": built in, no module of its own to look at */
		impl->binds_device = strcmp(impl->module, "kernel") != 0 &&
				     binds_device(sys_module, impl->module, binders, count);
	}
	hwoff_discovery_classify(d);
	snprintf(d->basis, sizeof(d->basis), "classified from /proc/crypto and %s%s: " OFFLOAD_RULE,
		 sys_module, dir ? "" : " (unreadable)");
	if (dir)
		closedir(dir);
	free(binders);
}

/* CRYPTO_MSG_GETALG for one driver name; fills its flags. Returns 0 or -errno. */
static int query_flags(int fd, uint32_t seq, struct hwoff_impl *impl)
{
	struct {
		struct nlmsghdr hdr;
		struct crypto_user_alg alg;
	} req;
	struct sockaddr_nl kernel = { .nl_family = AF_NETLINK };
	union {
		struct nlmsghdr hdr;
		char bytes[8192]; /* the kernel answers within NLMSG_DEFAULT_SIZE */
	} reply;
	ssize_t len;
	int left;

	if (strlen(impl->driver) >= sizeof(req.alg.cru_driver_name))
		return -ENAMETOOLONG;
	memset(&req, 0, sizeof(req));
	req.hdr.nlmsg_len = NLMSG_LENGTH(sizeof(req.alg));
	req.hdr.nlmsg_type = CRYPTO_MSG_GETALG;
	req.hdr.nlmsg_flags = NLM_F_REQUEST;
	req.hdr.nlmsg_seq = seq;
	strcpy(req.alg.cru_driver_name, impl->driver);
	if (sendto(fd, &req, req.hdr.nlmsg_len, 0, (struct sockaddr *)&kernel, sizeof(kernel)) < 0)
		return -errno;

	for (;;) {
		len = recv(fd, &reply, sizeof(reply), 0);
		if (len < 0)
			return -errno;
		left = (int)len;
		for (struct nlmsghdr *h = &reply.hdr; NLMSG_OK(h, left); h = NLMSG_NEXT(h, left)) {
			if (h->nlmsg_seq != seq)
				continue; /* a late answer to an earlier question */
			if (h->nlmsg_type == NLMSG_ERROR) {
				const struct nlmsgerr *e = NLMSG_DATA(h);

				return e->error ? e->error : -EPROTO;
			}
			if (h->nlmsg_type == CRYPTO_MSG_GETALG &&
			    NLMSG_PAYLOAD(h, 0) >= sizeof(struct crypto_user_alg)) {
				const struct crypto_user_alg *alg = NLMSG_DATA(h);

				impl->kernel_flags = alg->cru_flags;
				impl->kernel_flags_known = true;
				return 0;
			}
		}
	}
}

int hwoff_discovery_query_kernel_flags(struct hwoff_discovery *d)
{
	/* The kernel answers at once; the limit only keeps a broken kernel from hanging us. */
	const struct timeval answer_limit = { .tv_sec = 1 };
	int fd = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_CRYPTO);
	size_t unanswered = 0;
	int first_error = 0;
	const char *first_driver = "";

	if (fd < 0) {
		int error = errno;

		hwoff_appendf(
			d->basis, sizeof(d->basis),
			"; crypto_user netlink unavailable: %s (it needs the crypto_user module)",
			strerror(error));
		return -error;
	}
	setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &answer_limit, sizeof(answer_limit));
	for (size_t i = 0; i < d->count; i++) {
		int ret = query_flags(fd, (uint32_t)i + 1, &d->impls[i]);

		if (ret && !unanswered++) {
			first_error = -ret;
			first_driver = d->impls[i].driver;
		}
	}
	close(fd);

	if (!unanswered)
		hwoff_appendf(
			d->basis, sizeof(d->basis),
			"; crypto_user netlink: CRYPTO_ALG_KERN_DRIVER_ONLY recorded, not used");
	else
		hwoff_appendf(
			d->basis, sizeof(d->basis),
			"; crypto_user netlink: CRYPTO_ALG_KERN_DRIVER_ONLY recorded, not used, "
			"but not for %zu of %zu (%.64s: %s)",
			unanswered, d->count, first_driver, strerror(first_error));
	return 0;
}

int hwoff_discover(struct hwoff_discovery *d, char *err, size_t err_len)
{
	int ret = hwoff_discovery_load(d, PROC_CRYPTO, err, err_len);

	if (!ret) {
		hwoff_discovery_read_modules(d, SYS_MODULE);
		hwoff_discovery_query_kernel_flags(d); /* on failure d->basis says so */
	}
	/* a sandbox without /proc may still have the node */
	hwoff_device_discover(d, HWOFF_DEVICE_NODES);
	hwoff_discovery_classify(d);
	return ret;
}

const struct hwoff_impl *hwoff_discovery_find_class(const struct hwoff_discovery *d,
						    const char *kernel_name,
						    enum hwoff_impl_class class)
{
	const struct hwoff_impl *found = NULL;

	for (size_t i = 0; i < d->count; i++)
		if (d->impls[i].class == class && strcmp(d->impls[i].name, kernel_name) == 0 &&
		    (!found || (d->impls[i].device && !found->device)))
			found = &d->impls[i];
	return found;
}

void hwoff_discovery_keep_device(struct hwoff_discovery *d)
{
	size_t kept = 0;

	for (size_t i = 0; i < d->count; i++)
		if (d->impls[i].device)
			d->impls[kept++] = d->impls[i];
	d->count = kept;
}

bool hwoff_discovery_has_device(const struct hwoff_discovery *d)
{
	for (size_t i = 0; i < d->count; i++)
		if (d->impls[i].device)
			return true;
	return false;
}

const struct hwoff_impl *hwoff_discovery_device_twin(const struct hwoff_discovery *d,
						     const struct hwoff_impl *impl)
{
	for (size_t i = 0; !impl->device && i < d->count; i++) {
		const char *dot;

		if (!d->impls[i].device)
			continue;
		dot = strchr(d->impls[i].driver + strlen(HWOFF_DEVICE_PREFIX), '.');
		if (dot && !strcmp(dot + 1, impl->driver))
			return &d->impls[i];
	}
	return NULL;
}

const struct hwoff_impl *hwoff_discovery_find(const struct hwoff_discovery *d, const char *driver)
{
	for (size_t i = 0; i < d->count; i++)
		if (strcmp(d->impls[i].driver, driver) == 0)
			return &d->impls[i];
	return NULL;
}

/* Higher is preferred as a default engine path; 0 never (the CPU, another vendor's engine). */
static int offload_rank(enum hwoff_impl_class class)
{
	switch (class) {
	case HWOFF_IMPL_ENGINE_AUTO:
		return 2;
	case HWOFF_IMPL_ENGINE_PIO:
	case HWOFF_IMPL_ENGINE_DMA:
		return 1;
	case HWOFF_IMPL_OFFLOAD:
	case HWOFF_IMPL_CPU:
		break;
	}
	return 0;
}

const struct hwoff_impl *hwoff_discovery_offload_for(const struct hwoff_discovery *d,
						     const char *kernel_name)
{
	const struct hwoff_impl *best = NULL;

	for (size_t i = 0; i < d->count; i++) {
		const struct hwoff_impl *impl = &d->impls[i];
		int rank = offload_rank(impl->class);

		if (!rank || strcmp(impl->name, kernel_name) != 0)
			continue;
		if (!best || rank > offload_rank(best->class) ||
		    (rank == offload_rank(best->class) &&
		     (impl->device > best->device ||
		      (impl->device == best->device && impl->priority > best->priority))))
			best = impl;
	}
	return best;
}

const char *hwoff_impl_class_name(enum hwoff_impl_class class)
{
	switch (class) {
	case HWOFF_IMPL_CPU:
		return "cpu";
	case HWOFF_IMPL_OFFLOAD:
		return "offload";
	case HWOFF_IMPL_ENGINE_AUTO:
		return "engine-auto";
	case HWOFF_IMPL_ENGINE_PIO:
		return "engine-pio";
	case HWOFF_IMPL_ENGINE_DMA:
		return "engine-dma";
	}
	return "?";
}

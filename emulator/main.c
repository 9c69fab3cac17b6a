/* SPDX-License-Identifier: Apache-2.0 */
/*
 * main.c - hwoffload-engine: the emulated crypto engine behind QEMU's ivshmem-doorbell.
 *
 * Creates the guest RAM file QEMU maps with memory-backend-file,share=on and the BAR2
 * memfd, listens on the ivshmem socket, prints one "ready" line, serves one QEMU and exits
 * 0 when it disconnects (1 on any error, 2 on a usage error). See kernel/ENGINE.md.
 */
#define _GNU_SOURCE	/* memfd_create, accept4 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include "engine.h"
#include "eventloop.h"
#include "ivshmem_server.h"

#define MIB			(1ULL << 20)
/* Above this a pc/q35 guest's RAM is split around the PCI hole: GPA != file offset. */
#define MAX_RAM_MIB		2048
#define TIMER_SLACK_NS		1000

struct options {
	const char *socket_path;
	const char *ram_path;
	unsigned long ram_mib;
	unsigned int vectors;
	struct hwemu_timing timing;
	uint64_t watch_ns; /* --doorbell-watch-us */
	bool quiet;
};

static volatile sig_atomic_t stop_signal;

static void on_signal(int sig)
{
	stop_signal = sig;
}

static void usage(FILE *out)
{
	fprintf(out,
		"usage: hwoffload-engine --socket PATH --ram-file PATH --ram-size MiB [options]\n"
		"  --socket PATH          ivshmem server socket (QEMU -chardev socket,path=PATH)\n"
		"  --ram-file PATH        guest RAM file to create (memory-backend-file mem-path)\n"
		"  --ram-size MiB         guest RAM size, 1..%d (QEMU -m)\n"
		"  --vectors N            doorbell and MSI-X vectors, %d..%d (default %d)\n"
		"  --profile NAME         timing profile: native (default), omap, slow-dma-setup\n"
		"  --pio-setup-us X       override the profile's PIO per-request cost\n"
		"  --pio-ns-per-byte X    override the profile's PIO per-byte cost\n"
		"  --dma-setup-us X       override the profile's DMA per-request cost\n"
		"  --dma-ns-per-byte X    override the profile's DMA per-byte cost\n"
		"  --doorbell-watch-us X  after a doorbell, look for the next one this long before\n"
		"                         sleeping in poll() (default 0; ENGINE.md section 10)\n"
		"  --quiet                no log lines for guest errors or at exit\n",
		MAX_RAM_MIB, HWE_MIN_VECTORS, HWE_MAX_VECTORS, HWE_MIN_VECTORS);
}

static bool parse_number(const char *opt, const char *arg, double min, double max, double *val)
{
	char *end;

	errno = 0;
	*val = strtod(arg, &end);
	if (errno || end == arg || *end || *val < min || *val > max) {
		fprintf(stderr, "hwoffload-engine: --%s: '%s' is not a number in %g..%g\n",
			opt, arg, min, max);
		return false;
	}
	return true;
}

/* Returns 0, or 2 for a usage error (reported). */
static int parse_options(int argc, char **argv, struct options *o)
{
	enum { OPT_PIO_SETUP = 256, OPT_PIO_BYTE, OPT_DMA_SETUP, OPT_DMA_BYTE, OPT_WATCH };
	static const char *const override_names[] = {
		"pio-setup-us", "pio-ns-per-byte", "dma-setup-us", "dma-ns-per-byte"
	};
	static const struct option longopts[] = {
		{ "socket", required_argument, NULL, 's' },
		{ "ram-file", required_argument, NULL, 'r' },
		{ "ram-size", required_argument, NULL, 'm' },
		{ "vectors", required_argument, NULL, 'v' },
		{ "profile", required_argument, NULL, 'p' },
		{ override_names[0], required_argument, NULL, OPT_PIO_SETUP },
		{ override_names[1], required_argument, NULL, OPT_PIO_BYTE },
		{ override_names[2], required_argument, NULL, OPT_DMA_SETUP },
		{ override_names[3], required_argument, NULL, OPT_DMA_BYTE },
		{ "doorbell-watch-us", required_argument, NULL, OPT_WATCH },
		{ "quiet", no_argument, NULL, 'q' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 }
	};
	/* overrides apply on top of the profile, wherever they stand on the command line */
	double override[4] = { -1, -1, -1, -1 }, val;
	const char *profile = "native";
	int c;

	memset(o, 0, sizeof(*o));
	o->vectors = HWE_MIN_VECTORS;
	while ((c = getopt_long(argc, argv, "", longopts, NULL)) != -1) {
		switch (c) {
		case 's':
			o->socket_path = optarg;
			break;
		case 'r':
			o->ram_path = optarg;
			break;
		case 'm':
			if (!parse_number("ram-size", optarg, 1, MAX_RAM_MIB, &val))
				return 2;
			o->ram_mib = (unsigned long)val;
			break;
		case 'v':
			if (!parse_number("vectors", optarg, HWE_MIN_VECTORS, HWE_MAX_VECTORS,
					  &val))
				return 2;
			o->vectors = (unsigned int)val;
			break;
		case 'p':
			profile = optarg;
			break;
		case OPT_PIO_SETUP:
		case OPT_PIO_BYTE:
		case OPT_DMA_SETUP:
		case OPT_DMA_BYTE:
			if (!parse_number(override_names[c - OPT_PIO_SETUP], optarg, 0, 1e6,
					  &override[c - OPT_PIO_SETUP]))
				return 2;
			break;
		case OPT_WATCH:
			if (!parse_number("doorbell-watch-us", optarg, 0, 1000, &val))
				return 2;
			o->watch_ns = (uint64_t)(val * 1000);
			break;
		case 'q':
			o->quiet = true;
			break;
		case 'h':
			usage(stdout);
			exit(0);
		default:
			usage(stderr);
			return 2;
		}
	}
	if (optind < argc || !o->socket_path || !o->ram_path || !o->ram_mib) {
		fprintf(stderr, "hwoffload-engine: --socket, --ram-file and --ram-size are required\n");
		usage(stderr);
		return 2;
	}
	if (!hwemu_timing_profile(profile, &o->timing)) {
		fprintf(stderr, "hwoffload-engine: unknown profile '%s'\n", profile);
		return 2;
	}
	/* microseconds to ns, ns per byte to ps per byte: both times 1000 */
	if (override[0] >= 0)
		o->timing.pio.setup_ns = (uint64_t)(override[0] * 1000);
	if (override[1] >= 0)
		o->timing.pio.ps_per_byte = (uint64_t)(override[1] * 1000);
	if (override[2] >= 0)
		o->timing.dma.setup_ns = (uint64_t)(override[2] * 1000);
	if (override[3] >= 0)
		o->timing.dma.ps_per_byte = (uint64_t)(override[3] * 1000);
	return 0;
}

/* Map @size bytes of @fd shared; NULL (reported) on failure. */
static uint8_t *map_shared(int fd, uint64_t size, const char *what)
{
	void *p = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);

	if (p == MAP_FAILED) {
		fprintf(stderr, "hwoffload-engine: mapping %s: %s\n", what, strerror(errno));
		return NULL;
	}
	return p;
}

/*
 * Create the guest RAM file. A tmpfs too small for it kills QEMU with SIGBUS well into
 * the boot, without a message, so refuse it here instead.
 */
static uint8_t *create_ram_file(const char *path, uint64_t size)
{
	struct statvfs fs;
	uint8_t *ram;
	int fd;

	if (unlink(path) < 0 && errno != ENOENT) {
		fprintf(stderr, "hwoffload-engine: removing stale %s: %s\n", path, strerror(errno));
		return NULL;
	}
	fd = open(path, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
	if (fd < 0) {
		fprintf(stderr, "hwoffload-engine: creating %s: %s\n", path, strerror(errno));
		return NULL;
	}
	if (fstatvfs(fd, &fs) == 0 && (uint64_t)fs.f_bavail * fs.f_frsize < size) {
		fprintf(stderr, "hwoffload-engine: %s: only %llu MiB free for %llu MiB of guest RAM\n",
			path, (unsigned long long)((uint64_t)fs.f_bavail * fs.f_frsize / MIB),
			(unsigned long long)(size / MIB));
		goto err_unlink;
	}
	if (ftruncate(fd, (off_t)size) < 0) {
		fprintf(stderr, "hwoffload-engine: sizing %s: %s\n", path, strerror(errno));
		goto err_unlink;
	}
	ram = map_shared(fd, size, path);
	if (!ram)
		goto err_unlink;
	close(fd);
	return ram;

err_unlink:
	close(fd);
	unlink(path);
	return NULL;
}

struct eventfds {
	int doorbell[HWE_MAX_VECTORS];		/* QEMU writes, engine polls */
	int irq[HWE_MAX_VECTORS];		/* engine writes, QEMU raises MSI-X */
};

static int create_eventfds(struct eventfds *efd, unsigned int vectors)
{
	unsigned int v;

	for (v = 0; v < vectors; v++) {
		efd->doorbell[v] = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
		efd->irq[v] = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
		if (efd->doorbell[v] < 0 || efd->irq[v] < 0) {
			fprintf(stderr, "hwoffload-engine: eventfd: %s\n", strerror(errno));
			return -1;
		}
	}
	return 0;
}

static void print_counters(const uint8_t *bar2)
{
	static const struct {
		const char *name;
		uint32_t reg;
	} counters[] = {
		{ "doorbells", HWE_REG_CNT_DOORBELLS },
		{ "pio_requests", HWE_REG_CNT_PIO_REQUESTS },
		{ "pio_bytes", HWE_REG_CNT_PIO_BYTES },
		{ "pio_irqs", HWE_REG_CNT_PIO_IRQS },
		{ "dma_requests", HWE_REG_CNT_DMA_REQUESTS },
		{ "dma_bytes", HWE_REG_CNT_DMA_BYTES },
		{ "dma_descriptors", HWE_REG_CNT_DMA_DESCS },
		{ "dma_irqs", HWE_REG_CNT_DMA_IRQS },
		{ "irqs_lost", HWE_REG_CNT_IRQS_LOST },
		{ "errors", HWE_REG_CNT_ERRORS },
		{ "tag_mismatches", HWE_REG_CNT_TAG_MISMATCHES },
		{ "resets", HWE_REG_CNT_RESETS },
	};
	size_t i;

	fprintf(stderr, "hwoffload-engine: counters");
	for (i = 0; i < sizeof(counters) / sizeof(counters[0]); i++)
		fprintf(stderr, " %s=%llu", counters[i].name,
			(unsigned long long)*(const uint64_t *)(bar2 + counters[i].reg));
	fputc('\n', stderr);
}

/* Accept QEMU, hand it the device, run the engine until it leaves. Returns the exit code. */
static int serve(struct hwemu_engine *e, int listen_fd, int bar2_fd, struct eventfds *efd,
		 unsigned int vectors, uint64_t watch_ns)
{
	int conn, r;

	do {
		conn = accept4(listen_fd, NULL, NULL, SOCK_CLOEXEC);
	} while (conn < 0 && errno == EINTR && !stop_signal);
	if (conn < 0) {
		if (stop_signal)
			return 0;
		fprintf(stderr, "hwoffload-engine: accept: %s\n", strerror(errno));
		return 1;
	}
	if (hwemu_ivshm_send_setup(conn, bar2_fd, efd->doorbell, efd->irq, vectors)) {
		close(conn);
		return 1;
	}

	for (;;) {
		r = hwemu_loop_run(e, efd->doorbell, vectors, conn, watch_ns);
		if (r == -EINTR && !stop_signal)
			continue;
		if (r < 0) {
			if (!stop_signal)
				fprintf(stderr, "hwoffload-engine: poll: %s\n", strerror(-r));
			r = stop_signal ? 0 : 1;
			break;
		}
		r = hwemu_ivshm_check_hangup(conn);
		if (r != 1)
			break;
	}
	close(conn);
	return r < 0 ? 1 : 0;
}

int main(int argc, char **argv)
{
	struct sigaction sa = { .sa_handler = on_signal };	/* no SA_RESTART: wake poll */
	struct hwemu_engine_config cfg;
	struct hwemu_engine engine;
	struct eventfds efd;
	struct options o;
	int bar2_fd, listen_fd, rc;

	rc = parse_options(argc, argv, &o);
	if (rc)
		return rc;
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	signal(SIGPIPE, SIG_IGN);
	prctl(PR_SET_TIMERSLACK, TIMER_SLACK_NS);	/* timing-model sleeps end on time */

	memset(&cfg, 0, sizeof(cfg));
	cfg.ram_size = o.ram_mib * MIB;
	cfg.vectors = o.vectors;
	cfg.timing = o.timing;
	cfg.raise_irq = hwemu_eventfd_raise;
	cfg.irq_opaque = efd.irq;
	cfg.quiet = o.quiet;

	cfg.ram = create_ram_file(o.ram_path, cfg.ram_size);
	if (!cfg.ram)
		return 1;
	rc = 1;
	bar2_fd = memfd_create("hwoffload-bar2", MFD_CLOEXEC);
	if (bar2_fd < 0 || ftruncate(bar2_fd, HWE_BAR2_SIZE) < 0) {
		fprintf(stderr, "hwoffload-engine: BAR2 memfd: %s\n", strerror(errno));
		goto out_ram;
	}
	cfg.bar2 = map_shared(bar2_fd, HWE_BAR2_SIZE, "BAR2");
	if (!cfg.bar2 || create_eventfds(&efd, o.vectors))
		goto out_ram;
	if (hwemu_engine_init(&engine, &cfg)) {
		fprintf(stderr, "hwoffload-engine: OpenSSL provides no AES-ECB/CBC/CTR\n");
		goto out_ram;
	}
	listen_fd = hwemu_ivshm_listen(o.socket_path);
	if (listen_fd < 0)
		goto out_engine;

	printf("hwoffload-engine: ready socket=%s ram-file=%s ram-size=%luM vectors=%u profile=%s pio=%lluns+%llups/B dma=%lluns+%llups/B\n",
	       o.socket_path, o.ram_path, o.ram_mib, o.vectors, o.timing.profile,
	       (unsigned long long)o.timing.pio.setup_ns,
	       (unsigned long long)o.timing.pio.ps_per_byte,
	       (unsigned long long)o.timing.dma.setup_ns,
	       (unsigned long long)o.timing.dma.ps_per_byte);
	fflush(stdout);

	rc = serve(&engine, listen_fd, bar2_fd, &efd, o.vectors, o.watch_ns);
	if (!o.quiet)
		print_counters(cfg.bar2);
	close(listen_fd);
	unlink(o.socket_path);
out_engine:
	hwemu_engine_fini(&engine);
out_ram:
	unlink(o.ram_path);	/* QEMU keeps its mapping; the file must not fill /dev/shm */
	return rc;
}

/* SPDX-License-Identifier: Apache-2.0 */
/*
 * eventloop.c - the engine's wait: poll() on eventfds, after watching them for a while if asked.
 *
 * QEMU sets O_NONBLOCK on every eventfd it receives, and the flag lives in the open file
 * description the engine shares, so reads here must expect EAGAIN and never block.
 */
#define _GNU_SOURCE	/* POLLRDHUP */
#include <errno.h>
#include <poll.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "eventloop.h"
#include "timing.h"

/* Each doorbell rung since the last look, handed to the engine. Returns how many were. */
static unsigned int take_doorbells(struct hwemu_engine *e, const int *doorbell_fds,
				   unsigned int vectors)
{
	unsigned int v, rung = 0;
	uint64_t count;

	for (v = 0; v < vectors; v++) {
		/* drain first: a doorbell rung while we work wakes us again */
		if (read(doorbell_fds[v], &count, sizeof(count)) != sizeof(count))
			continue;
		hwemu_engine_doorbell(e, v);
		rung++;
	}
	return rung;
}

int hwemu_loop_run(struct hwemu_engine *e, const int *doorbell_fds, unsigned int vectors,
		   int stop_fd, uint64_t watch_ns)
{
	struct pollfd pfd[HWE_MAX_VECTORS + 1];
	unsigned int v;
	uint64_t last;

	for (v = 0; v < vectors; v++)
		pfd[v] = (struct pollfd){ .fd = doorbell_fds[v], .events = POLLIN };
	pfd[vectors] = (struct pollfd){ .fd = stop_fd, .events = POLLIN | POLLRDHUP };

	for (;;) {
		if (poll(pfd, vectors + 1, -1) < 0)
			return -errno;
		if (pfd[vectors].revents)
			return 0;
		take_doorbells(e, doorbell_fds, vectors);
		/* ENGINE.md section 10: a doorbell soon after the last is seen without a wake-up */
		for (last = hwemu_now_ns(); watch_ns && hwemu_now_ns() - last < watch_ns;)
			if (take_doorbells(e, doorbell_fds, vectors))
				last = hwemu_now_ns();
	}
}

void hwemu_eventfd_raise(void *opaque, unsigned int vector)
{
	const int *irq_fds = opaque;
	uint64_t one = 1;

	if (write(irq_fds[vector], &one, sizeof(one)) != sizeof(one))
		fprintf(stderr, "hwoffload-engine: raising MSI-X vector %u: %s\n", vector,
			strerror(errno));
}

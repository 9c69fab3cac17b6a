/* SPDX-License-Identifier: Apache-2.0 */
/*
 * eventloop.h - feed doorbell eventfds to the engine core; raise MSI-X through eventfds.
 *
 * Used by the server (QEMU's eventfds) and by the unit tests (their own), so both run the
 * engine exactly the same way.
 */
#ifndef HWEMU_EVENTLOOP_H
#define HWEMU_EVENTLOOP_H

#include <stdint.h>

#include "engine.h"

/*
 * Block in poll() on @doorbell_fds[0..@vectors) and @stop_fd, handing each doorbell to the
 * engine; after one, keep looking at the doorbells for @watch_ns (0: none) since the last
 * before blocking again. Returns 0 once @stop_fd is readable or hung up, -errno if poll()
 * fails (-EINTR when a signal arrives).
 */
int hwemu_loop_run(struct hwemu_engine *e, const int *doorbell_fds, unsigned int vectors,
		   int stop_fd, uint64_t watch_ns);

/* hwemu_engine_config.raise_irq for an array of eventfds (@opaque is an int *). */
void hwemu_eventfd_raise(void *opaque, unsigned int vector);

#endif /* HWEMU_EVENTLOOP_H */

/* SPDX-License-Identifier: Apache-2.0 */
/*
 * device.h - the bundled engine's own device, /dev/hwoffloadN: a transport (transport.h,
 * hwoff_transport_device) and the discovery of its paths (device.c says how they are named).
 */
#ifndef HWOFF_BACKEND_DEVICE_H
#define HWOFF_BACKEND_DEVICE_H

#include "backend/discover.h"

#define HWOFF_DEVICE_NODES "/dev/hwoffload[0-9]*"
/* A device path is named "dev.NODE.DRIVER", after the AF_ALG driver of the same engine path. */
#define HWOFF_DEVICE_PREFIX "dev."

/*
 * Add the paths of every node matching pattern that answers (one per algorithm and engine
 * path, class and module as the AF_ALG driver of the same path, impl->device set); a node that
 * cannot be opened is named in d->basis with the reason.
 */
void hwoff_device_discover(struct hwoff_discovery *d, const char *pattern);

#endif

/* SPDX-License-Identifier: Apache-2.0 */
/* The rows of the bundled engine, for the guest suites that need all of them tested. */
#ifndef HWOFF_TEST_ENGINE_ROWS_H
#define HWOFF_TEST_ENGINE_ROWS_H

#include <stddef.h>

#include "backend/discover.h"

/*
 * The first row (its name) whose algorithm the engine's module registers
 * (test_engine_registers()) but discovery d lists no tested PIO or DMA driver of the engine for:
 * left out by their self-tests, not tested yet. A row the engine does not serve (SHA3-256) has
 * neither. NULL when there is none; *registered (unless NULL) counts the rows the module registers.
 */
const char *test_engine_untested_row(const struct hwoff_discovery *d, size_t *registered);

#endif

// SPDX-License-Identifier: Apache-2.0
#include "test/engine_rows.h"
#include "backend/algs.h"
#include "test/testutil.h"

const char *test_engine_untested_row(const struct hwoff_discovery *d, size_t *registered)
{
	const char *untested = NULL;
	size_t count = 0;

	for (size_t i = 0; i < HWOFF_ALG_COUNT; i++) {
		const char *name = hwoff_algs[i].kernel_name;

		if (!test_engine_registers(name))
			continue;
		count++;
		if (!untested && (!hwoff_discovery_find_class(d, name, HWOFF_IMPL_ENGINE_PIO) ||
				  !hwoff_discovery_find_class(d, name, HWOFF_IMPL_ENGINE_DMA)))
			untested = hwoff_algs[i].name;
	}
	if (registered)
		*registered = count;
	return untested;
}

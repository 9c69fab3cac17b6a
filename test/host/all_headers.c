// SPDX-License-Identifier: Apache-2.0
/*
 * all_headers.c - every header of every layer in one translation unit: it compiles only while
 * no name is defined in two layers (doc/architecture.md, "Layout": each layer's prefix). Built by
 * make check; nothing to run. The engine's interface and model come first: a macro of theirs that
 * named something of another layer would break the declarations after it.
 */
#include "emulator/cipher.h"
#include "emulator/core.h"
#include "emulator/engine.h"
#include "emulator/eventloop.h"
#include "emulator/gcm.h"
#include "emulator/hash.h"
#include "emulator/ivshmem_server.h"
#include "emulator/timing.h"
#include "kernel/hwoffload_regs.h"
#include "kernel/hwoffload_uapi.h"

#include "backend/algs.h"
#include "backend/device.h"
#include "backend/discover.h"
#include "backend/fingerprint.h"
#include "backend/probe.h"
#include "backend/router.h"
#include "backend/stats.h"
#include "backend/table.h"
#include "backend/table_file.h"
#include "backend/text.h"
#include "backend/transport.h"
#include "bench/benchutil.h"
#include "tools/calibrate-measure.h"
#include "tools/calibrate-report.h"
#include "tools/calibrate.h"
#include "provider/cipher.h"
#include "provider/cipher_base.h"
#include "provider/provider.h"
#include "test/guest/driverutil.h"
#include "test/provider/providerutil.h"
#include "test/testutil.h"
#include "test/host/backend_test.h"

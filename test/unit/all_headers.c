// SPDX-License-Identifier: Apache-2.0
/*
 * all_headers.c - every header of every layer in one translation unit: it compiles only while
 * no name is defined in two layers (README "Layout": each layer's prefix). Built by make check;
 * nothing to run. The engine's interface and model come first: a macro of theirs that named
 * something of another layer would break the declarations after it.
 */
#include "kernel/engine/cipher.h"
#include "kernel/engine/engine.h"
#include "kernel/engine/eventloop.h"
#include "kernel/engine/gcm.h"
#include "kernel/engine/hash.h"
#include "kernel/engine/ivshmem_server.h"
#include "kernel/engine/timing.h"
#include "kernel/hwoffload_regs.h"

#include "backend/algs.h"
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
#include "bench/calibrate.h"
#include "provider/cipher.h"
#include "provider/cipher_base.h"
#include "provider/provider.h"
#include "test/guest/driverutil.h"
#include "test/providerutil.h"
#include "test/testutil.h"
#include "test/unit/backend_test.h"

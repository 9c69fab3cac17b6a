#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
# The command-line checks of test/guest/provider_cli, on the host (no AF_ALG: software tier).
exec bash "${top_srcdir:-.}/test/guest/provider_cli" host

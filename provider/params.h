/* SPDX-License-Identifier: Apache-2.0 */
/*
 * params.h - the names of the provider's own parameters (OSSL_PROVIDER_get_params()), for the
 * programs of ours that read them: hwoffload-info and the calibration.
 */
#ifndef HWPROV_PARAMS_H
#define HWPROV_PARAMS_H

#define HWPROV_PARAM_AF_ALG	    "hwoffload-af-alg"
#define HWPROV_PARAM_AF_ALG_REASON  "hwoffload-af-alg-reason"
#define HWPROV_PARAM_MODE	    "hwoffload-mode"
#define HWPROV_PARAM_OBJECTIVE	    "hwoffload-objective"
#define HWPROV_PARAM_TABLE	    "hwoffload-table"
#define HWPROV_PARAM_TABLE_WARNINGS "hwoffload-table-warnings"
/* The statistics text: per path "NAME requests=N bytes=N ..." and "NAME unusable: REASON" */
#define HWPROV_PARAM_STATISTICS "hwoffload-statistics"
#define HWPROV_PARAM_STATS_FILE "hwoffload-statistics-file"

#endif

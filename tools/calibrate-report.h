/* SPDX-License-Identifier: Apache-2.0 */
/*
 * calibrate-report.h - hwoffload-calibrate's reports of a run (calibrate-report.c), each line
 * appended to report for the user: the engine's auto driver thresholds, the stability of the
 * figures, the decisions at the crossovers, the plots.
 */
#ifndef HWOFF_TOOLS_CALIBRATE_REPORT_H
#define HWOFF_TOOLS_CALIBRATE_REPORT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "tools/calibrate.h"

void cal_set_thresholds(const struct cal_run *run, bool set, FILE *saved, char *report,
			size_t report_len);
void cal_report_stability(const struct cal_run *run, char *report, size_t report_len);
void cal_report_decisions(const struct cal_run *run, const bool *objectives, double tie, FILE *f,
			  char *report, size_t report_len);
void cal_write_plot_script(FILE *gp, const struct cal_run *run);
void cal_render_plots(const char *dir, char *report, size_t report_len);

#endif

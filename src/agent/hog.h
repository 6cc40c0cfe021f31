/* SPDX-License-Identifier: GPL-2.0 */
#ifndef WBLAB_AGENT_HOG_H
#define WBLAB_AGENT_HOG_H

/*
 * wblab-agent hog SIZE_MIB HOLD_S [EVERY_S [CHURN_MIB CHURN_MS]],
 * wblab-agent sample FILE INTERVAL_MS
 */
int hog_main(int argc, char **argv);
int sample_main(int argc, char **argv);

#endif

/* SPDX-License-Identifier: GPL-2.0 */
#ifndef WBLAB_AGENT_PLAN_H
#define WBLAB_AGENT_PLAN_H

#include <stddef.h>

/* Run the plan; returns 0 ok, 1 setup failed, 2 workload failed. */
int plan_execute(char *plan, size_t len);

#endif

/* SPDX-License-Identifier: GPL-2.0 */
#ifndef PARITY_LINUX_TICK_H
#define PARITY_LINUX_TICK_H

#include <linux/kernel.h>

/* Answered from the harness's idle-period description (parity.c). */
ktime_t tick_nohz_get_sleep_length(ktime_t *delta_next);
bool tick_nohz_tick_stopped(void);
bool tick_nohz_idle_got_tick(void);

#endif

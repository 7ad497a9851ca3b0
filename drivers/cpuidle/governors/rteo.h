/* SPDX-License-Identifier: GPL-2.0 */
#ifndef __CPUIDLE_GOVERNOR_RTEO_H
#define __CPUIDLE_GOVERNOR_RTEO_H

#include <linux/types.h>

/* Implemented in rteo.rs: registers the governor with the cpuidle core. */
int rteo_register(void);

/* Implemented in rteo_init.c: the rteo.parity parameter. */
bool rteo_parity_mode(void);

#endif /* __CPUIDLE_GOVERNOR_RTEO_H */

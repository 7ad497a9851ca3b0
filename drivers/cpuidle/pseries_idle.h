/* SPDX-License-Identifier: GPL-2.0 */
#ifndef __CPUIDLE_PSERIES_IDLE_H
#define __CPUIDLE_PSERIES_IDLE_H

#include <linux/types.h>

struct cpuidle_device;
struct cpuidle_driver;

/*
 * pseries_idle.c: the built-in half of the Rust pseries cpuidle driver
 * (pseries.rs), whatever cannot be in a module: the __cpuidle entry
 * routines (they use arch internals that are not exported) and the
 * platform queries that are not exported either.
 */

bool pseries_rs_splpar(void);
bool pseries_rs_shared_processor(void);
bool pseries_rs_firmware_latencies(void);
int pseries_rs_get_cede_latency(u8 *buf, size_t size);
int pseries_rs_snooze(struct cpuidle_device *dev, struct cpuidle_driver *drv,
		      int index);
int pseries_rs_dedicated_cede(struct cpuidle_device *dev,
			      struct cpuidle_driver *drv, int index);
int pseries_rs_shared_cede(struct cpuidle_device *dev,
			   struct cpuidle_driver *drv, int index);

/* pseries_param.c, in the module */
const char *pseries_rs_xcede_payload(void);
const char *pseries_rs_lpar(void);

#endif /* __CPUIDLE_PSERIES_IDLE_H */

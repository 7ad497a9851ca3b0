/* SPDX-License-Identifier: GPL-2.0 */
#ifndef __CPUIDLE_VSTATES_H
#define __CPUIDLE_VSTATES_H

struct cpuidle_device;
struct cpuidle_driver;

/* vstates_enter.c, used by vstates.rs */
const char *vstates_table_name(void);
int vstates_enter(struct cpuidle_device *dev, struct cpuidle_driver *drv,
		  int index);
#ifndef CONFIG_ARCH_HAS_CPU_RELAX
int vstates_poll(struct cpuidle_device *dev, struct cpuidle_driver *drv,
		 int index);
#endif

#endif /* __CPUIDLE_VSTATES_H */

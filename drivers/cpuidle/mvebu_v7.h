/* SPDX-License-Identifier: GPL-2.0 */
#ifndef __CPUIDLE_MVEBU_V7_H
#define __CPUIDLE_MVEBU_V7_H

struct cpuidle_device;
struct cpuidle_driver;

/* Driver-private state flag: power down the L2 fabric too. */
#define MVEBU_V7_FLAG_DEEP_IDLE	0x10000

/* mvebu_v7_enter.c, used by mvebu_v7.rs */
int mvebu_v7_rs_claim_suspend(int (*suspend)(unsigned long deepidle));
void mvebu_v7_rs_release_suspend(void);
int mvebu_v7_rs_enter_wfi(struct cpuidle_device *dev,
			  struct cpuidle_driver *drv, int index);
int mvebu_v7_rs_enter_power_down(struct cpuidle_device *dev,
				 struct cpuidle_driver *drv, int index);

#endif /* __CPUIDLE_MVEBU_V7_H */

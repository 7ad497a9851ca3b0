/* SPDX-License-Identifier: GPL-2.0 */
#ifndef __CPUIDLE_MVEBU_V7_H
#define __CPUIDLE_MVEBU_V7_H

struct cpuidle_device;
struct cpuidle_driver;

/*
 * mvebu_v7_enter.c, used by mvebu_v7.rs.  The entry routines have the type
 * of cpuidle_state::enter (asserted in mvebu_v7_enter.c, and on the Rust
 * side against the bindings).
 */
int mvebu_v7_rs_claim_suspend(void *platform_data);
void mvebu_v7_rs_release_suspend(void);
int mvebu_v7_rs_enter_wfi(struct cpuidle_device *dev,
			  struct cpuidle_driver *drv, int index);
int mvebu_v7_rs_enter_idle(struct cpuidle_device *dev,
			   struct cpuidle_driver *drv, int index);
int mvebu_v7_rs_enter_deep_idle(struct cpuidle_device *dev,
				struct cpuidle_driver *drv, int index);

#endif /* __CPUIDLE_MVEBU_V7_H */

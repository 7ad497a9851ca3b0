/* SPDX-License-Identifier: GPL-2.0 */
#ifndef __CPUIDLE_PSCI_RS_H
#define __CPUIDLE_PSCI_RS_H

#include <linux/types.h>

struct cpuidle_device;
struct cpuidle_driver;

/*
 * psci_enter.c, used by psci.rs.  The entry routines have the type of
 * cpuidle_state::enter (asserted in psci_enter.c, and on the Rust side
 * against the bindings).
 */
bool psci_rs_can_suspend(void);
bool psci_rs_osi_supported(void);
bool psci_rs_ext_power_state(void);
bool psci_rs_state_valid(u32 param);
bool psci_rs_enable_method_psci(unsigned int cpu);
int psci_rs_set_param(unsigned int cpu, unsigned int index, u32 param);
int psci_rs_enter_wfi(struct cpuidle_device *dev,
		      struct cpuidle_driver *drv, int index);
int psci_rs_enter_state(struct cpuidle_device *dev,
			struct cpuidle_driver *drv, int index);

#endif /* __CPUIDLE_PSCI_RS_H */

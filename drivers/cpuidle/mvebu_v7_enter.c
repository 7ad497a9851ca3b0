// SPDX-License-Identifier: GPL-2.0
/*
 * The idle-entry half of the Rust mvebu-v7 cpuidle driver (mvebu_v7.rs).
 * The power-down states run the SoC suspend routine with RCU not watching,
 * so their entry must be __cpuidle code, which Rust cannot produce yet.
 */

#include <linux/atomic.h>
#include <linux/build_bug.h>
#include <linux/container_of.h>
#include <linux/context_tracking.h>
#include <linux/cpu_pm.h>
#include <linux/cpuidle.h>
#include <linux/errno.h>

#include <asm/proc-fns.h>

#include "mvebu_v7.h"

/*
 * The routines are handed to the core as cpuidle_state::enter; mvebu_v7.rs
 * checks its declarations against the same type.
 */
static_assert(__same_type(&mvebu_v7_rs_enter_wfi,
			  typeof_member(struct cpuidle_state, enter)));
static_assert(__same_type(&mvebu_v7_rs_enter_idle,
			  typeof_member(struct cpuidle_state, enter)));
static_assert(__same_type(&mvebu_v7_rs_enter_deep_idle,
			  typeof_member(struct cpuidle_state, enter)));

/*
 * The SoC suspend routine from the bound device's platform data:
 * armada_370_xp_cpu_suspend() or armada_38x_cpu_suspend() of
 * arch/arm/mach-mvebu/pmsu.c, which passes them as void * (they are static
 * there, so their type cannot be asserted here).  Only one cpuidle driver
 * can be registered, so only one device can hold it.
 */
static int (*mvebu_v7_suspend)(unsigned long deepidle);

/*
 * Take the suspend routine of a device being bound from its platform data;
 * -EBUSY if another device holds one.
 */
int mvebu_v7_rs_claim_suspend(void *platform_data)
{
	int (*suspend)(unsigned long deepidle) = platform_data;

	if (!suspend)
		return -EINVAL;
	return cmpxchg(&mvebu_v7_suspend, NULL, suspend) ? -EBUSY : 0;
}

/* Drop it once the cpuidle driver is unregistered: no CPU can be using it. */
void mvebu_v7_rs_release_suspend(void)
{
	WRITE_ONCE(mvebu_v7_suspend, NULL);
}

/* State 0, ARM_CPUIDLE_WFI_STATE (arm_cpuidle_simple_enter() is not exported). */
int __cpuidle mvebu_v7_rs_enter_wfi(struct cpuidle_device *dev,
				    struct cpuidle_driver *drv, int index)
{
	cpu_do_idle();
	return index;
}

/*
 * The power-down states, as cpuidle-mvebu-v7.c enters them, except that the
 * Rust driver picks the routine by the state's depth (its driver flag),
 * rather than the routine reading the flag: no flag value is shared with C.
 * The suspend routine (cpu_suspend()) returns 0 after the CPU was powered
 * down and came back, and non-zero when the power-down was aborted (1, from
 * cpu_suspend_abort, when an interrupt was pending) or refused (a negative
 * error).  Like the C driver, a non-zero value is returned as it is: the
 * core records an abort as an entry of state 1 and a negative value as no
 * entry.  Like the C driver too, a failed cpu_pm_enter() does not stop the
 * entry (no CPU PM notifier on these SoCs refuses).  Without a claimed
 * suspend routine (which the Rust driver never registers the states
 * without), the entry is refused.
 */
static __always_inline int mvebu_v7_rs_power_down(int index, bool deep)
{
	int (*suspend)(unsigned long deepidle) = READ_ONCE(mvebu_v7_suspend);
	int ret;

	if (unlikely(!suspend))
		return -ENODEV;

	cpu_pm_enter();
	ct_cpuidle_enter();
	ret = suspend(deep);
	ct_cpuidle_exit();
	cpu_pm_exit();

	if (ret)
		return ret;
	return index;
}

/* CPU power down. */
int __cpuidle mvebu_v7_rs_enter_idle(struct cpuidle_device *dev,
				     struct cpuidle_driver *drv, int index)
{
	return mvebu_v7_rs_power_down(index, false);
}

/* CPU and L2 fabric power down. */
int __cpuidle mvebu_v7_rs_enter_deep_idle(struct cpuidle_device *dev,
					  struct cpuidle_driver *drv, int index)
{
	return mvebu_v7_rs_power_down(index, true);
}

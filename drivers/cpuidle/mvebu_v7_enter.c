// SPDX-License-Identifier: GPL-2.0
/*
 * The idle-entry half of the Rust mvebu-v7 cpuidle driver (mvebu_v7.rs).
 * The power-down states run the SoC suspend routine with RCU not watching,
 * so their entry must be __cpuidle code, which Rust cannot produce yet.
 */

#include <linux/atomic.h>
#include <linux/context_tracking.h>
#include <linux/cpu_pm.h>
#include <linux/cpuidle.h>
#include <linux/errno.h>

#include <asm/proc-fns.h>

#include "mvebu_v7.h"

/*
 * The SoC suspend routine from the bound device's platform data.  Only one
 * cpuidle driver can be registered, so only one device can hold it.
 */
static int (*mvebu_v7_suspend)(unsigned long deepidle);

/* Take the suspend routine for a device being bound; -EBUSY if held. */
int mvebu_v7_rs_claim_suspend(int (*suspend)(unsigned long deepidle))
{
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
 * The power-down states, as cpuidle-mvebu-v7.c enters them.  The suspend
 * routine (cpu_suspend()) returns 0 after the CPU was powered down and came
 * back, and non-zero when the power-down was aborted (1, from
 * cpu_suspend_abort, when an interrupt was pending) or refused (a negative
 * error).  Like the C driver, a non-zero value is returned as it is: the
 * core records an abort as an entry of state 1 and a negative value as no
 * entry.  Like the C driver too, a failed cpu_pm_enter() does not stop the
 * entry (no CPU PM notifier on these SoCs refuses).
 */
int __cpuidle mvebu_v7_rs_enter_power_down(struct cpuidle_device *dev,
					   struct cpuidle_driver *drv, int index)
{
	bool deepidle = drv->states[index].flags & MVEBU_V7_FLAG_DEEP_IDLE;
	int ret;

	cpu_pm_enter();
	ct_cpuidle_enter();
	ret = mvebu_v7_suspend(deepidle);
	ct_cpuidle_exit();
	cpu_pm_exit();

	if (ret)
		return ret;
	return index;
}

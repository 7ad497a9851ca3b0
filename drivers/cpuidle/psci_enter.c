// SPDX-License-Identifier: GPL-2.0
/*
 * The idle-entry half of the Rust PSCI cpuidle driver (psci.rs), and the
 * PSCI queries it needs.  The states past WFI are entered through
 * psci_cpu_suspend_enter(), which calls ct_cpuidle_enter() itself (or has
 * arm64's cpu_suspend() do it), so their entry must be __cpuidle code,
 * which Rust cannot produce yet.  Built in: psci_cpu_suspend_enter() is
 * not exported.
 */

#include <linux/build_bug.h>
#include <linux/cpu_pm.h>
#include <linux/cpuidle.h>
#include <linux/cpumask.h>
#include <linux/errno.h>
#include <linux/of.h>
#include <linux/percpu.h>
#include <linux/psci.h>
#include <linux/string.h>

#include <uapi/linux/psci.h>

#include <asm/cpuidle.h>

#include "psci_enter.h"

/*
 * The routines are handed to the core as cpuidle_state::enter; psci.rs
 * checks its declarations against the same type.
 */
static_assert(__same_type(&psci_rs_enter_wfi,
			  typeof_member(struct cpuidle_state, enter)));
static_assert(__same_type(&psci_rs_enter_state,
			  typeof_member(struct cpuidle_state, enter)));

/*
 * Each CPU's CPU_SUSPEND parameters, by state index (index 0, WFI, has
 * none).  Written by psci_rs_set_param() before the CPU's driver is
 * registered, read by the CPU itself in its idle loop while the driver is.
 */
static DEFINE_PER_CPU_READ_MOSTLY(u32, psci_rs_params[CPUIDLE_STATE_MAX]);

/* Whether the firmware offers CPU_SUSPEND (PSCI 0.2 and later, or 0.1 with the DT's id). */
bool psci_rs_can_suspend(void)
{
	return psci_ops.cpu_suspend;
}

/* Whether the firmware supports OS-initiated mode (this driver is for the flat layout only). */
bool psci_rs_osi_supported(void)
{
	return psci_has_osi_support();
}

/*
 * Whether the firmware uses the extended power_state format.  The PSCI core
 * keeps that to itself, but its validity check tells: the extended
 * format's type bit is outside the original format's mask.
 */
bool psci_rs_ext_power_state(void)
{
	return psci_power_state_is_valid(PSCI_1_0_EXT_POWER_STATE_TYPE_MASK);
}

/* The PSCI core's own check of a power_state parameter, in the format the firmware uses. */
bool psci_rs_state_valid(u32 param)
{
	return psci_power_state_is_valid(param);
}

/* Whether @cpu's DT node says enable-method = "psci", as cpuidle-psci.c requires. */
bool psci_rs_enable_method_psci(unsigned int cpu)
{
	struct device_node *np;
	const char *method;
	bool ret;

	if (cpu >= nr_cpu_ids)
		return false;
	np = of_cpu_device_node_get(cpu);
	if (!np)
		return false;
	ret = !of_property_read_string(np, "enable-method", &method) &&
	      !strcmp(method, "psci");
	of_node_put(np);
	return ret;
}

/* Set @cpu's CPU_SUSPEND parameter of state @index, before its driver is registered. */
int psci_rs_set_param(unsigned int cpu, unsigned int index, u32 param)
{
	if (cpu >= nr_cpu_ids || !index || index >= CPUIDLE_STATE_MAX)
		return -EINVAL;
	WRITE_ONCE(per_cpu(psci_rs_params, cpu)[index], param);
	return 0;
}

/* State 0, WFI (ARM_CPUIDLE_WFI_STATE); the core tells RCU the CPU is idle. */
int __cpuidle psci_rs_enter_wfi(struct cpuidle_device *dev,
				struct cpuidle_driver *drv, int index)
{
	cpu_do_idle();
	return index;
}

/*
 * The DT's states, as cpuidle-psci.c enters them: CPU PM notifiers around
 * CPU_SUSPEND (RCU is left to psci_cpu_suspend_enter()), -1 when the call
 * or a notifier failed, so that the core counts the entry as rejected.
 * A power-down state that returns from the firmware without resuming
 * through cpu_resume is such a failure on arm64 (cpu_suspend() turns the
 * firmware's success into -EOPNOTSUPP).
 */
int __cpuidle psci_rs_enter_state(struct cpuidle_device *dev,
				  struct cpuidle_driver *drv, int index)
{
	u32 param = __this_cpu_read(psci_rs_params[index]);

	return CPU_PM_CPU_IDLE_ENTER_PARAM_RCU(psci_cpu_suspend_enter, index, param);
}

// SPDX-License-Identifier: GPL-2.0
/*
 * The C part of cpuidle_vstates: the table parameter (Rust module
 * parameters cannot be strings yet) and the idle-state entry routine,
 * which must be __cpuidle code because RCU is not watching when it runs.
 */

#include <linux/cpuidle.h>
#include <linux/irqflags.h>
#include <linux/moduleparam.h>

#include <asm/tsc.h>

#include "vstates.h"

static char *table = "x86-like";
module_param(table, charp, 0444);
MODULE_PARM_DESC(table,
		 "State table: x86-like, mvebu-xp, mvebu-370, mvebu-38x, pseries-dedicated, pseries-xcede");

const char *vstates_table_name(void)
{
	return table;
}

/*
 * Halt until an interrupt, then spin for the state's exit latency with
 * IRQs still off, so that the interrupt is served that much later, as it
 * would be when leaving a real state that deep.  The spin counts TSC
 * cycles: rdtsc() is inlined, so nothing here is instrumented.
 */
int __cpuidle vstates_enter(struct cpuidle_device *dev,
			    struct cpuidle_driver *drv, int index)
{
	u64 cycles = (u64)drv->states[index].exit_latency_ns * tsc_khz / 1000000;
	u64 start;

	raw_safe_halt();
	raw_local_irq_disable();
	start = rdtsc();
	while (rdtsc() - start < cycles)
		cpu_relax();
	return index;
}

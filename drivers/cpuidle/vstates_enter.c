// SPDX-License-Identifier: GPL-2.0
/*
 * The C part of cpuidle_vstates: the table parameter (Rust module
 * parameters cannot be strings yet) and the idle-state entry routine,
 * which must be __cpuidle code because RCU is not watching when it runs.
 */

#include <linux/build_bug.h>
#include <linux/container_of.h>
#include <linux/cpuidle.h>
#include <linux/instrumentation.h>
#include <linux/irqflags.h>
#include <linux/minmax.h>
#include <linux/moduleparam.h>
#include <linux/processor.h>
#include <linux/sched.h>
#include <linux/sched/idle.h>
#include <linux/timekeeping.h>

#ifdef CONFIG_ARM
#include <asm/proc-fns.h>
#endif

#include "vstates.h"

/*
 * The entry routines are handed to the core as cpuidle_state::enter;
 * vstates.rs checks its declarations against the same type.
 */
static_assert(__same_type(&vstates_enter,
			  typeof_member(struct cpuidle_state, enter)));
#ifndef CONFIG_ARCH_HAS_CPU_RELAX
static_assert(__same_type(&vstates_poll,
			  typeof_member(struct cpuidle_state, enter)));
#endif

static char *table = "x86-like";
module_param(table, charp, 0444);
MODULE_PARM_DESC(table,
		 "State table: x86-like, mvebu-xp, mvebu-370, mvebu-38x, pseries-dedicated, pseries-xcede, mvebu-xp-2014 or msm8916");

const char *vstates_table_name(void)
{
	return table;
}

/*
 * Wait for an interrupt in the architecture's own idle instruction, then
 * spin with IRQs off until the state's exit latency has passed since the
 * wake-up, so that the CPU gets back to work that much later, as it would
 * when leaving a real state that deep.  Entered and left with IRQs off.
 *
 * x86: raw_safe_halt() is "sti; hlt": the wake-up interrupt is served in
 * the halt; IRQs are then turned off again for the spin.
 * ARM: cpu_do_idle() is the CPU's WFI (proc-v7.S: "dsb; wfi", with the
 * work-arounds some cores need), the routine of every ARM driver's WFI
 * state.  It runs with IRQs masked: WFI wakes on a pending interrupt even
 * so, and the interrupt is served once the core enables IRQs after this
 * routine has returned, that is after the spin.
 *
 * The clock: the core's local_clock_noinstr() is not exported to modules
 * (out of line on x86, sched_clock_noinstr() on ARM, neither exported).
 * ktime_get_raw_fast_ns() is, on both, and is NMI-safe: notrace, no lock,
 * no RCU, just a latch-seqcount read of the clocksource, so it is fine
 * with RCU not watching; instrumentation_begin()/end() tell objtool that
 * the call out of .cpuidle.text is meant.  Raw rather than mono: NTP does
 * not change its slope, so successive reads never go back.  It only stops
 * while timekeeping is suspended, which no CPU spends in here: from idle
 * only tick_freeze() suspends it, on the s2idle path, and that path calls
 * ->enter_s2idle(), which these states do not have.
 */
int __cpuidle vstates_enter(struct cpuidle_device *dev,
			    struct cpuidle_driver *drv, int index)
{
	u64 exit_ns = drv->states[index].exit_latency_ns;
	u64 start;

#if defined(CONFIG_X86)
	raw_safe_halt();
	raw_local_irq_disable();
#elif defined(CONFIG_ARM)
	cpu_do_idle();
#else
#error "cpuidle_vstates: no idle instruction for this architecture"
#endif
	instrumentation_begin();
	start = ktime_get_raw_fast_ns();
	while (ktime_get_raw_fast_ns() - start < exit_ns)
		cpu_relax();
	instrumentation_end();
	return index;
}

#ifndef CONFIG_ARCH_HAS_CPU_RELAX
/*
 * The polling state 0 of the tables that have one (x86-like, pseries-*)
 * where the core has no poll_idle() (poll_state.c needs ARCH_HAS_CPU_RELAX,
 * which ARM lacks): poll_idle()'s loop, with the clock of vstates_enter().
 * It polls with IRQs on until need_resched() or until the poll budget has
 * passed, and then sets dev->poll_time_limit for the governor.  The budget
 * is cpuidle_poll_time()'s (not exported), its rule repeated: the target
 * residency of the first enabled deeper state of at least 10 us, at most a
 * 16th of a tick, kept in dev->poll_limit_ns, which the core clears when a
 * state is enabled or disabled.  (ARM's arch_local_irq_*() are static
 * inline, not __always_inline, and clang may emit them out of line: they
 * are notrace and need no RCU.)
 */
static __always_inline u64 vstates_poll_limit(struct cpuidle_device *dev,
					      struct cpuidle_driver *drv)
{
	u64 limit = TICK_NSEC / 16;
	int i;

	if (dev->poll_limit_ns)
		return dev->poll_limit_ns;
	for (i = 1; i < drv->state_count; i++) {
		u64 res = drv->states[i].target_residency_ns;

		if (dev->states_usage[i].disable || res < 10 * NSEC_PER_USEC)
			continue;
		limit = min(res, limit);
		break;
	}
	dev->poll_limit_ns = limit;
	return limit;
}

int __cpuidle vstates_poll(struct cpuidle_device *dev,
			   struct cpuidle_driver *drv, int index)
{
	dev->poll_time_limit = false;
	raw_local_irq_enable();
	if (!current_set_polling_and_test()) {
		u64 limit = vstates_poll_limit(dev, drv);
		u64 start;

		instrumentation_begin();
		start = ktime_get_raw_fast_ns();
		while (!need_resched()) {
			cpu_relax();
			if (ktime_get_raw_fast_ns() - start > limit) {
				dev->poll_time_limit = true;
				break;
			}
		}
		instrumentation_end();
	}
	raw_local_irq_disable();
	current_clr_polling();
	return index;
}
#endif

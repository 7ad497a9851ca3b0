// SPDX-License-Identifier: GPL-2.0
/*
 * Built-in support for the Rust pseries cpuidle driver (pseries.rs): the
 * idle-entry routines, which run with RCU not watching and so must be
 * __cpuidle C, and the platform facts the module needs but cannot reach:
 * inline helpers over arch state (firmware features, the lppaca, CPU
 * features) and the system parameter call, none of which is exported.
 * The entry routines keep no data of their own: what they need comes from
 * the driver's table (see pseries_idle.h).
 */

#include <linux/bits.h>
#include <linux/build_bug.h>
#include <linux/container_of.h>
#include <linux/cpuidle.h>
#include <linux/export.h>
#include <linux/minmax.h>
#include <linux/sched.h>
#include <linux/string.h>

#include <asm/cputable.h>
#include <asm/firmware.h>
#include <asm/idle.h>
#include <asm/lppaca.h>
#include <asm/machdep.h>
#include <asm/papr-sysparm.h>
#include <asm/plpar_wrappers.h>
#include <asm/reg.h>
#include <asm/runlatch.h>
#include <asm/time.h>

#include "pseries_idle.h"

/* "Cede Latency Settings Information" system parameter (PAPR 7.3.16). */
#define CEDE_LATENCY_TOKEN	45

/*
 * The cede latency hint of a dedicated_cede state: the low byte of the
 * driver's half of its flags, the high half of cpuidle_state::flags, where
 * pseries.rs puts it (State::driver_flags(); it asserts that the kernel
 * crate's DRIVER_FLAGS_SHIFT is half the field's width, as here).
 */
#define CEDE_HINT_SHIFT \
	(BITS_PER_TYPE(typeof_member(struct cpuidle_state, flags)) / 2)
#define CEDE_HINT(flags)	(((flags) >> CEDE_HINT_SHIFT) & 0xff)

/* The core's flags (RCU_IDLE the highest) stay below the driver's half. */
static_assert(!(CPUIDLE_FLAG_RCU_IDLE >> CEDE_HINT_SHIFT));

/*
 * The entry routines have the type of cpuidle_state::enter, as does
 * cpuidle::RawEnterFn, against which pseries.rs checks its declarations.
 */
#define ASSERT_ENTER_TYPE(fn) \
	static_assert(__same_type(&(fn), typeof_member(struct cpuidle_state, enter)))
ASSERT_ENTER_TYPE(pseries_rs_snooze);
ASSERT_ENTER_TYPE(pseries_rs_dedicated_cede);
ASSERT_ENTER_TYPE(pseries_rs_shared_cede);

bool pseries_rs_splpar(void)
{
	return firmware_has_feature(FW_FEATURE_SPLPAR);
}
EXPORT_SYMBOL_GPL(pseries_rs_splpar);

bool pseries_rs_shared_processor(void)
{
	return lppaca_shared_proc();
}
EXPORT_SYMBOL_GPL(pseries_rs_shared_processor);

/*
 * Firmware's wake-up latencies are only accurate from POWER10 on (also in
 * an older compatibility mode on a POWER10).
 */
bool pseries_rs_firmware_latencies(void)
{
	return cpu_has_feature(CPU_FTR_ARCH_31) || pvr_version_is(PVR_POWER10);
}
EXPORT_SYMBOL_GPL(pseries_rs_firmware_latencies);

/*
 * Copy the raw answer of ibm,get-system-parameter for the cede latency
 * settings (16-bit length, then the payload) into @buf.  Returns the bytes
 * copied or a negative error; the caller parses and validates them.
 */
int pseries_rs_get_cede_latency(u8 *buf, size_t size)
{
	struct papr_sysparm_buf *work;
	size_t len;
	int ret;

	work = papr_sysparm_buf_alloc();
	if (!work)
		return -ENOMEM;
	ret = papr_sysparm_get(mk_papr_sysparm(CEDE_LATENCY_TOKEN), work);
	if (!ret) {
		len = min(size, sizeof(work->len) + be16_to_cpu(work->len));
		len = min(len, sizeof(*work));
		memcpy(buf, work, len);
		ret = len;
	}
	papr_sysparm_buf_free(work);
	return ret;
}
EXPORT_SYMBOL_GPL(pseries_rs_get_cede_latency);

/*
 * Poll at low SMT priority until there is work or the budget is spent: the
 * next state's target residency, as cpuidle-pseries.c sets snooze_timeout
 * (no budget if there is no next state).
 */
int __cpuidle pseries_rs_snooze(struct cpuidle_device *dev,
				struct cpuidle_driver *drv, int index)
{
	u64 snooze_ticks = 0;
	u64 end;

	if (index + 1 < drv->state_count)
		snooze_ticks = (u64)drv->states[index + 1].target_residency *
			       tb_ticks_per_usec;

	set_thread_flag(TIF_POLLING_NRFLAG);
	pseries_idle_prolog();
	raw_local_irq_enable();
	end = get_tb() + snooze_ticks;
	dev->poll_time_limit = false;

	while (!need_resched()) {
		HMT_low();
		HMT_very_low();
		if (snooze_ticks && get_tb() > end) {
			/* Budget spent with no task woken: stop polling. */
			dev->poll_time_limit = true;
			clear_thread_flag(TIF_POLLING_NRFLAG);
			/* Order the flag clear before any later need_resched(). */
			smp_mb();
			break;
		}
	}
	HMT_medium();
	if (!dev->poll_time_limit)
		clear_thread_flag(TIF_POLLING_NRFLAG);

	raw_local_irq_disable();
	pseries_idle_epilog();
	return index;
}
EXPORT_SYMBOL_GPL(pseries_rs_snooze);

/*
 * H_CEDE unless an interrupt came in while soft-disabled; the hypervisor
 * returns with interrupts on.
 */
static __cpuidle void cede_if_quiet(void)
{
	if (!prep_irq_for_idle())
		return;
	cede_processor();
#ifdef CONFIG_TRACE_IRQFLAGS
	if (WARN_ON(!(mfmsr() & MSR_EE)))
		__hard_irq_enable();
#endif
}

/*
 * CEDE and the extended CEDE states: cede with this state's latency hint
 * (from its flags, 0 for CEDE itself) in the lppaca, donating the
 * dedicated CPU meanwhile, and put the previous hint back afterwards.
 */
int __cpuidle pseries_rs_dedicated_cede(struct cpuidle_device *dev,
					struct cpuidle_driver *drv, int index)
{
	struct lppaca *lp = get_lppaca();
	u8 prev;

	pseries_idle_prolog();
	lp->donate_dedicated_cpu = 1;
	prev = lp->cede_latency_hint;
	lp->cede_latency_hint = CEDE_HINT(drv->states[index].flags);

	HMT_medium();
	cede_if_quiet();

	raw_local_irq_disable();
	lp->cede_latency_hint = prev;
	lp->donate_dedicated_cpu = 0;
	pseries_idle_epilog();
	return index;
}
EXPORT_SYMBOL_GPL(pseries_rs_dedicated_cede);

/* Shared-processor LPAR: give the virtual processor back to the hypervisor. */
int __cpuidle pseries_rs_shared_cede(struct cpuidle_device *dev,
				     struct cpuidle_driver *drv, int index)
{
	pseries_idle_prolog();
	cede_if_quiet();
	raw_local_irq_disable();
	pseries_idle_epilog();
	return index;
}
EXPORT_SYMBOL_GPL(pseries_rs_shared_cede);

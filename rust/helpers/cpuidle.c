// SPDX-License-Identifier: GPL-2.0

#include <linux/cpuidle.h>
#include <linux/cpumask.h>
#include <linux/percpu.h>
#include <linux/tick.h>

#ifdef CONFIG_CPU_IDLE
__rust_helper struct cpuidle_device *rust_helper_cpuidle_device_of(unsigned int cpu)
{
	if (cpu >= nr_cpu_ids)
		return NULL;
	return per_cpu(cpuidle_devices, cpu);
}

#ifndef CONFIG_NO_HZ_COMMON
/*
 * Without NO_HZ_COMMON (HZ_PERIODIC) the tick queries governors use are
 * inline stubs; with it they are functions, which bindgen binds directly.
 */
__rust_helper bool rust_helper_tick_nohz_tick_stopped(void)
{
	return tick_nohz_tick_stopped();
}

__rust_helper bool rust_helper_tick_nohz_idle_got_tick(void)
{
	return tick_nohz_idle_got_tick();
}

__rust_helper ktime_t rust_helper_tick_nohz_get_sleep_length(ktime_t *delta_next)
{
	return tick_nohz_get_sleep_length(delta_next);
}
#endif
#endif

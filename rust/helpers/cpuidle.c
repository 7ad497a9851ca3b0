// SPDX-License-Identifier: GPL-2.0

#include <linux/cpuidle.h>
#include <linux/cpumask.h>
#include <linux/percpu.h>

#ifdef CONFIG_CPU_IDLE
__rust_helper struct cpuidle_device *rust_helper_cpuidle_device_of(unsigned int cpu)
{
	if (cpu >= nr_cpu_ids)
		return NULL;
	return per_cpu(cpuidle_devices, cpu);
}
#endif

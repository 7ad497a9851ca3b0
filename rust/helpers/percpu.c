// SPDX-License-Identifier: GPL-2.0

#include <linux/percpu.h>

__rust_helper void __percpu *rust_helper___alloc_percpu(size_t size, size_t align)
{
	return __alloc_percpu(size, align);
}

__rust_helper void *rust_helper_per_cpu_ptr(void __percpu *ptr, unsigned int cpu)
{
	return per_cpu_ptr(ptr, cpu);
}

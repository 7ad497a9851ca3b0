/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The cpuidle structures with the fields governors use, laid out as in
 * include/linux/cpuidle.h of Linux 7.3 (order and types of those fields).
 */
#ifndef PARITY_LINUX_CPUIDLE_H
#define PARITY_LINUX_CPUIDLE_H

#include <linux/kernel.h>

#define CPUIDLE_STATE_MAX	10
#define CPUIDLE_NAME_LEN	16
#define CPUIDLE_DESC_LEN	32

#define CPUIDLE_FLAG_NONE	(0x00)
#define CPUIDLE_FLAG_POLLING	BIT(0)
#define CPUIDLE_FLAG_COUPLED	BIT(1)
#define CPUIDLE_FLAG_TIMER_STOP	BIT(2)
#define CPUIDLE_FLAG_UNUSABLE	BIT(3)
#define CPUIDLE_FLAG_OFF	BIT(4)
#define CPUIDLE_FLAG_TLB_FLUSHED BIT(5)
#define CPUIDLE_FLAG_RCU_IDLE	BIT(6)

#define CPUIDLE_STATE_DISABLED_BY_USER		BIT(0)
#define CPUIDLE_STATE_DISABLED_BY_DRIVER	BIT(1)

struct cpuidle_state_usage {
	unsigned long long	disable;
	unsigned long long	usage;
	u64			time_ns;
	unsigned long long	above;
	unsigned long long	below;
	unsigned long long	rejected;
};

struct cpuidle_state {
	char		name[CPUIDLE_NAME_LEN];
	char		desc[CPUIDLE_DESC_LEN];
	s64		exit_latency_ns;
	s64		target_residency_ns;
	unsigned int	flags;
	unsigned int	exit_latency;
	int		power_usage;
	unsigned int	target_residency;
};

struct cpuidle_device {
	unsigned int		registered:1;
	unsigned int		enabled:1;
	unsigned int		poll_time_limit:1;
	unsigned int		cpu;
	ktime_t			next_hrtimer;
	int			last_state_idx;
	u64			last_residency_ns;
	u64			poll_limit_ns;
	u64			forced_idle_latency_limit_ns;
	struct cpuidle_state_usage	states_usage[CPUIDLE_STATE_MAX];
};

struct cpuidle_driver {
	const char		*name;
	struct cpuidle_state	states[CPUIDLE_STATE_MAX];
	int			state_count;
	int			safe_state_index;
};

struct cpuidle_governor {
	char			name[CPUIDLE_NAME_LEN];
	unsigned int		rating;
	int  (*enable)(struct cpuidle_driver *drv, struct cpuidle_device *dev);
	void (*disable)(struct cpuidle_driver *drv, struct cpuidle_device *dev);
	int  (*select)(struct cpuidle_driver *drv, struct cpuidle_device *dev,
		       bool *stop_tick);
	void (*reflect)(struct cpuidle_device *dev, int index);
};

int cpuidle_register_governor(struct cpuidle_governor *gov);
s64 cpuidle_governor_latency_req(unsigned int cpu);

#endif

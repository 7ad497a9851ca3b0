// SPDX-License-Identifier: GPL-2.0
/*
 * Host build of one C cpuidle governor from the kernel tree (GOV_SRC, e.g.
 * drivers/cpuidle/governors/teo.c), driven by the Rust harness through the
 * parity_* functions below.  The governor source is included, not copied.
 */
#include <linux/cpuidle.h>
#include <linux/tick.h>

#include GOV_SRC

/* The idle period the harness describes; read by the tick/QoS stand-ins. */
struct parity_env {
	s64 latency_req_ns;
	s64 sleep_duration_ns;
	s64 delta_tick_ns;
	bool tick_stopped;
	bool got_tick;
	unsigned int sleep_queries;
};

static struct parity_env env;
static struct cpuidle_governor *gov;
static struct cpuidle_driver drv;
static struct cpuidle_device dev;

int cpuidle_register_governor(struct cpuidle_governor *g)
{
	gov = g;
	return 0;
}

s64 cpuidle_governor_latency_req(unsigned int cpu)
{
	return env.latency_req_ns;
}

ktime_t tick_nohz_get_sleep_length(ktime_t *delta_next)
{
	env.sleep_queries++;
	*delta_next = env.delta_tick_ns;
	return env.sleep_duration_ns;
}

bool tick_nohz_tick_stopped(void)
{
	return env.tick_stopped;
}

bool tick_nohz_idle_got_tick(void)
{
	return env.got_tick;
}

/* Registers the governor; sets the driver's table (ns values, flags). */
int parity_init(int count, const s64 *residency_ns, const s64 *latency_ns,
		const unsigned int *flags)
{
	int i;

	if (!gov && parity_initcall() != 0)
		return -1;
	memset(&drv, 0, sizeof(drv));
	memset(&dev, 0, sizeof(dev));
	for (i = 0; i < count && i < CPUIDLE_STATE_MAX; i++) {
		drv.states[i].target_residency_ns = residency_ns[i];
		drv.states[i].exit_latency_ns = latency_ns[i];
		drv.states[i].flags = flags[i];
	}
	drv.state_count = count;
	dev.last_state_idx = -1;
	return gov->enable ? gov->enable(&drv, &dev) : 0;
}

/* Re-enables the governor (as on a governor switch); keeps the device. */
int parity_enable(void)
{
	return gov->enable ? gov->enable(&drv, &dev) : 0;
}

/* One select(): inputs, then the decision and whether the sleep length
 * was asked for. */
int parity_select(unsigned int disabled, s64 latency_req_ns, bool tick_stopped,
		  s64 sleep_ns, s64 delta_tick_ns, bool *stop_tick,
		  unsigned int *sleep_queries)
{
	int i;

	for (i = 0; i < CPUIDLE_STATE_MAX; i++)
		dev.states_usage[i].disable = (disabled >> i) & 1 ?
			CPUIDLE_STATE_DISABLED_BY_USER : 0;
	env.latency_req_ns = latency_req_ns;
	env.tick_stopped = tick_stopped;
	env.sleep_duration_ns = sleep_ns;
	env.delta_tick_ns = delta_tick_ns;
	env.sleep_queries = 0;
	*stop_tick = true;
	i = gov->select(&drv, &dev, stop_tick);
	*sleep_queries = env.sleep_queries;
	return i;
}

/* The core's part after the CPU woke up, then reflect(). */
void parity_wakeup(int idx, u64 residency_ns, bool poll_time_limit,
		   bool got_tick)
{
	dev.last_residency_ns = residency_ns;
	dev.poll_time_limit = poll_time_limit;
	env.got_tick = got_tick;
	if (gov->reflect)
		gov->reflect(&dev, idx);
	else
		dev.last_state_idx = idx;
}

void parity_set_last_state_idx(int idx)
{
	dev.last_state_idx = idx;
}

int parity_last_state_idx(void)
{
	return dev.last_state_idx;
}

bool parity_poll_time_limit(void)
{
	return dev.poll_time_limit;
}

#ifdef PARITY_TEO
/* teo's per-CPU data, flattened for comparison with rteo's. */
void parity_teo_state(s64 *out)
{
	struct teo_cpu *c = this_cpu_ptr(&teo_cpus);
	int i;

	out[0] = c->sleep_length_ns;
	out[1] = c->total;
	out[2] = c->total_tick;
	out[3] = c->tick_intercepts;
	out[4] = c->short_idles;
	out[5] = c->tick_wakeup;
	for (i = 0; i < CPUIDLE_STATE_MAX; i++) {
		out[6 + 2 * i] = c->state_bins[i].intercepts;
		out[7 + 2 * i] = c->state_bins[i].hits;
	}
}
#endif

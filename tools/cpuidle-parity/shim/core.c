// SPDX-License-Identifier: GPL-2.0
/*
 * Host build of the cpuidle core's and the tick's own mechanisms, for the
 * governor simulator (tools/cpuidle-sim).  Its build.rs cuts the
 * definitions out of the kernel tree (never copied into this repository)
 * into simcore_types.h and simcore_kernel.c: cpuidle_enter_state(),
 * cpuidle_poll_time(), poll_idle(), cpuidle_governor_latency_req(),
 * idle_call_stop_or_retain_tick(), the NOHZ idle code of tick-sched.c
 * (tick_nohz_idle_enter(), tick_nohz_get_sleep_length(),
 * tick_nohz_idle_stop_tick(), the tick handler, tick_nohz_irq_exit(),
 * tick_nohz_idle_got_tick(), ...) and hrtimer_forward(), with the
 * structures they use.  This file holds the stand-ins for the rest of the
 * kernel, which describe one CPU and its world:
 *
 *  - a simulated clock (local_clock_noinstr(), ktime_get());
 *  - the tick, the sched_timer hrtimer of the tick code, every TICK_NSEC on
 *    a grid whose phase the episode gives; one other hrtimer, the timer the
 *    idle period started with; no timer-wheel timer; the clock event device
 *    programmed to the earliest of the two;
 *  - jiffies kept by another CPU (this one never has the do_timer duty),
 *    on the tick's grid;
 *  - the wake-up that ends the idle period (the timer's or another
 *    interrupt's), which makes a task runnable: need_resched();
 *  - a non-polling state halts until the next interrupt (the wake-up or the
 *    clock event device), then spends its exit latency with IRQs off, as
 *    the emulated-state driver (drivers/cpuidle/vstates_enter.c) does;
 *  - cpu_relax() costs simcore_set_relax_ns() of the clock; interrupts
 *    are taken when IRQs are on (in poll_idle(), and when
 *    cpuidle_enter_state() enables them after the state).
 *
 * A polling state enters the tree's poll_idle(), or, by default, its
 * outcome in closed form (simcore_poll_fast(), the one piece of kernel
 * logic restated here, tested equal to the tree's loop).
 *
 * Everything else the extracted code calls is a no-op here (tracing,
 * accounting, RCU and lockdep hooks) or a constant of the world above
 * (no softirq pending, RCU and irq_work not needing the CPU, no nohz_full,
 * no coupled states, no timer broadcast).  What the world never reaches
 * aborts (simcore_unmodeled()).  Driven from Rust through simcore_*().
 */
#include <linux/kernel.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>

/* ---- language and compiler stand-ins ---- */
#define noinstr
#define __cpuidle
#define __read_mostly
#ifndef __always_inline
#define __always_inline inline
#endif
#define S32_MAX			INT32_MAX
#define USEC_PER_SEC		1000000L
#define min_t(type, a, b)	((type)(a) < (type)(b) ? (type)(a) : (type)(b))
#define BUILD_BUG_ON(c)		_Static_assert(!(c), #c)
#define READ_ONCE(x)		(x)
#define WRITE_ONCE(x, v)	((x) = (v))
#define CONFIG_NO_HZ_COMMON	1
#define IS_ENABLED(option)	(option)
#define container_of(ptr, type, member) \
	((type *)((char *)(ptr) - offsetof(type, member)))
#define __this_cpu_read(x)	(x)
#define smp_processor_id()	0
#define ktime_sub(a, b)		((a) - (b))
#define ns_to_ktime(ns)		((ktime_t)(ns))
#define ktime_to_ns(kt)		((s64)(kt))
#define ktime_divns(kt, div)	((s64)(kt) / (s64)(div))

static u64 simcore_warnings;

static void simcore_warn(const char *file, int line)
{
	if (simcore_warnings++ < 10)
		fprintf(stderr, "simcore: WARN at %s:%d\n", file, line);
}

/* A path of the kernel that the simulated world never takes. */
static void simcore_unmodeled(const char *what)
{
	fprintf(stderr, "simcore: %s is not modelled\n", what);
	abort();
}

#define WARN_ON_ONCE(c) ({						\
	int __c = !!(c);						\
	if (__c)							\
		simcore_warn(__FILE__, __LINE__);			\
	__c;								\
})
/* takes a warning's message arguments (unchecked: kernel formats) */
static inline void simcore_msg(const char *fmt, ...)
{
}

#define WARN_ON(c)		WARN_ON_ONCE(c)
#define WARN_ONCE(c, ...) ({						\
	int __w = WARN_ON_ONCE(c);					\
	if (__w)							\
		simcore_msg(__VA_ARGS__);				\
	__w;								\
})
#define pr_warn(...)		fprintf(stderr, __VA_ARGS__)

/* ---- types the extracted structures refer to ---- */
struct list_head {
	struct list_head *next, *prev;
};

typedef struct {
	int counter;
} atomic_t;

/* the tick's callback forwards its timer while it is not queued */
struct hrtimer {
	ktime_t expires;
	bool active;
	bool is_queued;
};

#define HRTIMER_MODE_ABS_PINNED_HARD	0

struct clock_event_device {
	ktime_t next_event;
};

struct pt_regs {
	int unused;
};

struct device;
struct cpuidle_device;
struct cpuidle_driver;

#include "simcore_types.h"

/* ---- the world ---- */
static struct {
	ktime_t clock;
	bool irqs_on;
	bool need_resched;
	/* the wake-up that ends the idle period, absolute */
	ktime_t wake;
	/* the one hrtimer besides the tick, absolute */
	ktime_t timer;
	/* a tick of the grid: ticks at grid + k * TICK_NSEC */
	ktime_t grid;
	/* cpu_latency_qos_limit(), us */
	s32 qos_us;
	u64 relax_ns;
	/* >= 0: a non-polling state lasts exactly this (tests) */
	s64 fixed_residency;
	/* how the last non-polling state ended: 1 wake-up, 2 tick */
	int woken_by;
	/* polling states run the tree's poll_idle() loop itself */
	bool exact_poll;
	/*
	 * What the idle loop's own work costs: the governor's decision (its
	 * select() and the tick decision), stopping the tick, restarting it
	 * on the way out (tick_nohz_idle_exit()).  0 in this world; the
	 * emulated world (world.c) sets them.
	 */
	s64 decide_ns;
	s64 stop_ns;
	s64 restart_ns;
} w = { .relax_ns = 1, .fixed_residency = -1 };

/* Episodes start here: absolute times are never near 0 (0 means "none"
 * to the tick code).
 */
#define SIM_BASE	((ktime_t)1000 * NSEC_PER_SEC)

static struct cpuidle_driver drv;
static struct cpuidle_device dev;
static struct tick_sched tick_cpu_sched;
static struct clock_event_device simcore_evtdev;
static struct tick_device tick_cpu_device = { .evtdev = &simcore_evtdev };
/* another CPU keeps the do_timer duty */
static int tick_do_timer_cpu = 1;
static struct pt_regs simcore_regs;
static int simcore_seq;

static void simcore_interrupts(void);
static void simcore_program(void);

static inline u64 local_clock_noinstr(void)
{
	return w.clock;
}

static inline ktime_t ktime_get(void)
{
	return w.clock;
}

static inline bool need_resched(void)
{
	return w.need_resched;
}

static inline void local_irq_disable(void)
{
	w.irqs_on = false;
}

static inline void local_irq_enable(void)
{
	w.irqs_on = true;
	simcore_interrupts();
}

#define raw_local_irq_disable()		local_irq_disable()
#define raw_local_irq_enable()		local_irq_enable()
#define irqs_disabled()			(!w.irqs_on)
#define lockdep_assert_irqs_disabled()	WARN_ON_ONCE(w.irqs_on)
#define lockdep_assert_irqs_enabled()	WARN_ON_ONCE(!w.irqs_on)

static inline void cpu_relax(void)
{
	w.clock += w.relax_ns;
	if (w.irqs_on)
		simcore_interrupts();
}

#define current_set_polling_and_test()	need_resched()
#define current_clr_polling()		do { } while (0)

/* jiffies: the ticks of the grid so far, kept by the timekeeping CPU */
static inline s64 simcore_ticks_since_grid(void)
{
	s64 d = w.clock - w.grid;

	return d >= 0 ? d / TICK_NSEC : -((-d + TICK_NSEC - 1) / TICK_NSEC);
}

#define jiffies			((unsigned long)(1000000 + simcore_ticks_since_grid()))
#define last_jiffies_update	(w.grid + simcore_ticks_since_grid() * TICK_NSEC)
#define read_seqcount_begin(s)		((void)(s), 0)
#define read_seqcount_retry(s, seq)	((void)(s), (void)(seq), 0)
#define jiffies_seq			simcore_seq

static void tick_do_update_jiffies64(ktime_t now)
{
	simcore_unmodeled("the do_timer duty");
}

#define atomic_read(a)			((a)->counter)
#define atomic_set(a, v)		((a)->counter = (v))
#define atomic_try_cmpxchg(a, old, new) \
	((a)->counter == *(old) ? ((a)->counter = (new), true) : \
	 (*(old) = (a)->counter, false))

/* hrtimers: the tick's sched_timer and the world's timer */
static u64 hrtimer_resolution = 1;

#define hrtimer_get_expires(t)		((t)->expires)
#define hrtimer_get_expires_tv64(t)	((t)->expires)
#define hrtimer_add_expires(t, ns)	((t)->expires += (ns))
#define hrtimer_add_expires_ns(t, ns)	((t)->expires += (ns))
#define hrtimer_active(t)		((t)->active)

static inline void hrtimer_start(struct hrtimer *t, ktime_t expires, int mode)
{
	t->expires = expires;
	t->active = true;
	simcore_program();
}

static inline int hrtimer_cancel(struct hrtimer *t)
{
	int was = t->active;

	t->active = false;
	simcore_program();
	return was;
}

static inline void hrtimer_set_expires(struct hrtimer *t, ktime_t expires)
{
	t->expires = expires;
}

static inline ktime_t hrtimer_next_event_without(const struct hrtimer *t)
{
	return w.timer;
}

static inline void tick_program_event(ktime_t expires, int force)
{
	simcore_unmodeled("the tick in low-resolution mode");
}

/* timers, RCU, softirqs, nohz_full: nothing pending, not configured */
#define rcu_needs_cpu()			false
#define irq_work_needs_cpu()		false
#define local_timer_softirq_pending()	false
#define local_softirq_pending()		0U
#define SOFTIRQ_HOTPLUG_SAFE_MASK	0U
#define cpu_active(cpu)			true
#define cpu_is_offline(cpu)		false
#define local_bh_blocked()		false
#define tick_nohz_full_enabled()	false
#define tick_nohz_full_cpu(cpu)		false
#define get_next_timer_interrupt(basej, basem)	((u64)KTIME_MAX)
#define timekeeping_max_deferment()	((u64)KTIME_MAX)

static inline u64 timer_base_try_to_set_idle(unsigned long basej, u64 basem,
					     bool *idle)
{
	*idle = true;
	return KTIME_MAX;
}

/* accounting, tracing, RCU, lockdep: no effect on the decisions */
#define calc_load_nohz_start()		do { } while (0)
#define quiet_vmstat()			do { } while (0)
#define trace_tick_stop(a, b)		do { } while (0)
#define TICK_DEP_MASK_NONE		0
#define kcpustat_dyntick_start(t)	do { } while (0)
#define kcpustat_irq_exit(t)		do { } while (0)
#define nohz_balance_enter_idle(cpu)	do { } while (0)
#define sched_clock_idle_sleep_event()	do { } while (0)
#define sched_clock_idle_wakeup_event()	do { } while (0)
#define touch_softlockup_watchdog_sched() do { } while (0)
#define update_process_times(user)	do { } while (0)
#define profile_tick(type)		do { } while (0)
#define CPU_PROFILING			1
#define user_mode(regs)			0
#define get_irq_regs()			(&simcore_regs)
#define instrumentation_begin()		do { } while (0)
#define instrumentation_end()		do { } while (0)
#define stop_critical_timings()		do { } while (0)
#define start_critical_timings()	do { } while (0)
#define ct_cpuidle_enter()		do { } while (0)
#define ct_cpuidle_exit()		do { } while (0)
#define sched_idle_set_state(s)		do { } while (0)
#define trace_cpu_idle(state, cpu)	do { } while (0)
#define trace_cpu_idle_miss(cpu, state, below) do { } while (0)
#define PWR_EVENT_EXIT			(-1)
#define leave_mm()			do { } while (0)
#define cpuidle_state_is_coupled(drv, i) false
#define tick_broadcast_enter()		0
#define tick_broadcast_exit()		do { } while (0)

/* PM QoS: only the CPU latency limit of the episode */
#define get_cpu_device(cpu)		((struct device *)NULL)
#define dev_pm_qos_raw_resume_latency(d) \
	((void)(d), PM_QOS_RESUME_LATENCY_NO_CONSTRAINT)
#define cpu_latency_qos_limit()		(w.qos_us)
#define cpu_wakeup_latency_qos_limit()	PM_QOS_RESUME_LATENCY_NO_CONSTRAINT

#include "simcore_kernel.c"

/* The clock event device: the earliest of the tick and the timer. */
static void simcore_program(void)
{
	struct hrtimer *t = &tick_cpu_sched.sched_timer;
	ktime_t next = w.timer;

	if (t->active && t->expires < next)
		next = t->expires;
	simcore_evtdev.next_event = next;
}

/* Takes the interrupts due by now (IRQs on): the tick's hrtimer, whose
 * callback re-arms it or not, and the wake-up, which readies a task; each
 * ends with irq_exit()'s tick_nohz_irq_exit().
 */
static void simcore_interrupts(void)
{
	struct tick_sched *ts = &tick_cpu_sched;

	for (;;) {
		bool tick = ts->sched_timer.active &&
			    ts->sched_timer.expires <= w.clock;
		bool wake = !w.need_resched && w.wake <= w.clock;

		if (!tick && !wake)
			break;
		w.irqs_on = false;
		if (tick) {
			ts->sched_timer.active = false;
			if (tick_nohz_handler(&ts->sched_timer) ==
			    HRTIMER_RESTART)
				ts->sched_timer.active = true;
			simcore_program();
		}
		if (wake)
			w.need_resched = true;
		tick_nohz_irq_exit();
		w.irqs_on = true;
	}
}

/* ->enter() of a non-polling state: halt until the next interrupt, then
 * the exit latency with IRQs off.
 */
static int simcore_state_enter(struct cpuidle_device *d,
			       struct cpuidle_driver *dr, int index)
{
	ktime_t until = simcore_evtdev.next_event;

	if (w.fixed_residency >= 0) {
		w.clock += w.fixed_residency;
		return index;
	}
	if (w.wake < until)
		until = w.wake;
	w.woken_by = w.wake <= until ? 1 : 2;
	if (until > w.clock)
		w.clock = until;
	w.clock += dr->states[index].exit_latency_ns;
	return index;
}

/*
 * poll_idle()'s outcome in closed form: the tree's loop costs one
 * iteration per relax_ns of simulated time, this the same in a few steps.
 * The loop sees need_resched() after the first cpu_relax() at or past the
 * wake-up and reads the clock after every POLL_IDLE_RELAX_COUNT + 1
 * relaxes, stopping with poll_time_limit at the first reading past the
 * limit (before it looks at need_resched() again); each interrupt is taken
 * at the relax it falls in.  A hand copy of kernel logic: tested against
 * the tree's poll_idle() (simcore::tests::fast_poll_is_poll_idle), which
 * simcore_set_exact_poll() runs instead.
 */
static int simcore_poll_fast(struct cpuidle_device *d,
			     struct cpuidle_driver *dr, int index)
{
	struct hrtimer *tick = &tick_cpu_sched.sched_timer;
	ktime_t start = local_clock_noinstr();
	s64 c = w.relax_ns;
	s64 period = (POLL_IDLE_RELAX_COUNT + 1) * c;
	ktime_t t_wake, t_limit, end;

	d->poll_time_limit = false;
	raw_local_irq_enable();
	if (!current_set_polling_and_test()) {
		s64 limit = cpuidle_poll_time(dr, d);

		t_wake = start + (w.wake - start + c - 1) / c * c;
		t_limit = start + (limit / period + 1) * period;
		end = t_limit <= t_wake ? t_limit : t_wake;
		/* the ticks before the end, each at its relax */
		while (tick->active && tick->expires < end) {
			ktime_t at = start + (tick->expires - start + c - 1) / c * c;

			if (at >= end)
				break;
			w.clock = at;
			simcore_interrupts();
		}
		w.clock = end;
		simcore_interrupts();
		if (t_limit <= t_wake)
			d->poll_time_limit = true;
	}
	raw_local_irq_disable();
	current_clr_polling();
	return index;
}

/* ---- the interface to the simulator ---- */

/* The driver's table (ns values, CPUIDLE_FLAG_* bits): polling states enter
 * poll_idle() (or its closed form), the others simcore_state_enter(); all
 * enabled.
 */
int simcore_init(int count, const s64 *residency_ns, const s64 *latency_ns,
		 const unsigned int *flags)
{
	int i;

	if (count < 1 || count > CPUIDLE_STATE_MAX)
		return -1;
	memset(&drv, 0, sizeof(drv));
	memset(&dev, 0, sizeof(dev));
	for (i = 0; i < count; i++) {
		drv.states[i].target_residency_ns = residency_ns[i];
		drv.states[i].exit_latency_ns = latency_ns[i];
		drv.states[i].flags = flags[i];
		if (!(flags[i] & CPUIDLE_FLAG_POLLING))
			drv.states[i].enter = simcore_state_enter;
		else if (w.exact_poll)
			drv.states[i].enter = poll_idle;
		else
			drv.states[i].enter = simcore_poll_fast;
	}
	drv.state_count = count;
	dev.last_state_idx = -1;
	dev.enabled = 1;
	/* a new CPU: no tick taken in idle that a reflect() has not read */
	tick_cpu_sched.got_idle_tick = 0;
	return 0;
}

/* Disables the states of `mask` and resets the poll time cache, as a write
 * to a state's sysfs "disable" does (cpuidle_state_store()).
 */
void simcore_set_disabled(unsigned int mask)
{
	int i;

	for (i = 0; i < CPUIDLE_STATE_MAX; i++)
		dev.states_usage[i].disable = (mask >> i) & 1 ?
			CPUIDLE_STATE_DISABLED_BY_USER : 0;
	dev.poll_limit_ns = 0;
}

u64 simcore_poll_time(void)
{
	return cpuidle_poll_time(&drv, &dev);
}

/* Polling states: the tree's poll_idle() itself (for the next
 * simcore_init()), or its closed form.
 */
void simcore_set_exact_poll(bool exact)
{
	w.exact_poll = exact;
}

void simcore_set_relax_ns(u64 ns)
{
	w.relax_ns = ns ? ns : 1;
}

/* Test hook: non-polling states last exactly `ns` (-1: the world's rule). */
void simcore_set_fixed_residency(s64 ns)
{
	w.fixed_residency = ns;
}

s32 simcore_qos_default_us(void)
{
	return PM_QOS_CPU_LATENCY_DEFAULT_VALUE;
}

s64 simcore_tick_nsec(void)
{
	return TICK_NSEC;
}

/* A new idle period, times relative to its start: the wake-up, the timer,
 * the first tick (in (0, TICK_NSEC]) and the CPU latency QoS limit.  The
 * task that ran before left the tick running (tick_nohz_idle_exit()); the
 * idle loop enters: tick_nohz_idle_enter(), then IRQs off.
 */
void simcore_episode(s64 wake_ns, s64 timer_ns, s64 tick_ns, s32 qos_us)
{
	struct tick_sched *ts = &tick_cpu_sched;
	unsigned int got_idle_tick = ts->got_idle_tick;

	w.clock = SIM_BASE;
	w.wake = SIM_BASE + wake_ns;
	w.timer = SIM_BASE + timer_ns;
	w.grid = SIM_BASE + tick_ns;
	w.qos_us = qos_us;
	w.need_resched = false;
	memset(ts, 0, sizeof(*ts));
	ts->got_idle_tick = got_idle_tick;
	ts->flags = TS_FLAG_NOHZ | TS_FLAG_HIGHRES;
	ts->sched_timer.expires = w.grid;
	ts->sched_timer.active = true;
	ts->last_tick_jiffies = jiffies;
	simcore_program();
	w.irqs_on = true;
	tick_nohz_idle_enter();
	local_irq_disable();
}

/* do_idle()'s loop, again: IRQs off before cpuidle_idle_call(). */
void simcore_idle_again(void)
{
	local_irq_disable();
}

s64 simcore_latency_req(void)
{
	return cpuidle_governor_latency_req(0);
}

s64 simcore_sleep_length(s64 *delta_next)
{
	ktime_t d;
	s64 r = tick_nohz_get_sleep_length(&d);

	*delta_next = d;
	return r;
}

bool simcore_tick_stopped(void)
{
	return tick_nohz_tick_stopped();
}

/* After the governor's select(): its decision's cost, then
 * idle_call_stop_or_retain_tick() and, when that stopped the tick, the cost
 * of stopping it, all with IRQs off before the entry.
 */
void simcore_stop_or_retain_tick(bool stop_tick)
{
	bool stopped = tick_nohz_tick_stopped();

	w.clock += w.decide_ns;
	idle_call_stop_or_retain_tick(stop_tick);
	if (!stopped && tick_nohz_tick_stopped())
		w.clock += w.stop_ns;
}

/* The idle loop's way out of the period (need_resched): what
 * tick_nohz_idle_exit() costs when it restarts a stopped tick, before the
 * woken task runs; the clock is not moved (the period is over).
 */
s64 simcore_idle_exit_cost(void)
{
	return tick_nohz_tick_stopped() ? w.restart_ns : 0;
}

/* What one cpuidle_enter_state() did. */
struct simcore_entry {
	int entered;
	/* times relative to the episode's start */
	s64 start_ns;
	s64 end_ns;
	u64 residency_ns;
	u64 above;
	u64 below;
	bool poll_time_limit;
	/* a non-polling state woken by the tick, by the wake-up */
	bool by_tick;
	bool by_wake;
};

void simcore_enter(int idx, struct simcore_entry *e)
{
	u64 above = dev.states_usage[idx].above;
	u64 below = dev.states_usage[idx].below;

	w.woken_by = 0;
	e->start_ns = w.clock - SIM_BASE;
	e->entered = cpuidle_enter_state(&dev, &drv, idx);
	e->end_ns = w.clock - SIM_BASE;
	e->residency_ns = dev.last_residency_ns;
	e->above = dev.states_usage[idx].above - above;
	e->below = dev.states_usage[idx].below - below;
	e->poll_time_limit = dev.poll_time_limit;
	e->by_tick = w.woken_by == 2;
	e->by_wake = w.woken_by == 1;
}

bool simcore_got_tick(void)
{
	return tick_nohz_idle_got_tick();
}

bool simcore_need_resched(void)
{
	return need_resched();
}

bool simcore_poll_time_limit(void)
{
	return dev.poll_time_limit;
}

void simcore_set_poll_time_limit(bool v)
{
	dev.poll_time_limit = v;
}

/* The tick's next expiry relative to the episode's start, or -1 when the
 * sched_timer is not armed.
 */
s64 simcore_next_tick(void)
{
	struct hrtimer *t = &tick_cpu_sched.sched_timer;

	return t->active ? t->expires - SIM_BASE : -1;
}

u64 simcore_warnings_count(void)
{
	return simcore_warnings;
}

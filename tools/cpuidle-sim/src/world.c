// SPDX-License-Identifier: GPL-2.0
/*
 * The simulator's world: tools/cpuidle-parity/shim/core.c (the tree's
 * cpuidle core and tick code with the stand-ins that describe one CPU),
 * with one model of an emulated CPU more, for replaying traces recorded in
 * a QEMU guest (cpuidle-sim replay, evaluation/fidelity.py).  core.c is
 * included whole; only the ->enter() of the non-polling states changes,
 * and only after simcore_set_emulated() asked for it.
 *
 * In an emulator (QEMU's TCG), an interrupt reaches a halted vCPU late:
 * the guest's CPU resumes well after the clock event it was programmed
 * for (hundreds of us in the recordings; README.md, "Replay").  The
 * emulated world:
 *
 *  - the tick's interrupt reaches a halted CPU wake_delay_ns after the
 *    tick's expiry (the parameter cpuidle-sim --wake-delay-us);
 *  - a wake-up may come after the timer's expiry (a timer interrupt
 *    delivered late): the CPU halts until then, it does not resume at the
 *    timer's expiry (core.c's rule, under which a wake-up past the timer
 *    cannot happen);
 *  - the interrupt that ends the episode reaches a halted CPU
 *    halt_delay_ns after the episode's wake-up, a polling one at once: the
 *    waker of a polling CPU only sets need_resched, and a halted vCPU's
 *    thread must be woken.  The caller gives the delay per episode
 *    (simcore_set_halt_delay()) and makes the wake-up the time the
 *    interrupt was raised: for an interrupt before the timer (an IPI from
 *    the waker, a device), cpuidle-sim --irq-delay-us, taken off the
 *    recorded time where the guest's CPU was halted; for a timer whose
 *    wake-up was recorded late with the guest's CPU halted, the timer's
 *    expiry, the lateness the delay.
 *
 *  - the idle loop's own work costs time (simcore_set_tick_costs(),
 *    cpuidle-sim --tick-costs-us): every decision of the governor (its
 *    select() and the tick decision) and a stop of the tick delay the
 *    entry that follows (IRQs off), a restart of the stopped tick on the
 *    way out (tick_nohz_idle_exit()) delays the woken task
 *    (simcore_idle_exit_cost()); in core.c's world they are free.
 *
 * A halted CPU thus resumes at the earlier of the wake-up and the tick's
 * delivery, then spends its exit latency with IRQs off, as in core.c.
 * Polling states are unchanged: poll_idle() ends at the wake-up (as
 * recorded) or its limit, and takes the tick on time (it does not end a
 * poll).  With wake_delay_ns 0 and no wake-up past the timer this is
 * core.c's simcore_state_enter() exactly (tested:
 * emulated_world_without_delay_is_the_stock_world).
 */
#include "core.c"

static struct {
	bool on;
	s64 wake_delay_ns;
	s64 halt_delay_ns;
	s64 decide_ns;
	s64 stop_ns;
	s64 restart_ns;
} emu;

static int simcore_state_enter_emulated(struct cpuidle_device *d,
					struct cpuidle_driver *dr, int index)
{
	struct hrtimer *tick = &tick_cpu_sched.sched_timer;
	ktime_t until = w.wake;

	if (w.fixed_residency >= 0) {
		w.clock += w.fixed_residency;
		return index;
	}
	w.woken_by = 1;
	/* the wake-up's interrupt: late to a halted CPU */
	until += emu.halt_delay_ns;
	if (tick->active && tick->expires + emu.wake_delay_ns < until) {
		until = tick->expires + emu.wake_delay_ns;
		w.woken_by = 2;
	}
	if (until > w.clock)
		w.clock = until;
	w.clock += dr->states[index].exit_latency_ns;
	return index;
}

/* The emulated world from the next simcore_init_world() on (off: core.c's,
 * and no interrupt delay). */
void simcore_set_emulated(bool on, s64 wake_delay_ns)
{
	emu.on = on;
	emu.wake_delay_ns = wake_delay_ns > 0 ? wake_delay_ns : 0;
	if (!on)
		emu.halt_delay_ns = emu.decide_ns = emu.stop_ns = emu.restart_ns = 0;
}

/* In the emulated world: what the idle loop's work costs (core.c's
 * decide_ns, stop_ns, restart_ns; evaluation/tickcost.py measures them).
 */
void simcore_set_tick_costs(s64 decide_ns, s64 stop_ns, s64 restart_ns)
{
	emu.decide_ns = decide_ns > 0 ? decide_ns : 0;
	emu.stop_ns = stop_ns > 0 ? stop_ns : 0;
	emu.restart_ns = restart_ns > 0 ? restart_ns : 0;
}

/* In the emulated world, for the next episode: how late its wake-up's
 * interrupt reaches a halted CPU.
 */
void simcore_set_halt_delay(s64 halt_delay_ns)
{
	emu.halt_delay_ns = halt_delay_ns > 0 ? halt_delay_ns : 0;
}

/* simcore_init(), then the emulated ->enter() if asked for. */
int simcore_init_world(int count, const s64 *residency_ns,
		       const s64 *latency_ns, const unsigned int *flags)
{
	int i, rc = simcore_init(count, residency_ns, latency_ns, flags);

	w.decide_ns = emu.on ? emu.decide_ns : 0;
	w.stop_ns = emu.on ? emu.stop_ns : 0;
	w.restart_ns = emu.on ? emu.restart_ns : 0;
	if (rc || !emu.on)
		return rc;
	for (i = 0; i < count; i++)
		if (!(flags[i] & CPUIDLE_FLAG_POLLING))
			drv.states[i].enter = simcore_state_enter_emulated;
	return 0;
}

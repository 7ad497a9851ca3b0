/* SPDX-License-Identifier: GPL-2.0 */
#ifndef __CPUIDLE_GOVERNOR_RTEO_H
#define __CPUIDLE_GOVERNOR_RTEO_H

#include <linux/types.h>

/* Implemented in rteo.rs: registers the governor with the cpuidle core. */
int rteo_register(void);

/* Implemented in rteo_init.c: the rteo.parity and rteo.rules_off parameters. */
bool rteo_parity_mode(void);
unsigned int rteo_rules_off(void);

/* Implemented in rteo.rs: the bits of the default mode's rules. */
unsigned int rteo_rules_all(void);

/*
 * The recorder (rteo_init.c, rteo.record=1): one record per select() with
 * the governor's inputs, its decision and what the previous idle period
 * turned out to be, in a per-CPU ring read through debugfs (rteo/trace).
 * Layout shared with rteo.rs (#[repr(C)]).
 */
struct rteo_rec {
	u64 t_ns;		/* local_clock() at select(), set by rteo_record() */
	s64 sleep_ns;		/* time to the next timer */
	s64 delta_tick_ns;	/* time to the next tick */
	s64 latency_req_ns;	/* PM QoS limit */
	u64 last_residency_ns;	/* the previous period, as the core measured it */
	s32 last_idx;		/* state of the previous period (-1: none) */
	u8 idx;			/* state chosen */
	u8 stop_tick;
	u8 tick_stopped;
	u8 got_tick;		/* the previous period ended by the tick */
	u8 poll_time_limit;	/* ... by the polling time limit */
	u8 pad[3];
};

extern bool rteo_record_on;	/* rteo.record */
void rteo_record(struct rteo_rec *rec);

#endif /* __CPUIDLE_GOVERNOR_RTEO_H */

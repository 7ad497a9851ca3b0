/* SPDX-License-Identifier: GPL-2.0 */
#ifndef __CPUIDLE_GOVERNOR_RTEO_H
#define __CPUIDLE_GOVERNOR_RTEO_H

#include <linux/types.h>

/* Implemented in rteo.rs: registers the governor with the cpuidle core. */
int rteo_register(void);

/* Implemented in rteo_init.c: the rteo.parity and rteo.rules_off parameters. */
bool rteo_parity_mode(void);
unsigned int rteo_rules_off(void);

/*
 * Implemented in rteo.rs: the bits of the default mode's rules, and whether
 * rteo.rules_off may switch off a set of them.
 */
unsigned int rteo_rules_all(void);
bool rteo_rules_off_valid(unsigned int off);

#endif /* __CPUIDLE_GOVERNOR_RTEO_H */

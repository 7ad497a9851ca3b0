/* SPDX-License-Identifier: GPL-2.0 */
#ifndef __CPUIDLE_GOVERNOR_RTEO_H
#define __CPUIDLE_GOVERNOR_RTEO_H

/* Implemented in rteo.rs: registers the governor with the cpuidle core. */
int rteo_register(void);

#endif /* __CPUIDLE_GOVERNOR_RTEO_H */

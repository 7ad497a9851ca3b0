// SPDX-License-Identifier: GPL-2.0
/*
 * Registration of the rteo governor.
 *
 * cpuidle_register_governor() is not exported and has no counterpart to
 * unregister, and Rust module initcalls run at device level: after the C
 * governors and after the drivers that pick a governor when they register.
 * So, like the C governors, rteo registers from a postcore initcall; the
 * governor itself is Rust (rteo.rs).
 */

#include <linux/init.h>

#include "rteo.h"

static int __init rteo_init(void)
{
	return rteo_register();
}
postcore_initcall(rteo_init);

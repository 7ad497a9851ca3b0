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
#include <linux/moduleparam.h>

#include "rteo.h"

#undef MODULE_PARAM_PREFIX
#define MODULE_PARAM_PREFIX "rteo."

/*
 * rteo.parity=1 (command line, or /sys/module/rteo/parameters/parity at run
 * time, taking effect on CPUs the governor is enabled on afterwards, e.g.
 * by switching governors): make exactly teo's decisions.
 */
static bool parity;
module_param(parity, bool, 0644);
MODULE_PARM_DESC(parity, "Make exactly the decisions of teo (rteo's own refinements off)");

bool rteo_parity_mode(void)
{
	return READ_ONCE(parity);
}

static int __init rteo_init(void)
{
	return rteo_register();
}
postcore_initcall(rteo_init);

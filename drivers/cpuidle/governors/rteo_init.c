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

#include <linux/compiler.h>
#include <linux/init.h>
#include <linux/kstrtox.h>
#include <linux/moduleparam.h>
#include <linux/printk.h>

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

/*
 * rteo.rules_off=MASK: switch rules of the default mode off, bit n-1 for
 * rule n of Documentation/admin-guide/pm/rteo.rst (an evaluation knob; 0,
 * every rule on, by default).  Rule 2 is not left on without rule 1.  Taken,
 * like rteo.parity, by CPUs the governor is enabled on afterwards.
 */
static unsigned int rules_off;

static int rteo_rules_off_set(const char *val, const struct kernel_param *kp)
{
	unsigned int v;
	int ret;

	ret = kstrtouint(val, 0, &v);
	if (ret) {
		pr_warn("rteo: rules_off: not a number\n");
		return ret;
	}
	if (v & ~rteo_rules_all()) {
		pr_warn("rteo: rules_off=%#x: the rules are bits %#x\n", v,
			rteo_rules_all());
		return -EINVAL;
	}
	if (!rteo_rules_off_valid(v)) {
		pr_warn("rteo: rules_off=%#x: rule 2 needs rule 1, switch both off\n",
			v);
		return -EINVAL;
	}
	WRITE_ONCE(rules_off, v);
	return 0;
}

static const struct kernel_param_ops rteo_rules_off_ops = {
	.set = rteo_rules_off_set,
	.get = param_get_uint,
};
module_param_cb(rules_off, &rteo_rules_off_ops, &rules_off, 0644);
MODULE_PARM_DESC(rules_off, "Rules of the default mode to switch off (bit n-1: rule n)");

unsigned int rteo_rules_off(void)
{
	return READ_ONCE(rules_off);
}

static int __init rteo_init(void)
{
	return rteo_register();
}
postcore_initcall(rteo_init);

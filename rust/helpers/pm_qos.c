// SPDX-License-Identifier: GPL-2.0

#include <linux/pm_qos.h>

__rust_helper s32 rust_helper_dev_pm_qos_raw_resume_latency(struct device *dev)
{
	return dev_pm_qos_raw_resume_latency(dev);
}

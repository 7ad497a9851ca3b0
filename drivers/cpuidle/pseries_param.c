// SPDX-License-Identifier: GPL-2.0
/*
 * Module parameter of the Rust pseries cpuidle driver (Rust module
 * parameters cannot be strings yet).
 */

#include <linux/moduleparam.h>

#include "pseries_idle.h"

static char *xcede_payload;
module_param(xcede_payload, charp, 0444);
MODULE_PARM_DESC(xcede_payload,
		 "Testing only (CONFIG_PSERIES_CPUIDLE_RUST_TEST_PAYLOAD): hex bytes used instead of the firmware's cede latency settings");

static char *lpar = "auto";
module_param(lpar, charp, 0444);
MODULE_PARM_DESC(lpar,
		 "Testing only (CONFIG_PSERIES_CPUIDLE_RUST_TEST_PAYLOAD): auto, dedicated or shared table regardless of the LPAR type");

const char *pseries_rs_lpar(void)
{
	return lpar;
}

const char *pseries_rs_xcede_payload(void)
{
	return xcede_payload;
}

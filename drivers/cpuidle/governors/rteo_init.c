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

#include <linux/debugfs.h>
#include <linux/init.h>
#include <linux/moduleparam.h>
#include <linux/mutex.h>
#include <linux/rcupdate.h>
#include <linux/sched/clock.h>
#include <linux/seq_file.h>
#include <linux/slab.h>

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
 * every rule on, by default).  Taken, like rteo.parity, by CPUs the governor
 * is enabled on afterwards.
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

#define RTEO_REC_N	4096

struct rteo_ring {
	unsigned int head;	/* records written, modulo nothing */
	struct rteo_rec buf[RTEO_REC_N];
};

/* nr_cpu_ids rings, allocated the first time recording is switched on. */
static struct rteo_ring *rteo_rings;
/* Read by rteo.rs on every select(): a plain variable, not a call. */
bool rteo_record_on;
static DEFINE_MUTEX(rteo_rec_lock);

/*
 * Switch recording on (emptying the rings, allocated the first time) or
 * off.  Once it returns with recording off, no CPU is still writing.
 */
static int rteo_record_switch(bool on)
{
	struct rteo_ring *rings;
	int cpu;

	mutex_lock(&rteo_rec_lock);
	if (on && !rteo_rings) {
		rings = kvcalloc(nr_cpu_ids, sizeof(*rings), GFP_KERNEL);
		if (!rings) {
			mutex_unlock(&rteo_rec_lock);
			return -ENOMEM;
		}
		/* publish before any CPU can see record set */
		smp_store_release(&rteo_rings, rings);
	}
	if (on && !READ_ONCE(rteo_record_on)) {
		for_each_possible_cpu(cpu)
			WRITE_ONCE(rteo_rings[cpu].head, 0);
	}
	WRITE_ONCE(rteo_record_on, on);
	/*
	 * Recorders run in select() with IRQs off, an RCU read-side section:
	 * once this returns, none is still writing, and the rings can be read.
	 */
	if (!on)
		synchronize_rcu();
	mutex_unlock(&rteo_rec_lock);
	return 0;
}

/* rteo.record=1 on the kernel command line, taken before slab is up */
static bool rteo_record_at_boot;

/*
 * rteo.record=1 empties the rings and starts recording; 0 stops it.  Read
 * /sys/kernel/debug/rteo/trace after stopping.  On the kernel command line
 * the setter runs before the allocator is up: the request is kept and
 * carried out by rteo_init().
 */
static int rteo_record_set(const char *val, const struct kernel_param *kp)
{
	bool on;
	int ret;

	ret = kstrtobool(val, &on);
	if (ret)
		return ret;
	if (!slab_is_available()) {
		rteo_record_at_boot = on;
		return 0;
	}
	return rteo_record_switch(on);
}

static const struct kernel_param_ops rteo_record_ops = {
	.set = rteo_record_set,
	.get = param_get_bool,
};
module_param_cb(record, &rteo_record_ops, &rteo_record_on, 0644);
MODULE_PARM_DESC(record, "Record the governor's inputs and decisions (debugfs rteo/trace)");

/* Called by select() on the local CPU with IRQs off. */
void rteo_record(struct rteo_rec *rec)
{
	/* pairs with the release in rteo_record_set(): the rings are set up */
	struct rteo_ring *rings = smp_load_acquire(&rteo_rings);
	struct rteo_ring *r;

	if (!rings || !READ_ONCE(rteo_record_on))
		return;
	r = &rings[raw_smp_processor_id()];
	rec->t_ns = local_clock();
	r->buf[r->head % RTEO_REC_N] = *rec;
	WRITE_ONCE(r->head, r->head + 1);
}

static int rteo_trace_show(struct seq_file *m, void *v)
{
	unsigned int n, i, head;
	int cpu;

	mutex_lock(&rteo_rec_lock);
	if (READ_ONCE(rteo_record_on) || !rteo_rings) {
		seq_puts(m, "# not recording, or still recording: write 1 then 0 to /sys/module/rteo/parameters/record\n");
		mutex_unlock(&rteo_rec_lock);
		return 0;
	}
	seq_puts(m, "# cpu t_ns sleep_ns delta_tick_ns latency_req_ns last_residency_ns last_idx got_tick poll_time_limit tick_stopped idx stop_tick\n");
	for_each_possible_cpu(cpu) {
		struct rteo_ring *r = &rteo_rings[cpu];

		head = READ_ONCE(r->head);
		n = min_t(unsigned int, head, RTEO_REC_N);
		for (i = head - n; i != head; i++) {
			struct rteo_rec *e = &r->buf[i % RTEO_REC_N];

			seq_printf(m, "%d %llu %lld %lld %lld %llu %d %u %u %u %u %u\n", cpu,
				   e->t_ns, e->sleep_ns, e->delta_tick_ns, e->latency_req_ns,
				   e->last_residency_ns, e->last_idx, e->got_tick,
				   e->poll_time_limit, e->tick_stopped, e->idx, e->stop_tick);
		}
	}
	mutex_unlock(&rteo_rec_lock);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(rteo_trace);

static int __init rteo_init(void)
{
	int ret = rteo_register();

	if (ret)
		return ret;
	debugfs_create_file("trace", 0400, debugfs_create_dir("rteo", NULL), NULL,
			    &rteo_trace_fops);
	if (rteo_record_at_boot && rteo_record_switch(true))
		pr_err("rteo: cannot allocate the recorder's rings: not recording\n");
	return 0;
}
postcore_initcall(rteo_init);

// SPDX-License-Identifier: GPL-2.0

//! The emulated-state driver's `pseries-xcede` table (cpuidle_tables.rs) is
//! what the pseries driver builds from the three records the QEMU test
//! injects: one source of truth for both.

#[path = "../../../drivers/cpuidle/cpuidle_tables.rs"]
#[allow(dead_code)]
mod cpuidle_tables;

use xcede_fuzz::pseries_xcede::{parse, plan, testing};

#[test]
fn pseries_xcede_table_is_the_driver_table() {
    let mut buf = [0u8; 64];
    let n = testing::build(&testing::THREE, &mut buf);
    let p = plan(&parse(&buf[..n]).unwrap(), testing::TB_HZ);
    let t = cpuidle_tables::PSERIES_XCEDE;
    assert_eq!(t.len(), 2 + p.states().count());
    assert_eq!(t[0].name, c"snooze");
    assert_eq!(t[1].name, c"CEDE");
    assert_eq!(
        Some((t[1].exit_latency_us, t[1].target_residency_us)),
        p.cede0
    );
    for (spec, x) in t[2..].iter().zip(p.states()) {
        assert_eq!(spec.name.to_bytes(), x.name());
        assert_eq!(spec.exit_latency_us, x.exit_latency_us);
        assert_eq!(spec.target_residency_us, x.target_residency_us);
        assert_eq!(
            spec.flags & cpuidle_tables::FLAG_TIMER_STOP != 0,
            x.timer_stop
        );
    }
}

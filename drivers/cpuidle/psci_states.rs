// SPDX-License-Identifier: GPL-2.0

//! A CPU's device-tree idle states (`arm,idle-state`), checked and turned
//! into the cpuidle states of the PSCI driver.
//!
//! The rules are those of `dt_idle_states.c` and `cpuidle-psci.c`: a
//! state node must be compatible with `arm,idle-state`; a disabled one
//! (`status = "disabled"`) is skipped; the exit latency is
//! `wakeup-latency-us`, or else `entry-latency-us` + `exit-latency-us`;
//! `min-residency-us` is the target residency; `local-timer-stop` marks a
//! state that stops the CPU's timer; `arm,psci-suspend-param` is the
//! CPU_SUSPEND `power_state`, which must fit the firmware's format (the
//! original one of PSCI 0.2, or the extended one PSCI 1.0 may announce).
//! The state is named after its node (without unit address) and described
//! by `idle-state-name`.  More enabled states than cpuidle holds: the
//! first ones are kept and the rest not read, as in C (the driver warns).
//! Two differences: an entry + exit latency that overflows 32 bits is
//! saturated where C wraps (the driver warns), and a node whose name is
//! empty (which dtc does not produce) is an error.  The CPU_SUSPEND
//! parameter is that of each enabled state's own node: C takes it by
//! position in the list, disabled nodes included, and gives the states
//! after a disabled one the parameter of the node before.
//!
//! This file is pure: no kernel calls, no allocation, no panics on any
//! input.  The driver (`psci.rs`), its KUnit suite, the host tests and the
//! host fuzzer (`tools/psci-dt-fuzz`) all compile it.

/// States cpuidle holds (`CPUIDLE_STATE_MAX`): WFI and at most 9 from the DT.
pub const STATE_MAX: usize = 10;
/// DT states a CPU may have, after WFI.
pub const MAX_DT_STATES: usize = STATE_MAX - 1;
/// Bytes of a state name (`CPUIDLE_NAME_LEN`), NUL included.
pub const NAME_LEN: usize = 16;
/// Bytes of a state description (`CPUIDLE_DESC_LEN`), NUL included.
pub const DESC_LEN: usize = 32;

/// `power_state` bits of the original format (`PSCI_0_2_POWER_STATE_*`):
/// state id 0..15, type 16, affinity level 24..25.
pub const ORIGINAL_MASK: u32 = 0xffff | 1 << 16 | 0x3 << 24;
/// The original format's power-down type bit.
pub const ORIGINAL_POWER_DOWN: u32 = 1 << 16;
/// `power_state` bits of the extended format (`PSCI_1_0_EXT_POWER_STATE_*`):
/// state id 0..27, type 30.
pub const EXTENDED_MASK: u32 = 0x0fff_ffff | 1 << 30;
/// The extended format's power-down type bit.
pub const EXTENDED_POWER_DOWN: u32 = 1 << 30;

/// The `power_state` format the firmware uses (`PSCI_FEATURES(CPU_SUSPEND)`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Format {
    /// PSCI 0.2's format, also the default of later versions.
    Original,
    /// PSCI 1.0's extended StateID format.
    Extended,
}

impl Format {
    /// The bits a valid parameter may have.
    pub const fn mask(self) -> u32 {
        match self {
            Format::Original => ORIGINAL_MASK,
            Format::Extended => EXTENDED_MASK,
        }
    }

    /// Whether a state with parameter `param` loses the CPU's context
    /// (its type is power-down).
    pub const fn power_down(self, param: u32) -> bool {
        match self {
            Format::Original => param & ORIGINAL_POWER_DOWN != 0,
            Format::Extended => param & EXTENDED_POWER_DOWN != 0,
        }
    }
}

/// What the device tree says of one idle-state node, as read: `None` is an
/// absent (or unreadable) property.
#[derive(Clone, Copy, Debug, Default)]
pub struct Node<'a> {
    /// The node's name, possibly with a unit address (`cpu-sleep@0`).
    pub name: &'a [u8],
    /// `compatible` holds `arm,idle-state`.
    pub compatible: bool,
    /// `status` is absent, `okay` or `ok`.
    pub available: bool,
    /// `arm,psci-suspend-param`.
    pub psci_param: Option<u32>,
    /// `entry-latency-us`.
    pub entry_latency_us: Option<u32>,
    /// `exit-latency-us`.
    pub exit_latency_us: Option<u32>,
    /// `wakeup-latency-us`.
    pub wakeup_latency_us: Option<u32>,
    /// `min-residency-us`.
    pub min_residency_us: Option<u32>,
    /// `local-timer-stop`.
    pub local_timer_stop: bool,
    /// `idle-state-name`.
    pub idle_state_name: Option<&'a [u8]>,
}

/// Why a CPU's states were refused; `index` is the position in its
/// `cpu-idle-states` list.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Error {
    /// Not compatible with `arm,idle-state`.
    NotIdleState {
        /// Position in `cpu-idle-states`.
        index: usize,
    },
    /// No `arm,psci-suspend-param`.
    NoParam {
        /// Position in `cpu-idle-states`.
        index: usize,
    },
    /// `arm,psci-suspend-param` has bits the firmware's format does not.
    BadParam {
        /// Position in `cpu-idle-states`.
        index: usize,
        /// The parameter.
        param: u32,
        /// The bits it may have.
        mask: u32,
    },
    /// Neither `wakeup-latency-us` nor both entry and exit latencies.
    NoLatency {
        /// Position in `cpu-idle-states`.
        index: usize,
    },
    /// No `min-residency-us`.
    NoResidency {
        /// Position in `cpu-idle-states`.
        index: usize,
    },
    /// The node has no name to give the state.
    NoName {
        /// Position in `cpu-idle-states`.
        index: usize,
    },
}

/// One state to register after WFI.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct DtState {
    /// The CPU_SUSPEND `power_state`.
    pub param: u32,
    /// Exit latency, us.
    pub exit_latency_us: u32,
    /// Target residency, us.
    pub target_residency_us: u32,
    /// `CPUIDLE_FLAG_TIMER_STOP`.
    pub timer_stop: bool,
    /// The parameter's type is power-down.
    pub power_down: bool,
    /// `entry-latency-us` + `exit-latency-us` overflowed 32 bits and
    /// `exit_latency_us` was saturated.
    pub latency_saturated: bool,
    /// Position in `cpu-idle-states`.
    pub index: usize,
    name: [u8; NAME_LEN],
    desc: [u8; DESC_LEN],
}

impl DtState {
    /// The state's name, NUL-terminated.
    pub fn name_with_nul(&self) -> &[u8] {
        with_nul(&self.name)
    }

    /// The state's description, NUL-terminated.
    pub fn desc_with_nul(&self) -> &[u8] {
        with_nul(&self.desc)
    }
}

fn with_nul(b: &[u8]) -> &[u8] {
    let end = b.iter().position(|&c| c == 0).unwrap_or(b.len() - 1);
    &b[..=end]
}

/// Copies `src` up to its first NUL into a NUL-terminated `N`-byte array,
/// truncated as `strscpy()` does.
fn copy_str<const N: usize>(src: &[u8]) -> [u8; N] {
    let mut out = [0u8; N];
    let src = src.split(|&c| c == 0).next().unwrap_or(&[]);
    let n = src.len().min(N - 1);
    out[..n].copy_from_slice(&src[..n]);
    out
}

/// A CPU's states after WFI, in `cpu-idle-states` order.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Table {
    states: [Option<DtState>; MAX_DT_STATES],
    len: usize,
    /// Disabled nodes skipped.
    pub disabled: usize,
    /// An enabled node was left out: cpuidle holds no more states.
    pub truncated: bool,
}

impl Table {
    /// The states.
    pub fn states(&self) -> impl Iterator<Item = &DtState> {
        self.states[..self.len].iter().flatten()
    }

    /// How many states there are.
    pub fn len(&self) -> usize {
        self.len
    }

    /// Whether there are none.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Whether two CPUs' tables register the same states.
    pub fn same_states(&self, other: &Table) -> bool {
        self.states().eq(other.states())
    }
}

fn state(index: usize, n: &Node<'_>, format: Format) -> Result<DtState, Error> {
    let (exit_latency_us, latency_saturated) =
        match (n.wakeup_latency_us, n.entry_latency_us, n.exit_latency_us) {
            (Some(w), _, _) => (w, false),
            (None, Some(entry), Some(exit)) => (
                entry.saturating_add(exit),
                entry.checked_add(exit).is_none(),
            ),
            _ => return Err(Error::NoLatency { index }),
        };
    let target_residency_us = n.min_residency_us.ok_or(Error::NoResidency { index })?;
    let param = n.psci_param.ok_or(Error::NoParam { index })?;
    let mask = format.mask();
    if param & !mask != 0 {
        return Err(Error::BadParam { index, param, mask });
    }
    let base = n.name.split(|&c| c == b'@').next().unwrap_or(&[]);
    if base.is_empty() || base[0] == 0 {
        return Err(Error::NoName { index });
    }
    Ok(DtState {
        param,
        exit_latency_us,
        target_residency_us,
        timer_stop: n.local_timer_stop,
        power_down: format.power_down(param),
        latency_saturated,
        index,
        name: copy_str(base),
        desc: copy_str(n.idle_state_name.unwrap_or(base)),
    })
}

/// Checks a CPU's idle-state nodes, in order, and builds its table.  The
/// first bad node refuses the whole CPU, as in the C driver; nodes after
/// the last state cpuidle holds are not checked, as in C.
pub fn parse(nodes: &[Node<'_>], format: Format) -> Result<Table, Error> {
    let mut t = Table {
        states: [None; MAX_DT_STATES],
        len: 0,
        disabled: 0,
        truncated: false,
    };
    for (index, n) in nodes.iter().enumerate() {
        if !n.compatible {
            return Err(Error::NotIdleState { index });
        }
        if !n.available {
            t.disabled += 1;
            continue;
        }
        if t.len == MAX_DT_STATES {
            t.truncated = true;
            break;
        }
        t.states[t.len] = Some(state(index, n, format)?);
        t.len += 1;
    }
    Ok(t)
}

/// A well-formed node for tests: retention or power-down with the given
/// parameter, 10/20 us entry/exit, 100 us residency.
#[cfg(any(test, psci_host_testing, CONFIG_ARM_PSCI_CPUIDLE_RUST_KUNIT_TEST))]
pub mod testing {
    use super::Node;

    /// A node named `name` that every check accepts (original format).
    pub fn good(name: &[u8], param: u32) -> Node<'_> {
        Node {
            name,
            compatible: true,
            available: true,
            psci_param: Some(param),
            entry_latency_us: Some(10),
            exit_latency_us: Some(20),
            wakeup_latency_us: None,
            min_residency_us: Some(100),
            local_timer_stop: false,
            idle_state_name: None,
        }
    }
}

#[cfg(any(test, CONFIG_ARM_PSCI_CPUIDLE_RUST_KUNIT_TEST))]
#[cfg_attr(not(test), ::kernel::macros::kunit_tests(psci_dt_states))]
mod tests {
    use super::testing::good;
    use super::*;

    #[test]
    fn retention_and_power_down() -> Result<(), Error> {
        let mut pd = good(b"cpu-power-down@1", 0x0001_0000);
        pd.local_timer_stop = true;
        pd.wakeup_latency_us = Some(250);
        pd.min_residency_us = Some(1000);
        pd.idle_state_name = Some(b"CPU power down");
        let t = parse(&[good(b"cpu-retention", 0x1), pd], Format::Original)?;
        assert_eq!(t.len(), 2);
        let mut it = t.states();
        let Some(r) = it.next() else {
            return Err(Error::NoName { index: 0 });
        };
        assert_eq!(
            (r.param, r.exit_latency_us, r.target_residency_us),
            (1, 30, 100)
        );
        assert!(!r.power_down && !r.timer_stop);
        assert_eq!(r.name_with_nul(), b"cpu-retention\0");
        assert_eq!(r.desc_with_nul(), b"cpu-retention\0");
        let Some(p) = it.next() else {
            return Err(Error::NoName { index: 1 });
        };
        // wakeup-latency-us wins over entry + exit; the unit address goes
        assert_eq!((p.exit_latency_us, p.target_residency_us), (250, 1000));
        assert!(p.power_down && p.timer_stop);
        assert_eq!(p.name_with_nul(), b"cpu-power-down\0");
        assert_eq!(p.desc_with_nul(), b"CPU power down\0");
        Ok(())
    }

    #[test]
    fn parameter_bits_outside_the_format() {
        // bit 17 and bit 31: outside the original format (QEMU refuses
        // bits 17..31 too); the extended format takes bit 17, not bit 31
        for bit in [17, 20, 23, 26, 29, 31] {
            let p = 1u32 << bit;
            assert_eq!(
                parse(&[good(b"s", p)], Format::Original),
                Err(Error::BadParam {
                    index: 0,
                    param: p,
                    mask: ORIGINAL_MASK
                })
            );
        }
        assert!(parse(&[good(b"s", 1 << 17)], Format::Extended).is_ok());
        assert!(parse(&[good(b"s", 1 << 31)], Format::Extended).is_err());
        // the affinity level bits are part of the original format
        assert!(parse(&[good(b"s", 0x0101_0000)], Format::Original).is_ok());
    }

    #[test]
    fn missing_properties() {
        let ok = good(b"a", 0);
        let mut n = good(b"b", 1);
        n.psci_param = None;
        assert_eq!(
            parse(&[ok, n], Format::Original),
            Err(Error::NoParam { index: 1 })
        );
        let mut n = good(b"b", 1);
        n.exit_latency_us = None;
        assert_eq!(
            parse(&[n], Format::Original),
            Err(Error::NoLatency { index: 0 })
        );
        n.wakeup_latency_us = Some(5);
        assert!(parse(&[n], Format::Original).is_ok());
        let mut n = good(b"b", 1);
        n.min_residency_us = None;
        assert_eq!(
            parse(&[n], Format::Original),
            Err(Error::NoResidency { index: 0 })
        );
        let mut n = good(b"b", 1);
        n.compatible = false;
        assert_eq!(
            parse(&[n], Format::Original),
            Err(Error::NotIdleState { index: 0 })
        );
        let n = good(b"@0", 1);
        assert_eq!(
            parse(&[n], Format::Original),
            Err(Error::NoName { index: 0 })
        );
    }

    #[test]
    fn latency_overflow_saturates() -> Result<(), Error> {
        let mut n = good(b"x", 1);
        n.entry_latency_us = Some(u32::MAX);
        let t = parse(&[n, good(b"y", 2)], Format::Original)?;
        let mut it = t.states();
        let first = it.next().map(|s| (s.exit_latency_us, s.latency_saturated));
        assert_eq!(first, Some((u32::MAX, true)));
        assert_eq!(it.next().map(|s| s.latency_saturated), Some(false));
        Ok(())
    }

    #[test]
    fn disabled_states_are_skipped() -> Result<(), Error> {
        let mut off = good(b"off", 0x1_0000);
        off.available = false;
        // a disabled node is not checked further, as in the C code
        off.psci_param = None;
        let t = parse(&[good(b"a", 1), off, good(b"b", 2)], Format::Original)?;
        assert_eq!(t.len(), 2);
        assert_eq!(t.disabled, 1);
        let idx: [usize; 2] = {
            let mut i = t.states().map(|s| s.index);
            [i.next().unwrap_or(9), i.next().unwrap_or(9)]
        };
        assert_eq!(idx, [0, 2]);
        Ok(())
    }

    /// The length and truncation of `nodes`' table (not inlined: a case
    /// holding several tables at once has a frame above
    /// `CONFIG_FRAME_WARN`).
    #[inline(never)]
    fn len_truncated(nodes: &[Node<'_>]) -> Result<(usize, bool), Error> {
        parse(nodes, Format::Original).map(|t| (t.len(), t.truncated))
    }

    /// Whether `a` and `b` give the same states (not inlined, and one
    /// table a frame, as above).
    #[inline(never)]
    fn same(a: &[Node<'_>], b: &[Node<'_>]) -> Result<bool, Error> {
        same_as(&parse(a, Format::Original)?, b)
    }

    #[inline(never)]
    fn same_as(a: &Table, b: &[Node<'_>]) -> Result<bool, Error> {
        Ok(a.same_states(&parse(b, Format::Original)?))
    }

    #[test]
    fn more_states_than_cpuidle_holds() {
        let names: [&[u8]; 11] = [
            b"0", b"1", b"2", b"3", b"4", b"5", b"6", b"7", b"8", b"9", b"10",
        ];
        let mut nodes = [good(b"", 0); 11];
        for (n, name) in nodes.iter_mut().zip(names) {
            *n = good(name, 1);
        }
        assert_eq!(len_truncated(&nodes[..MAX_DT_STATES]), Ok((9, false)));
        // as in C, the first nine are kept and the tenth is not read: a
        // malformed node there does not refuse the CPU
        nodes[MAX_DT_STATES].psci_param = None;
        assert_eq!(len_truncated(&nodes), Ok((9, true)));
        // a node there that is no idle state refuses it, as in C
        nodes[MAX_DT_STATES].compatible = false;
        assert_eq!(len_truncated(&nodes), Err(Error::NotIdleState { index: 9 }));
        // a disabled tenth state leaves nine, none left out
        nodes[MAX_DT_STATES].compatible = true;
        nodes[MAX_DT_STATES].available = false;
        assert_eq!(len_truncated(&nodes[..MAX_DT_STATES + 1]), Ok((9, false)));
    }

    #[test]
    fn cpus_with_different_states() -> Result<(), Error> {
        let a = [good(b"ret", 1), good(b"pd", 0x1_0000)];
        assert!(!same(&a, &[good(b"ret", 1)])?);
        assert!(same(&a, &[good(b"ret", 1), good(b"pd", 0x1_0000)])?);
        Ok(())
    }

    #[test]
    fn long_names_are_truncated() -> Result<(), Error> {
        let mut n = good(b"a-very-long-idle-state-name@100", 1);
        n.idle_state_name = Some(b"a description longer than thirty-one bytes");
        let t = parse(&[n], Format::Original)?;
        let Some(s) = t.states().next() else {
            return Err(Error::NoName { index: 0 });
        };
        assert_eq!(s.name_with_nul(), b"a-very-long-idl\0");
        assert_eq!(s.desc_with_nul(), b"a description longer than thirt\0");
        Ok(())
    }
}

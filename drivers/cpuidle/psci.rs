// SPDX-License-Identifier: GPL-2.0

//! PSCI cpuidle driver, platform-coordinated mode.
//!
//! A Rust counterpart of `cpuidle-psci.c` without OS-initiated mode (and
//! so without the PSCI power-domain driver).  Each present CPU whose DT
//! node says `enable-method = "psci"` gets a driver of its own
//! (`psci_idle`, for that CPU's mask): state 0 is WFI, and each enabled
//! idle-state node the CPU has becomes a state entered with PSCI
//! CPU_SUSPEND and the node's `arm,psci-suspend-param` (checked in
//! `psci_states.rs`), for idle and for suspend-to-idle.  The nodes are
//! found as C finds them (`of_get_cpu_state_node()`): through the CPU's
//! power domain (`power-domains`, then `domain-idle-states`) or else its
//! `cpu-idle-states`; CPUs may have different states.  As in C, every
//! present CPU must be a PSCI CPU with states, or there is no driver
//! (`ENODEV`, quietly: ACPI and spin-table systems have none); a malformed
//! node refuses the driver on every CPU, with a message naming the CPU,
//! the node and what is wrong.  What C registers with a warning (more
//! states than cpuidle holds, an exit latency above the target residency,
//! two states of one name), this driver registers with a warning too.
//! Every CPU's table is read and checked before any driver registers.
//!
//! The driver is built in: the entry routines (`psci_enter.c`) call
//! `psci_cpu_suspend_enter()`, which is not exported.  CPU hotplug goes
//! through PSCI CPU_OFF and CPU_ON as without the driver; a CPU's device
//! stays registered while it is offline.

use kernel::{
    cpu::{self, CpuId},
    cpuidle::{
        self,
        Enter,
        EnterFn,
        Flag,
        Options,
        Registration,
        State, //
    },
    cpumask::CpumaskVar,
    device::property::FwNode,
    ffi::c_int,
    prelude::*,
    str::CString,
};

#[path = "psci_states.rs"]
pub mod psci_states;

use psci_states::{
    Error as DtError,
    Format,
    Node,
    Table,
    MAX_DT_STATES, //
};

module! {
    type: PsciIdle,
    name: "cpuidle_psci_rs",
    authors: ["linux-pm@vger.kernel.org"],
    description: "PSCI cpuidle driver (flat layout)",
    license: "GPL",
}

// psci_enter.c (built in); prototypes in psci_enter.h.  The entry routines
// are checked against `cpuidle_state::enter` on both sides: below through
// `RawEnterFn` (the kernel crate checks it against the field's bindgen
// type), in psci_enter.c by a static_assert against the field's C type.
// The other prototypes pass only scalars.
unsafe extern "C" {
    // These read what the PSCI core and the DT set up at boot, check their
    // arguments, and may be called from any sleepable context.
    safe fn psci_rs_can_suspend() -> bool;
    safe fn psci_rs_osi_supported() -> bool;
    safe fn psci_rs_ext_power_state() -> bool;
    safe fn psci_rs_state_valid(param: u32) -> bool;
    safe fn psci_rs_enable_method_psci(cpu: u32) -> bool;
    // Refuses an out-of-range CPU or index with -EINVAL; otherwise a plain
    // store to the CPU's table, which its entry routine reads only once the
    // CPU's driver is registered.
    safe fn psci_rs_set_param(cpu: u32, index: u32, param: u32) -> c_int;
}

kernel::cpuidle_enter_fns! {
    fn psci_rs_enter_wfi;
    fn psci_rs_enter_state;
}

// The parser's limit is the core's.
const _: () = assert!(MAX_DT_STATES + 1 == kernel::cpuidle::STATE_MAX);

/// What was read of one idle-state node; the strings are owned here and
/// lent to the parser's [`Node`].
struct Read {
    name: CString,
    desc: Option<CString>,
    node: Node<'static>,
}

impl Read {
    fn node(&self) -> Node<'_> {
        Node {
            name: self.name.to_bytes(),
            idle_state_name: self.desc.as_ref().map(|d| d.to_bytes()),
            ..self.node
        }
    }
}

/// Reads one state node's properties.
fn read_node(st: &FwNode) -> Result<Read> {
    let name = CString::try_from_fmt(fmt!("{}", st.display_name()))?;
    let desc = st.property_read::<CString>(c"idle-state-name").optional();
    Ok(Read {
        name,
        desc,
        node: Node {
            name: &[],
            compatible: st
                .property_match_string(c"compatible", c"arm,idle-state")
                .is_ok(),
            available: st.is_available(),
            psci_param: st
                .property_read::<u32>(c"arm,psci-suspend-param")
                .optional(),
            entry_latency_us: st.property_read::<u32>(c"entry-latency-us").optional(),
            exit_latency_us: st.property_read::<u32>(c"exit-latency-us").optional(),
            wakeup_latency_us: st.property_read::<u32>(c"wakeup-latency-us").optional(),
            min_residency_us: st.property_read::<u32>(c"min-residency-us").optional(),
            local_timer_stop: st.property_read_bool(c"local-timer-stop"),
            idle_state_name: None,
        },
    })
}

/// The message for a refused node.
fn report(cpu: CpuId, nodes: &[Read], e: DtError) {
    let (index, what) = match e {
        DtError::NotIdleState { index } => (index, "is not compatible with arm,idle-state"),
        DtError::NoParam { index } => (index, "has no arm,psci-suspend-param"),
        DtError::BadParam { index, param, mask } => {
            pr_err!(
                "CPU{}: idle state {} ({}): arm,psci-suspend-param {:#x} has bits outside \
                 the firmware's power_state format ({:#x})\n",
                cpu.as_u32(),
                index,
                nodes.get(index).map_or(c"?", |r| &*r.name),
                param,
                mask
            );
            return;
        }
        DtError::NoLatency { index } => (
            index,
            "has neither wakeup-latency-us nor entry-latency-us and exit-latency-us",
        ),
        DtError::NoResidency { index } => (index, "has no min-residency-us"),
        DtError::NoName { index } => (index, "has no name"),
    };
    pr_err!(
        "CPU{}: idle state {} ({}) {}\n",
        cpu.as_u32(),
        index,
        nodes.get(index).map_or(c"?", |r| &*r.name),
        what
    );
}

/// Reads and checks `cpu`'s idle states.
///
/// Not inlined: its table and node lists would otherwise share
/// `PsciIdle::init`'s frame with the registration's (over 3 KiB on arm64,
/// above `CONFIG_FRAME_WARN`; pipeline/frames.sh).
#[inline(never)]
fn cpu_table(cpu: CpuId, format: Format) -> Result<Table> {
    if !psci_rs_enable_method_psci(cpu.as_u32()) {
        // As in C: not an error, and no message (no node: ACPI).
        pr_debug!("CPU{}: enable-method is not \"psci\"\n", cpu.as_u32());
        return Err(ENODEV);
    }
    // The whole list, as C walks it; parse() stops where cpuidle is full.
    let mut read = KVec::new();
    let mut i = 0;
    while let Some(st) = cpu::idle_state_fwnode(cpu, i) {
        read.push(read_node(&st)?, GFP_KERNEL)?;
        i += 1;
    }
    let mut nodes = KVec::with_capacity(read.len(), GFP_KERNEL)?;
    for r in read.iter() {
        nodes.push(r.node(), GFP_KERNEL)?;
    }
    let table = psci_states::parse(&nodes, format).map_err(|e| {
        report(cpu, &read, e);
        EINVAL
    })?;
    for s in table.states() {
        // The PSCI core's own check must agree with the parser's.
        if !psci_rs_state_valid(s.param) {
            pr_err!(
                "CPU{}: idle state {}: the PSCI core refuses arm,psci-suspend-param {:#x}\n",
                cpu.as_u32(),
                s.index,
                s.param
            );
            return Err(EINVAL);
        }
        if s.latency_saturated {
            pr_warn!(
                "CPU{}: idle state {} ({}): entry-latency-us + exit-latency-us above 2^32 us, \
                 exit latency {} us\n",
                cpu.as_u32(),
                s.index,
                read.get(s.index).map_or(c"?", |r| &*r.name),
                s.exit_latency_us
            );
        }
    }
    if table.truncated {
        pr_warn!(
            "CPU{}: more than {} enabled idle states: the first {} registered\n",
            cpu.as_u32(),
            MAX_DT_STATES,
            MAX_DT_STATES
        );
    }
    if table.disabled > 0 {
        pr_info!(
            "CPU{}: {} disabled idle state(s) skipped\n",
            cpu.as_u32(),
            table.disabled
        );
    }
    Ok(table)
}

/// The states of one CPU's driver: WFI, then the table's.
fn states(table: &Table) -> Result<KVec<State>> {
    // SAFETY: `psci_rs_enter_wfi` is a `__cpuidle` C function that runs
    // WFI with IRQs off and returns the index it was given, leaving RCU to
    // the core (`EnterFn::new`).
    let wfi = unsafe { EnterFn::new(psci_rs_enter_wfi) };
    // SAFETY: `psci_rs_enter_state` is a `__cpuidle` C function called
    // with IRQs off that returns with IRQs off, the index it was given or
    // -1; `psci_cpu_suspend_enter()` calls `ct_cpuidle_enter()` and
    // `ct_cpuidle_exit()` around the firmware call itself (or arm64's
    // `cpu_suspend()` does), so the state is RCU_IDLE (`new_rcu_idle`).
    // It never enables IRQs (`cpu_pm_enter()`/`_exit()` run the notifiers
    // with IRQs off; `cpu_suspend()` restores the DAIF mask it found) and
    // leaves the clock event devices alone, as `enter_s2idle` requires
    // (`also_s2idle`): `dt_idle_states.c` gives C's `psci_enter_idle_state`
    // both roles for the same reasons.
    let deep = unsafe { EnterFn::new_rcu_idle(psci_rs_enter_state).also_s2idle() };
    let mut out = KVec::with_capacity(table.len() + 1, GFP_KERNEL)?;
    out.push(
        State::new(c"WFI", c"ARM WFI", 1, 1, Enter::C(wfi)),
        GFP_KERNEL,
    )?;
    for s in table.states() {
        let name = CStr::from_bytes_with_nul(s.name_with_nul()).map_err(|_| EINVAL)?;
        let desc = CStr::from_bytes_with_nul(s.desc_with_nul()).map_err(|_| EINVAL)?;
        let mut state = State::new(
            name,
            desc,
            s.exit_latency_us,
            s.target_residency_us,
            Enter::C(deep),
        );
        if s.timer_stop {
            state = state.flags(Flag::TimerStop);
        }
        out.push(state, GFP_KERNEL)?;
    }
    Ok(out)
}

/// The name of every CPU's driver, as in C.
const DRIVER: &CStr = c"psci_idle";

struct PsciIdle {
    _drivers: KVec<Registration>,
}

impl kernel::Module for PsciIdle {
    fn init(_module: &'static ThisModule) -> Result<Self> {
        if !psci_rs_can_suspend() {
            pr_info!("the PSCI firmware has no CPU_SUSPEND: not registering\n");
            return Err(ENODEV);
        }
        if psci_rs_osi_supported() {
            pr_info!("OS-initiated mode not used: platform-coordinated states only\n");
        }
        let format = if psci_rs_ext_power_state() {
            Format::Extended
        } else {
            Format::Original
        };
        let cpus = || {
            (0..cpu::nr_cpu_ids())
                .filter_map(CpuId::from_u32)
                .filter(|&c| cpu::present(c))
        };
        // Every CPU's states are read and checked before any driver
        // registers, so that none registers only to be unregistered.
        let mut tables = KVec::new();
        for cpu in cpus() {
            tables.push((cpu, cpu_table(cpu, format)?), GFP_KERNEL)?;
        }
        let with_states = tables.iter().filter(|(_, t)| !t.is_empty()).count();
        if with_states == 0 {
            pr_info!("no idle states in the device tree: not registering\n");
            return Err(ENODEV);
        }
        if with_states != tables.len() {
            for (cpu, _) in tables.iter().filter(|(_, t)| t.is_empty()) {
                pr_err!(
                    "CPU{} has no idle states, unlike other CPUs\n",
                    cpu.as_u32()
                );
            }
            return Err(EINVAL);
        }
        let mut all_states = KVec::with_capacity(tables.len(), GFP_KERNEL)?;
        for (_, table) in tables.iter() {
            let states = states(table)?;
            // Registration logs the warnings.
            cpuidle::validate(DRIVER, &states)?;
            all_states.push(states, GFP_KERNEL)?;
        }
        let mut drivers = KVec::with_capacity(tables.len(), GFP_KERNEL)?;
        for ((cpu, table), states) in tables.iter().zip(all_states.iter()) {
            for (i, s) in table.states().enumerate() {
                let index = i as u32 + 1;
                kernel::error::to_result(psci_rs_set_param(cpu.as_u32(), index, s.param))?;
            }
            let mut mask = CpumaskVar::new_zero(GFP_KERNEL)?;
            mask.set(*cpu);
            let reg = Registration::new(
                DRIVER,
                states,
                Options {
                    governor: None,
                    cpumask: Some(mask),
                },
            )
            .inspect_err(|e| pr_err!("CPU{}: registration failed: {e:?}\n", cpu.as_u32()))?;
            drivers.push(reg, GFP_KERNEL)?;
        }
        let first = &tables[0].1;
        let uniform = tables.iter().all(|(_, t)| t.same_states(first));
        pr_info!(
            "{} CPU(s), {}: {} power_state format\n",
            tables.len(),
            if uniform {
                "the same states on every CPU"
            } else {
                "states differ between CPUs"
            },
            match format {
                Format::Original => "original",
                Format::Extended => "extended",
            }
        );
        Ok(Self { _drivers: drivers })
    }
}

// SPDX-License-Identifier: GPL-2.0

//! Pins one CPU's resume latency while loaded.
//!
//! Keeps a `DEV_PM_QOS_RESUME_LATENCY` request of `latency_us` on CPU `cpu`
//! for as long as the module is loaded: that CPU's idle governor then picks
//! only states whose exit latency is within the limit, while the other CPUs
//! keep entering deep states (unlike `/dev/cpu_dma_latency`, which caps all
//! CPUs).
//!
//! ```sh
//! insmod rust_pm_qos_cpu.ko cpu=1 latency_us=20
//! ```

use kernel::{
    cpu::CpuId,
    pm_qos::ResumeLatencyRequest,
    prelude::*, //
};

module! {
    type: PmQosCpu,
    name: "rust_pm_qos_cpu",
    authors: ["Rust for Linux Contributors"],
    description: "Pins a per-CPU resume latency (Rust PM QoS sample)",
    license: "GPL",
    params: {
        cpu: u32 {
            default: 0,
            description: "CPU whose resume latency is limited",
        },
        latency_us: i32 {
            default: 0,
            description: "Resume latency limit in microseconds (>= 0)",
        },
    },
}

struct PmQosCpu {
    req: ResumeLatencyRequest,
}

impl kernel::Module for PmQosCpu {
    fn init(_module: &'static ThisModule) -> Result<Self> {
        let cpu = module_parameters::cpu.value();
        let latency = module_parameters::latency_us.value();
        if latency < 0 {
            pr_err!("latency_us={latency}: must be >= 0\n");
            return Err(EINVAL);
        }
        let Some(id) = CpuId::from_u32(cpu) else {
            pr_err!("cpu={cpu}: no such CPU\n");
            return Err(ENODEV);
        };
        let req = ResumeLatencyRequest::new(id, latency).inspect_err(|e| {
            pr_err!("cpu={cpu}: cannot add a resume latency request ({e:?})\n");
        })?;
        pr_info!("cpu{cpu}: resume latency limited to {latency} us\n");
        Ok(Self { req })
    }
}

impl Drop for PmQosCpu {
    fn drop(&mut self) {
        pr_info!(
            "cpu{}: resume latency limit removed\n",
            self.req.cpu().as_u32()
        );
    }
}

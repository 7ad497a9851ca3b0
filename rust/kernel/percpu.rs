// SPDX-License-Identifier: GPL-2.0

//! Per-CPU allocations.
//!
//! C header: [`include/linux/percpu.h`](srctree/include/linux/percpu.h)

use crate::{
    alloc::KVVec,
    bindings,
    cpu::{
        nr_cpu_ids,
        CpuId, //
    },
    cpumask::Cpumask,
    error::code::ENOMEM,
    prelude::*, //
};
use core::ptr::NonNull;

/// The most one CPU's part of a per-CPU allocation may take
/// (`PCPU_MIN_UNIT_SIZE`, the smallest unit the allocator serves).
pub const MAX_SIZE: usize = bindings::PCPU_MIN_UNIT_SIZE;

/// One `T` for every possible CPU, in a dynamic per-CPU allocation
/// (`alloc_percpu()`), each made with `Default`.
///
/// The address of each CPU's `T` is worked out once, when it is allocated,
/// and kept in a plain array: a lookup then costs an index, not a call to
/// `per_cpu_ptr()` (a C helper).  Dropping it drops every CPU's `T` and
/// frees the allocation.
///
/// Which CPU may use which part, and when, is up to the user: the
/// allocation hands out shared references ([`PerCpu::get`]) and, through
/// `unsafe`, exclusive ones ([`PerCpu::get_mut`]).
///
/// # Invariants
///
/// `base` is a `__percpu` pointer returned by `__alloc_percpu()` for a `T`,
/// freed only by `drop()`.  `cpus` has `nr_cpu_ids` entries; `cpus[c]` is
/// `Some` exactly for the possible CPUs `c`, and then points to CPU `c`'s
/// initialised `T` in `base`.
pub struct PerCpu<T> {
    base: NonNull<T>,
    cpus: KVVec<Option<NonNull<T>>>,
}

// SAFETY: the `T`s can be reached from any thread that has the `PerCpu`,
// and dropped by the one that drops it: `T: Send` covers both.
unsafe impl<T: Send> Send for PerCpu<T> {}
// SAFETY: `&PerCpu<T>` gives `&T` (which needs `T: Sync`) and, through
// `unsafe`, `&mut T` to one CPU's data at a time (which needs `T: Send`).
unsafe impl<T: Send + Sync> Sync for PerCpu<T> {}

impl<T: Default> PerCpu<T> {
    /// Allocates a `T` for every possible CPU, each `T::default()`.
    ///
    /// Fails to compile if a `T` is larger than [`MAX_SIZE`] or aligned
    /// to more than a page (what `__alloc_percpu()` refuses, with a
    /// warning); returns `ENOMEM` if the allocation fails.
    pub fn new() -> Result<Self> {
        const {
            assert!(
                core::mem::size_of::<T>() <= MAX_SIZE,
                "per-CPU data too large"
            );
            assert!(
                core::mem::align_of::<T>() <= crate::page::PAGE_SIZE,
                "per-CPU data aligned to more than a page"
            );
        };
        let nr = nr_cpu_ids() as usize;
        let mut cpus = KVVec::with_capacity(nr, GFP_KERNEL)?;
        let size = core::mem::size_of::<T>().max(1);
        // SAFETY: `__alloc_percpu()` takes a size in `1..=MAX_SIZE` and a
        // power-of-two alignment of at most a page: `size` is, and so is the
        // alignment of a type, bounded above.
        let p = unsafe { bindings::__alloc_percpu(size, core::mem::align_of::<T>()) };
        let base = NonNull::new(p.cast::<T>()).ok_or(ENOMEM)?;
        // SAFETY: `__cpu_possible_mask` is a valid, static mask.
        let possible = unsafe { Cpumask::from_raw(&raw const bindings::__cpu_possible_mask) };
        for cpu in 0..nr as u32 {
            let mine = CpuId::from_u32(cpu)
                .filter(|&c| possible.test(c))
                .and_then(|_| {
                    // SAFETY: `p` is a per-CPU allocation and `cpu` a
                    // possible CPU.
                    NonNull::new(unsafe { bindings::per_cpu_ptr(p, cpu) }.cast::<T>())
                });
            if let Some(d) = mine {
                // SAFETY: `d` is CPU `cpu`'s part of the allocation, sized
                // and aligned for a `T`; nothing else knows it yet.
                unsafe { d.as_ptr().write(T::default()) };
            }
            // Cannot fail: the capacity is `nr`.
            cpus.push(mine, GFP_KERNEL)?;
        }
        // INVARIANT: `base` is the allocation; `cpus` has `nr_cpu_ids`
        // entries, `Some` for each possible CPU, each initialised.
        Ok(Self { base, cpus })
    }
}

impl<T> PerCpu<T> {
    /// The `T` of `cpu`, or `None` if `cpu` is not a possible CPU.
    #[inline]
    pub fn get(&self, cpu: CpuId) -> Option<&T>
    where
        T: Sync,
    {
        let p = (*self.cpus.get(cpu.as_u32() as usize)?)?;
        // SAFETY: an initialised `T` (type invariant), borrowed for as long
        // as `self`; shared access needs `T: Sync`.
        Some(unsafe { p.as_ref() })
    }

    /// The `T` of `cpu`, exclusively.
    ///
    /// No check is made: this is for hot paths (such as a cpuidle
    /// governor's, on every idle entry) whose caller knows the CPU.
    ///
    /// # Safety
    ///
    /// `cpu` is a possible CPU, and nothing else accesses its `T` while the
    /// returned reference lives.
    #[allow(clippy::mut_from_ref)]
    #[inline]
    pub unsafe fn get_mut(&self, cpu: CpuId) -> &mut T {
        // SAFETY: `cpu < nr_cpu_ids` (`CpuId` invariant), the length of
        // `cpus`, and its entry is `Some` as `cpu` is possible (type
        // invariant and the caller's contract).
        let p = unsafe {
            self.cpus
                .get_unchecked(cpu.as_u32() as usize)
                .unwrap_unchecked()
        };
        // SAFETY: an initialised `T` (type invariant); exclusive by the
        // caller's contract.
        unsafe { &mut *p.as_ptr() }
    }
}

impl<T> Drop for PerCpu<T> {
    fn drop(&mut self) {
        for p in self.cpus.iter().flatten() {
            // SAFETY: an initialised `T` (type invariant), dropped once:
            // `self` is going away.
            unsafe { core::ptr::drop_in_place(p.as_ptr()) };
        }
        // SAFETY: `base` came from `__alloc_percpu()` and is freed once.
        unsafe { bindings::free_percpu(self.base.as_ptr().cast()) };
    }
}

#[cfg(CONFIG_RUST_PERCPU_KUNIT_TEST)]
#[macros::kunit_tests(rust_kernel_percpu)]
mod tests {
    use super::*;
    use crate::sync::atomic::{
        Atomic,
        Relaxed, //
    };

    static DROPS: Atomic<u32> = Atomic::new(0);

    #[derive(Default)]
    struct Counted(u64);

    impl Drop for Counted {
        fn drop(&mut self) {
            DROPS.fetch_add(1, Relaxed);
        }
    }

    fn possible() -> impl Iterator<Item = CpuId> {
        // SAFETY: `__cpu_possible_mask` is a valid, static mask.
        let m = unsafe { Cpumask::from_raw(&raw const bindings::__cpu_possible_mask) };
        (0..nr_cpu_ids())
            .filter_map(CpuId::from_u32)
            .filter(move |&c| m.test(c))
    }

    #[test]
    fn every_possible_cpu_has_its_own_default() -> Result {
        let pc = PerCpu::<u64>::new()?;
        let mut n = 0;
        let mut prev: Option<*const u64> = None;
        for cpu in possible() {
            let v = pc.get(cpu).ok_or(EINVAL)?;
            assert_eq!(*v, 0);
            assert_ne!(prev, Some(core::ptr::from_ref(v)));
            prev = Some(v);
            n += 1;
        }
        assert!(n >= 1);
        Ok(())
    }

    #[test]
    fn writes_stay_on_their_cpu() -> Result {
        let pc = PerCpu::<u64>::new()?;
        for cpu in possible() {
            // SAFETY: `cpu` is possible; this test is the only user.
            *unsafe { pc.get_mut(cpu) } = u64::from(cpu.as_u32()) + 7;
        }
        for cpu in possible() {
            assert_eq!(pc.get(cpu).copied(), Some(u64::from(cpu.as_u32()) + 7));
        }
        Ok(())
    }

    #[test]
    fn drop_drops_every_cpus_value() -> Result {
        let before = DROPS.load(Relaxed);
        let n = possible().count() as u32;
        let pc = PerCpu::<Counted>::new()?;
        for cpu in possible() {
            // SAFETY: `cpu` is possible; this test is the only user.
            unsafe { pc.get_mut(cpu) }.0 = 1;
        }
        drop(pc);
        assert_eq!(DROPS.load(Relaxed) - before, n);
        Ok(())
    }

    struct Page([u8; 4096]);

    impl Default for Page {
        fn default() -> Self {
            Self([0; 4096])
        }
    }

    #[test]
    fn zero_sized_and_large_types_allocate() -> Result {
        let z = PerCpu::<()>::new()?;
        let big = PerCpu::<Page>::new()?;
        for cpu in possible() {
            assert!(z.get(cpu).is_some());
            assert_eq!(big.get(cpu).map(|b| b.0[4095]), Some(0));
        }
        Ok(())
    }
}

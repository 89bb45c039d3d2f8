//! partition and partition3 on a GPU (`RawBackend::raw_partition`, which imp.rs hands here):
//! every length checked again against the buffers, the scratch taken from the backend's pool,
//! csrc/kernels/partition.cu's launches on the stream (the counts stay on the device).

use super::backend::{GpuBackend, Reports};
use super::buffer::GpuBuffer;
use super::ffi::{self, dptr};
use super::runtime::GpuRuntime;
use std::ffi::c_void;
use wavekit_core::Predicate;
use wavekit_core::api::check_len;
use wavekit_core::element::Element;
use wavekit_core::error::Result;

impl<R: GpuRuntime> GpuBackend<R> {
    /// A stable two-way (`second` absent) or three-way partition of `input` into `out`.
    pub(crate) fn partition_enqueue<T: Element>(
        &self,
        input: &GpuBuffer<T, R>,
        first: Predicate<T>,
        second: Option<Predicate<T>>,
        out: &mut GpuBuffer<T, R>,
        counts: &mut GpuBuffer<u64, R>,
    ) -> Result<()> {
        self.own(input)?;
        self.own(out)?;
        self.own(counts)?;
        let n = input.len;
        check_len("partition output (the input's length)", n, out.len)?;
        let ways: u32 = if second.is_some() { 3 } else { 2 };
        check_len(
            "partition counts (one per leading part)",
            ways as usize - 1,
            counts.len,
        )?;
        let (code, a, b) = first.encode();
        let (code2, a2, b2) = second.map_or((0, 0, 0), |p| p.encode());
        let mut work = self.lock();
        self.rt.make_current()?;
        let bytes = self.scratch_bytes(ffi::ALGO_PARTITION, T::KIND, n);
        let scratch = self.ensure_pool(&mut work, bytes)?;
        // SAFETY: the kernels read the n elements of `input` and write n to `out` (its length,
        // checked above) and `ways - 1` counts to `counts` (its length, checked); `scratch` is
        // `bytes` bytes of the pool (ensure_pool), owned by the locked workspace. The outputs are
        // borrowed exclusively, so nothing aliases them.
        self.launch(&mut work, "partition", Reports::Errors, |s, st| unsafe {
            (self.table.partition)(
                s,
                st,
                self.launch_width,
                T::KIND as u32,
                ways,
                code,
                a,
                b,
                code2,
                a2,
                b2,
                dptr::<c_void>(input.device_ptr()).cast_const(),
                n as u64,
                dptr(scratch),
                bytes,
                dptr::<c_void>(out.device_ptr()),
                dptr::<u64>(counts.device_ptr()),
            )
        })
    }
}

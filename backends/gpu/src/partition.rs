//! partition and partition3 on a GPU (`RawBackend::raw_partition`, which raw_backend.rs hands
//! here): every length checked again against the buffers, the scratch taken from the backend's
//! pool, csrc/kernels/partition.cu's launches on the stream (the counts stay on the device).

use super::backend::GpuBackend;
use super::buffer::GpuBuffer;
use super::ffi::{self, kind};
use super::queue::Reports;
use super::runtime::GpuRuntime;
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
        self.launch(&mut work, "partition", Reports::Errors, |k, pools| {
            k.partition(
                self.launch_width,
                kind::<T>(),
                ways,
                code,
                a,
                b,
                code2,
                a2,
                b2,
                self.input(input)?,
                n as u64,
                self.ensure_pool(pools, bytes)?,
                bytes,
                self.output(out)?,
                self.output(counts)?,
            )
        })
    }
}

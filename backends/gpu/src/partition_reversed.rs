//! partition_reversed and partition3_reversed on a GPU (`RawBackend::raw_partition_reversed`,
//! which raw_backend.rs hands here): every length checked again against the buffers and the
//! look-back's count limits, the scratch taken from the backend's pool,
//! csrc/kernels/partition_reversed.cu's launch on the stream (the counts stay on the device).

use super::backend::GpuBackend;
use super::buffer::GpuBuffer;
use super::ffi::{self, kind};
use super::queue::Reports;
use super::runtime::GpuRuntime;
use wavekit_core::Predicate;
use wavekit_core::api::check_len;
use wavekit_core::element::Element;
use wavekit_core::error::{Result, WavekitError};

/// The look-back's counts: below 2^40 two ways, each of two parts below 2^32 three ways
/// (csrc/kernels/partition_reversed.cu).
const LIMIT: [u64; 2] = [1 << 40, 1 << 32];

impl<R: GpuRuntime> GpuBackend<R> {
    /// The one-read partition: the rest reversed at the back of `out`, three-way the middle
    /// part into its own output.
    pub(crate) fn partition_reversed_enqueue<T: Element>(
        &self,
        input: &GpuBuffer<T, R>,
        first: Predicate<T>,
        second: Option<(Predicate<T>, &mut GpuBuffer<T, R>)>,
        out: &mut GpuBuffer<T, R>,
        counts: &mut GpuBuffer<u64, R>,
    ) -> Result<()> {
        self.own(input)?;
        self.own(out)?;
        self.own(counts)?;
        let n = input.len;
        check_len("partition_reversed output (the input's length)", n, out.len)?;
        let ways: u32 = if second.is_some() { 3 } else { 2 };
        check_len(
            "partition_reversed counts (one per leading part)",
            ways as usize - 1,
            counts.len,
        )?;
        let limit = LIMIT[ways as usize - 2];
        if n as u64 >= limit {
            return Err(WavekitError::TooLarge {
                what: if ways == 3 {
                    "partition3_reversed elements"
                } else {
                    "partition_reversed elements"
                },
                value: n as u64,
                limit: limit - 1,
            });
        }
        let (code, a, b) = first.encode();
        let (code2, a2, b2, middle) = match second {
            Some((p, m)) => {
                self.own(m)?;
                check_len(
                    "partition3_reversed middle part (the input's length)",
                    n,
                    m.len,
                )?;
                let (c, a, b) = p.encode();
                (c, a, b, Some(m))
            }
            None => (0, 0, 0, None),
        };
        let mut work = self.lock();
        self.rt.make_current()?;
        let bytes = self.scratch_bytes(ffi::ALGO_PARTITION_REVERSED, T::KIND, n);
        self.launch(
            &mut work,
            "partition_reversed",
            Reports::Errors,
            |k, pools| {
                k.partition_reversed(
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
                    self.output_or_null(middle)?,
                    self.output(counts)?,
                )
            },
        )
    }
}

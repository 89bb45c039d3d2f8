//! segmented_sort on a GPU (`RawBackend::raw_segmented_sort`, which raw_backend.rs hands here):
//! every length checked again against the buffers, the scratch taken from the backend's pool
//! (none when every segment fits a warp), csrc/kernels/segmented_sort.cu's launch enqueued on
//! the stream.

use super::backend::GpuBackend;
use super::buffer::GpuBuffer;
use super::ffi;
use super::launch::In;
use super::queue::Reports;
use super::runtime::GpuRuntime;
use super::sort::check_indexable;
use wavekit_core::api::check_len;
use wavekit_core::element::Element;
use wavekit_core::error::{Result, WavekitError};
use wavekit_core::{SegmentSpec, SortSpec};

impl<R: GpuRuntime> GpuBackend<R> {
    /// Each segment sorted on its own.
    pub(crate) fn segmented_sort_enqueue<K: Element, V: Element>(
        &self,
        keys: &GpuBuffer<K, R>,
        values: Option<&GpuBuffer<V, R>>,
        segments: SegmentSpec<'_, GpuBuffer<u32, R>>,
        keys_out: &mut GpuBuffer<K, R>,
        values_out: Option<&mut GpuBuffer<V, R>>,
        spec: SortSpec,
    ) -> Result<()> {
        let n = keys.len;
        self.own(keys)?;
        self.own(keys_out)?;
        check_len("sorted keys (the keys' length)", n, keys_out.len)?;
        check_indexable("segmented sort keys (positions are u32)", n)?;
        let (values, values_out, value_size) = match (values, values_out) {
            (Some(v), Some(o)) => {
                self.own(v)?;
                self.own(o)?;
                check_len("values (one per key)", n, v.len)?;
                check_len("sorted values (the keys' length)", n, o.len)?;
                (Some(v), Some(o), size_of::<V>())
            }
            (None, None) => (None, None, 0),
            _ => {
                return Err(WavekitError::EmptyInput {
                    what: "segmented sort values or their output",
                });
            }
        };
        let (offsets, size, count, longest) = match segments {
            SegmentSpec::Fixed { size, count, .. } => {
                check_len(
                    "fixed segments (covering the keys)",
                    n.div_ceil(size.max(1)),
                    count,
                )?;
                (In::NULL, size as u64, count, size.min(n))
            }
            SegmentSpec::Offsets {
                offsets,
                count,
                longest,
                ..
            } => (self.offsets_arg(offsets, count)?, 0, count, longest),
        };
        if n == 0 || count == 0 {
            return Ok(());
        }
        let mut work = self.lock();
        self.rt.make_current()?;
        let fits_warp = longest <= self.width.lanes() as usize;
        let bytes = if fits_warp {
            0
        } else {
            self.sort_scratch(ffi::ALGO_SEGMENTED_SORT, size_of::<K>(), value_size, n)
        };
        self.launch(&mut work, "segmented_sort", Reports::Errors, |k, pools| {
            let (keys, values) = (self.input(keys)?, self.input_or_null(values)?);
            let (keys_out, values_out) = (self.output(keys_out)?, self.output_or_null(values_out)?);
            let scratch = self.ensure_pool(pools, bytes)?;
            // SAFETY: the segments lie inside the n keys: fixed ones cover them with the count
            // checked above; offsets (count + 1 of them, checked) come from a validated
            // `Segments` (the raw call's `Validated` token), whose offsets the API checked to
            // rise and end at n.
            unsafe {
                k.segmented_sort(
                    self.launch_width,
                    K::KIND as u32,
                    value_size as u32,
                    keys,
                    values,
                    n as u64,
                    offsets,
                    size,
                    count as u64,
                    longest as u64,
                    spec.begin_bit,
                    spec.end_bit,
                    spec.descending as u32,
                    scratch,
                    bytes,
                    keys_out,
                    values_out,
                )
            }
        })
    }
}

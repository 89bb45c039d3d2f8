//! top_k on a GPU (`RawBackend::raw_top_k`, which raw_backend.rs hands here): k and every
//! length checked again against the buffers, the scratch taken from the backend's pool,
//! csrc/kernels/top_k.cu's launch enqueued on the stream.

use super::backend::GpuBackend;
use super::buffer::GpuBuffer;
use super::ffi;
use super::queue::Reports;
use super::runtime::GpuRuntime;
use super::sort::check_indexable;
use wavekit_core::SortSpec;
use wavekit_core::api::check_len;
use wavekit_core::element::Element;
use wavekit_core::error::{Result, WavekitError};

impl<R: GpuRuntime> GpuBackend<R> {
    /// The first k of the stable sort, with their indices when asked.
    pub(crate) fn top_k_enqueue<T: Element>(
        &self,
        input: &GpuBuffer<T, R>,
        k: usize,
        spec: SortSpec,
        values_out: &mut GpuBuffer<T, R>,
        indices_out: Option<&mut GpuBuffer<u32, R>>,
    ) -> Result<()> {
        let n = input.len;
        self.own(input)?;
        self.own(values_out)?;
        if k == 0 || k > n {
            return Err(WavekitError::InvalidK { k, n });
        }
        check_indexable("top-k input (indices are u32)", n)?;
        check_len("top-k values (k elements)", k, values_out.len)?;
        if let Some(i) = &indices_out {
            self.own(i)?;
            check_len("top-k indices (k elements)", k, i.len)?;
        }
        let mut work = self.lock();
        self.rt.make_current()?;
        let bytes = self.sort_scratch(ffi::ALGO_TOP_K, size_of::<T>(), 4, n);
        self.launch(&mut work, "top_k", Reports::Errors, |l, pools| {
            l.top_k(
                self.launch_width,
                T::KIND as u32,
                self.input(input)?,
                n as u64,
                k as u64,
                spec.begin_bit,
                spec.end_bit,
                spec.descending as u32,
                self.ensure_pool(pools, bytes)?,
                bytes,
                self.output(values_out)?,
                self.output_or_null(indices_out)?,
            )
        })
    }
}

//! sort on a GPU (`RawBackend`'s `raw_sort_keys` and `raw_sort_pairs`, which raw_backend.rs
//! hands here): every length checked again against the buffers, the scratch taken from the
//! backend's pool, csrc/kernels/sort.cu's launch enqueued on the stream.

use super::backend::GpuBackend;
use super::buffer::GpuBuffer;
use super::ffi;
use super::queue::Reports;
use super::runtime::GpuRuntime;
use wavekit_core::SortSpec;
use wavekit_core::api::check_len;
use wavekit_core::element::Element;
use wavekit_core::error::{Result, WavekitError};

/// Indices and segment positions are u32 on the device.
pub(crate) fn check_indexable(what: &'static str, n: usize) -> Result<()> {
    if n > u32::MAX as usize {
        return Err(WavekitError::TooLarge {
            what,
            value: n as u64,
            limit: u32::MAX as u64,
        });
    }
    Ok(())
}

impl<R: GpuRuntime> GpuBackend<R> {
    /// Keys, pairs or an argsort (`values` None with `values_out`: the indices).
    pub(crate) fn sort_enqueue<K: Element, V: Element>(
        &self,
        keys: &GpuBuffer<K, R>,
        values: Option<&GpuBuffer<V, R>>,
        keys_out: Option<&mut GpuBuffer<K, R>>,
        values_out: Option<&mut GpuBuffer<V, R>>,
        spec: SortSpec,
    ) -> Result<()> {
        let n = keys.len;
        self.own(keys)?;
        if let Some(v) = values {
            self.own(v)?;
            check_len("values (one per key)", n, v.len)?;
        }
        if let Some(k) = &keys_out {
            self.own(k)?;
            check_len("sorted keys (the keys' length)", n, k.len)?;
        }
        let value_size = match &values_out {
            Some(v) => {
                self.own(v)?;
                check_len("sorted values (the keys' length)", n, v.len)?;
                size_of::<V>()
            }
            None => 0,
        };
        let indices = values.is_none() && value_size != 0;
        if indices && V::KIND != wavekit_core::ElemKind::U32 {
            return Err(WavekitError::Device {
                backend: R::BACKEND,
                call: "sort".into(),
                message: "an argsort's values are u32 indices".into(),
            });
        }
        if indices {
            check_indexable("argsort keys (indices are u32)", n)?;
        }
        if n == 0 {
            return Ok(());
        }
        let algo = if keys_out.is_none() {
            ffi::ALGO_ARGSORT
        } else {
            ffi::ALGO_SORT
        };
        let mut work = self.lock();
        self.rt.make_current()?;
        let bytes = self.sort_scratch(algo, size_of::<K>(), value_size, n);
        self.launch(&mut work, "sort", Reports::Errors, |k, pools| {
            k.sort(
                self.launch_width,
                K::KIND as u32,
                value_size as u32,
                indices as u32,
                self.input(keys)?,
                self.input_or_null(values)?,
                n as u64,
                spec.begin_bit,
                spec.end_bit,
                spec.descending as u32,
                self.ensure_pool(pools, bytes)?,
                bytes,
                self.output_or_null(keys_out)?,
                self.output_or_null(values_out)?,
            )
        })
    }
}

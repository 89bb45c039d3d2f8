//! The runs collectives on a GPU (`RawBackend::raw_runs`, which raw_backend.rs hands here):
//! every length checked again against the buffers, the scratch its own (tagged_pool.rs), one
//! launch of csrc/kernels/runs.cu on the stream.

use super::backend::GpuBackend;
use super::buffer::GpuBuffer;
use super::runtime::GpuRuntime;
use super::tagged_pool::Tagged;
use wavekit_core::RunsOut;
use wavekit_core::api::check_len;
use wavekit_core::element::Element;
use wavekit_core::error::{Result, WavekitError};

impl<R: GpuRuntime> GpuBackend<R> {
    /// Unique keys, unique keys with their values, or keys with run lengths.
    pub(crate) fn runs_enqueue<K: Element, V: Element>(
        &self,
        keys: &GpuBuffer<K, R>,
        values: Option<&GpuBuffer<V, R>>,
        out: RunsOut<'_, Self, K, V>,
        count: &mut GpuBuffer<u64, R>,
    ) -> Result<()> {
        let n = keys.len;
        self.own(keys)?;
        self.own(count)?;
        check_len("number of runs (one element)", 1, count.len)?;
        if let Some(v) = values {
            self.own(v)?;
            check_len("values (one per key)", n, v.len)?;
        }
        if let Some(k) = &out.keys {
            self.own(k)?;
            check_len("run keys (the keys' length)", n, k.len)?;
        }
        if let Some(v) = &out.values {
            self.own(v)?;
            check_len("run values (the keys' length)", n, v.len)?;
        }
        if let Some(l) = &out.lengths {
            self.own(l)?;
            check_len("run lengths (the keys' length)", n, l.len)?;
            if n > u32::MAX as usize {
                return Err(WavekitError::TooLarge {
                    what: "run-length keys (lengths are u32)",
                    value: n as u64,
                    limit: u32::MAX as u64,
                });
            }
        }
        if out.values.is_some() != values.is_some() {
            return Err(WavekitError::EmptyInput {
                what: "runs values or their output",
            });
        }
        let value_size = if values.is_some() { size_of::<V>() } else { 0 };
        let mut work = self.lock();
        self.rt.make_current()?;
        if n == 0 {
            return self.zero_mem(&mut count.mem, size_of::<u64>());
        }
        self.launch_tagged::<K>(&mut work, Tagged::Runs, n, "runs", |k, scratch, bytes| {
            k.runs_tagged(
                self.launch_width,
                K::KIND as u32,
                value_size as u32,
                self.input(keys)?,
                self.input_or_null(values)?,
                n as u64,
                scratch,
                bytes,
                self.output_or_null(out.keys)?,
                self.output_or_null(out.values)?,
                self.output_or_null(out.lengths)?,
                self.output(count)?,
            )
        })
    }
}

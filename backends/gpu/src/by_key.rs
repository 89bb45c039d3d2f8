//! reduce_by_key and scan_by_key on a GPU (`RawBackend::raw_by_key`, which raw_backend.rs hands
//! here): the op and every length checked again against the buffers, the scratch its own
//! (tagged_pool.rs), csrc/kernels/by_key.cu's launch on the stream.

use super::backend::GpuBackend;
use super::buffer::GpuBuffer;
use super::runtime::GpuRuntime;
use super::tagged_pool::Tagged;
use wavekit_core::api::check_len;
use wavekit_core::element::Element;
use wavekit_core::error::Result;
use wavekit_core::{ByKeyOut, ReduceOp, ScanKind};

/// by_key.cu's modes.
const MODE_INCLUSIVE: u32 = 0;
const MODE_EXCLUSIVE: u32 = 1;
const MODE_REDUCE: u32 = 2;

impl<R: GpuRuntime> GpuBackend<R> {
    /// A scan or a reduce of `values` by the runs of `keys`.
    pub(crate) fn by_key_enqueue<K: Element, V: Element>(
        &self,
        keys: &GpuBuffer<K, R>,
        values: &GpuBuffer<V, R>,
        op: ReduceOp,
        out: ByKeyOut<'_, Self, K, V>,
    ) -> Result<()> {
        op.check::<V>()?;
        let n = keys.len;
        self.own(keys)?;
        self.own(values)?;
        check_len("values (one per key)", n, values.len)?;
        let (mode, out, keys_out, count) = match out {
            ByKeyOut::Scan { out, kind } => {
                self.own(out)?;
                check_len("scan-by-key output (the keys' length)", n, out.len)?;
                let mode = match kind {
                    ScanKind::Inclusive => MODE_INCLUSIVE,
                    ScanKind::Exclusive => MODE_EXCLUSIVE,
                };
                (mode, out, None, None)
            }
            ByKeyOut::Reduce {
                keys: keys_out,
                values: values_out,
                count,
            } => {
                self.own(keys_out)?;
                self.own(values_out)?;
                self.own(count)?;
                check_len("reduced keys (the keys' length)", n, keys_out.len)?;
                check_len("reduced values (the keys' length)", n, values_out.len)?;
                check_len("number of runs (one element)", 1, count.len)?;
                (MODE_REDUCE, values_out, Some(keys_out), Some(count))
            }
        };
        let mut work = self.lock();
        self.rt.make_current()?;
        // The statuses are laid out by the values' type alone (by_key.cu), so the tags follow V.
        self.launch_tagged::<V>(
            &mut work,
            Tagged::ByKey,
            n,
            "by_key",
            |k, scratch, bytes| {
                k.by_key_tagged(
                    self.launch_width,
                    K::KIND as u32,
                    V::KIND as u32,
                    op as u32,
                    mode,
                    self.input(keys)?,
                    self.input(values)?,
                    n as u64,
                    scratch,
                    bytes,
                    self.output(out)?,
                    self.output_or_null(keys_out)?,
                    self.output_or_null(count)?,
                )
            },
        )
    }
}

//! The runs collectives on a GPU (`RawBackend::raw_runs`, which imp.rs hands here): every
//! length checked again against the buffers, the scratch its own (tagged_pool.rs), one
//! launch of csrc/kernels/runs.cu on the stream.

use super::backend::GpuBackend;
use super::buffer::GpuBuffer;
use super::ffi::dptr;
use super::runtime::GpuRuntime;
use super::tagged_pool::Tagged;
use std::ffi::c_void;
use wavekit_core::RunsOut;
use wavekit_core::api::check_len;
use wavekit_core::element::Element;
use wavekit_core::error::{Result, WavekitError};

fn ptr_of<T: Element, R: GpuRuntime>(b: &Option<&mut GpuBuffer<T, R>>) -> *mut c_void {
    b.as_ref()
        .map_or(std::ptr::null_mut(), |b| dptr::<c_void>(b.device_ptr()))
}

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
        let vin = values.map_or(std::ptr::null(), |v| {
            dptr::<c_void>(v.device_ptr()).cast_const()
        });
        let (kout, vout) = (ptr_of(&out.keys), ptr_of(&out.values));
        let lengths = out
            .lengths
            .as_ref()
            .map_or(std::ptr::null_mut(), |l| dptr::<u32>(l.device_ptr()));
        let mut work = self.lock();
        self.rt.make_current()?;
        if n == 0 {
            return self.zero_mem(&mut count.mem, size_of::<u64>());
        }
        self.launch_tagged::<K>(
            &mut work,
            Tagged::Runs,
            n,
            "runs",
            // SAFETY: the kernel reads n keys (and n values when `vin` is not null: their length
            // was checked against n) and writes at most n run keys, values and lengths to the
            // outputs given (each checked to hold n, null when absent) and one u64 to `count` (one
            // element); `scratch` is `bytes` bytes of the runs' own tagged pool, sized by
            // launch_tagged for n. The outputs are borrowed exclusively, so nothing aliases them.
            |s, st, scratch, bytes, tag| unsafe {
                (self.table.runs_tagged)(
                    s,
                    st,
                    self.launch_width,
                    K::KIND as u32,
                    value_size as u32,
                    dptr::<c_void>(keys.device_ptr()).cast_const(),
                    vin,
                    n as u64,
                    dptr(scratch),
                    bytes,
                    tag,
                    kout,
                    vout,
                    lengths,
                    dptr(count.device_ptr()),
                )
            },
        )
    }
}

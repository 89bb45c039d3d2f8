//! The device scan on a GPU (`RawBackend::raw_device_scan`, which imp.rs hands here): the
//! lengths checked again, the scratch taken from the backend's pool, one launch on the stream.

use super::backend::{GpuBackend, Reports};
use super::buffer::GpuBuffer;
use super::ffi::{self, cptr, dptr, kind};
use super::runtime::GpuRuntime;
use wavekit_core::api::check_len;
use wavekit_core::element::Element;
use wavekit_core::error::Result;
use wavekit_core::{ReduceOp, ScanKind};

impl<R: GpuRuntime> GpuBackend<R> {
    /// What `RawBackend::raw_device_scan` does on this backend.
    pub(crate) fn device_scan_enqueue<T: Element>(
        &self,
        input: &GpuBuffer<T, R>,
        output: &mut GpuBuffer<T, R>,
        op: ReduceOp,
        scan: ScanKind,
    ) -> Result<()> {
        self.own(input)?;
        self.own(output)?;
        check_len("scan output", input.len, output.len)?;
        let mut work = self.lock();
        self.rt.make_current()?;
        let n = input.len;
        let bytes = self.scratch_bytes(ffi::ALGO_DEVICE_SCAN, T::KIND, n);
        let scratch = self.ensure_pool(&mut work, bytes)?;
        let exclusive = (scan == ScanKind::Exclusive) as u32;
        self.launch(&mut work, "device_scan", Reports::Errors, |s, st| unsafe {
            (self.table.device_scan)(
                s,
                st,
                kind::<T>(),
                op as u32,
                exclusive,
                cptr(input.device_ptr()),
                n as u64,
                dptr(scratch),
                bytes,
                dptr(output.device_ptr()),
            )
        })
    }
}

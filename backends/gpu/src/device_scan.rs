//! The device scan on a GPU (`RawBackend::raw_device_scan`, which raw_backend.rs hands here):
//! the lengths checked again, the scratch its own (tagged_pool.rs; the carried scan's from the
//! backend's pool), one launch of csrc/kernels/device_scan.cu on the stream. The sharded
//! scan's steps are slice_device/scan_steps.rs.

use super::backend::GpuBackend;
use super::buffer::GpuBuffer;
use super::ffi::{self, kind};
use super::queue::Reports;
use super::runtime::GpuRuntime;
use super::tagged_pool::Tagged;
use wavekit_core::api::check_len;
use wavekit_core::element::Element;
use wavekit_core::error::Result;
use wavekit_core::{ReduceOp, ScanKind};

impl<R: GpuRuntime> GpuBackend<R> {
    /// What `RawBackend::raw_device_scan` does on this backend; with `carry`, what
    /// [`GpuBackend::scan_carried_enqueue`] does after its checks (the same launch, tile 0's
    /// prefix carried in).
    pub(crate) fn device_scan_enqueue<T: Element>(
        &self,
        input: &GpuBuffer<T, R>,
        output: &mut GpuBuffer<T, R>,
        op: ReduceOp,
        scan: ScanKind,
        carry: Option<&GpuBuffer<T, R>>,
    ) -> Result<()> {
        self.own(input)?;
        self.own(output)?;
        if let Some(c) = carry {
            self.own(c)?;
        }
        check_len("scan output", input.len, output.len)?;
        let mut work = self.lock();
        self.rt.make_current()?;
        let n = input.len;
        let exclusive = (scan == ScanKind::Exclusive) as u32;
        let (dt, code) = (kind::<T>(), op as u32);
        match carry {
            None => self.launch_tagged::<T>(
                &mut work,
                Tagged::Scan,
                n,
                "device_scan",
                |k, scratch, bytes| {
                    k.device_scan_tagged(
                        dt,
                        code,
                        exclusive,
                        self.input(input)?,
                        n as u64,
                        scratch,
                        bytes,
                        self.output(output)?,
                    )
                },
            ),
            Some(c) => {
                let bytes = self.scratch_bytes(ffi::ALGO_DEVICE_SCAN, T::KIND, n);
                self.launch(
                    &mut work,
                    "device_scan_carried",
                    Reports::Errors,
                    |k, pools| {
                        k.device_scan_carried(
                            dt,
                            code,
                            exclusive,
                            self.input(input)?,
                            n as u64,
                            self.input(c)?,
                            self.ensure_pool(pools, bytes)?,
                            bytes,
                            self.output(output)?,
                        )
                    },
                )
            }
        }
    }
}

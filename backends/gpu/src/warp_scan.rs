//! warp_scan on a GPU (`RawBackend::raw_warp_scan`, which raw_backend.rs hands here): the
//! values uploaded, csrc/kernels/warp_scan.cu's launch run and waited for, one value a lane
//! read back.

use super::backend::GpuBackend;
use super::ffi::kind;
use super::runtime::GpuRuntime;
use wavekit_core::element::Element;
use wavekit_core::error::Result;
use wavekit_core::{ReduceOp, ScanKind};

impl<R: GpuRuntime> GpuBackend<R> {
    /// What `RawBackend::raw_warp_scan` does on this backend.
    pub(crate) fn warp_scan_run<T: Element>(
        &self,
        vals: &[T],
        width: u32,
        op: ReduceOp,
        scan: ScanKind,
    ) -> Result<Vec<T>> {
        self.width.check_sub_width(width)?;
        let n = vals.len();
        let exclusive = (scan == ScanKind::Exclusive) as u32;
        self.map_values("warp_scan", vals, n, |k, input, out| {
            k.warp_scan(
                self.launch_width,
                kind::<T>(),
                op as u32,
                exclusive,
                input,
                n as u64,
                width,
                out,
            )
        })
    }
}

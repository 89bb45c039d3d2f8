//! warp_reduce on a GPU (`RawBackend::raw_warp_reduce`, which raw_backend.rs hands here): the
//! values uploaded, csrc/kernels/warp_reduce.cu's launch run and waited for, one value a
//! segment of `width` lanes read back.

use super::backend::GpuBackend;
use super::ffi::kind;
use super::runtime::GpuRuntime;
use wavekit_core::ReduceOp;
use wavekit_core::element::Element;
use wavekit_core::error::Result;

impl<R: GpuRuntime> GpuBackend<R> {
    /// What `RawBackend::raw_warp_reduce` does on this backend.
    pub(crate) fn warp_reduce_run<T: Element>(
        &self,
        vals: &[T],
        width: u32,
        op: ReduceOp,
    ) -> Result<Vec<T>> {
        self.width.check_sub_width(width)?;
        let n = vals.len();
        let segs = n.div_ceil(width as usize);
        self.map_values("warp_reduce", vals, segs, |k, input, out| {
            k.warp_reduce(
                self.launch_width,
                kind::<T>(),
                op as u32,
                input,
                n as u64,
                width,
                out,
            )
        })
    }
}

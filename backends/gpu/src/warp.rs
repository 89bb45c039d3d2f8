//! What the warp primitives share (vote.rs, shfl.rs, tile.rs, ...): host values in, one
//! synchronous checked launch, values back; the launch's shape checked against this backend's
//! warp first.

use super::backend::GpuBackend;
use super::launch::{In, Launch, Out};
use super::runtime::GpuRuntime;
use wavekit_core::WarpLaunch;
use wavekit_core::api::check_len;
use wavekit_core::element::Element;
use wavekit_core::error::{Result, WavekitError};
use wavekit_core::host;

/// The predicates as bytes, for the device; `OutOfMemory` when they do not fit on the host.
pub(crate) fn bools(preds: &[bool]) -> Result<Vec<u8>> {
    host::from_fn(preds.len(), |i| preds[i] as u8)
}

/// `f(a[i], b[i])` for every i of two results of one length, in a vector allocated fallibly.
pub(crate) fn zipped<A, B, C>(a: Vec<A>, b: Vec<B>, f: impl Fn(A, B) -> C) -> Result<Vec<C>> {
    let mut out = host::with_capacity(a.len().min(b.len()))?;
    out.extend(a.into_iter().zip(b).map(|(a, b)| f(a, b)));
    Ok(out)
}

impl<R: GpuRuntime> GpuBackend<R> {
    /// The shape of the warp primitives that take host values and give `out_len` values of the
    /// same type back: upload, one checked launch given the input and the output, read.
    pub(crate) fn map_values<T: Element>(
        &self,
        call: &'static str,
        vals: &[T],
        out_len: usize,
        launch: impl FnOnce(&Launch<'_>, In<'_>, Out<'_>) -> Result<i32>,
    ) -> Result<Vec<T>> {
        let mut work = self.lock();
        self.rt.make_current()?;
        let input = self.buffer_from(vals)?;
        let mut out = self.buffer_zeroed::<T>(out_len)?;
        self.run_checked(&mut work, call, |k, _| {
            launch(k, self.input(&input)?, self.output(&mut out)?)
        })?;
        self.read(&out.mem, out_len)
    }

    /// A warp launch this backend can run: its mask is for this warp width and `len` inputs
    /// give one value per thread.
    pub(crate) fn check_launch(
        &self,
        launch: &WarpLaunch,
        what: &'static str,
        len: usize,
    ) -> Result<()> {
        if launch.mask.width() != self.width {
            return Err(WavekitError::MaskWidthMismatch {
                mask_width: launch.mask.width().lanes(),
                warp: self.width.lanes(),
            });
        }
        check_len(what, launch.threads, len)
    }
}

//! Evenly spaced elements of a device buffer read back in one copy: what a distributed sort
//! samples its sorted shard with and searches it for its splitters, where one download per
//! element costs a host round trip each.

use super::backend::GpuBackend;
use super::buffer::GpuBuffer;
use super::runtime::GpuRuntime;
use wavekit_core::api::check_strided;
use wavekit_core::element::{Element, as_bytes_mut};
use wavekit_core::error::Result;
use wavekit_core::host;

impl<R: GpuRuntime> GpuBackend<R> {
    /// `count` elements of `buf`, `buf[start + k * stride]` for k in 0..count, after the work
    /// queued before (as `download` waits): `SliceDevice::download_strided` on this backend,
    /// checked again here.
    ///
    /// # Errors
    /// `IndexOutOfRange` when the last element lies at or past `buf.len`; `ForeignBuffer`;
    /// `OutOfMemory` for the host vector; a `Device` error (also one a queued kernel reported).
    pub(crate) fn read_strided<T: Element>(
        &self,
        buf: &GpuBuffer<T, R>,
        start: usize,
        stride: usize,
        count: usize,
    ) -> Result<Vec<T>> {
        self.own(buf)?;
        check_strided(buf.len, start, stride, count)?;
        if count == 0 {
            return Ok(Vec::new());
        }
        let mut out = host::filled(count, T::default())?;
        let size = size_of::<T>();
        self.rt.make_current()?;
        let src = buf.device_ptr() + (start * size) as u64;
        // One element reads none past the first, whatever its stride: saturate, not overflow.
        let pitch = stride.saturating_mul(size);
        // SAFETY: `check_strided` put the last element, `start + (count - 1) * stride`, below
        // `buf.len`, so element k (k < count, `out` holds `count` of `size` bytes) lies at
        // `(start + k * stride) * size` bytes into the buffer's `len * size` bytes of one live
        // region (and for count > 1 the pitch did not saturate: the offsets fit the buffer). We
        // hold `&buf`, so no kernel of the safe API writes it meanwhile (kernels take outputs
        // as `&mut`); the work queued on this stream before is ordered before the copy.
        unsafe {
            self.rt
                .copy_dtoh_strided(as_bytes_mut(&mut out), src, size, pitch)?;
        }
        self.flush(&mut self.lock())?;
        Ok(out)
    }
}

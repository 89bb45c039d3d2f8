//! Evenly spaced elements of a device buffer read back in one copy: what a distributed sort
//! samples its sorted shard with and searches it for its splitters, where one download per
//! element costs a host round trip each.

use crate::backend::GpuBackend;
use crate::buffer::GpuBuffer;
use crate::runtime::GpuRuntime;
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
        // One element reads none past the first, whatever its stride: saturate, not overflow.
        let pitch = stride.saturating_mul(size);
        // We hold `&buf`, so no kernel of the safe API writes it meanwhile (kernels take
        // outputs as `&mut`); the work queued on this stream before is ordered before the copy.
        self.read_mem_strided(&buf.mem, as_bytes_mut(&mut out), start * size, size, pitch)?;
        self.flush(&mut self.lock())?;
        Ok(out)
    }
}

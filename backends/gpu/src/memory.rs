//! A backend's device memory calls: allocating (counted in `device_allocations`), zeroing,
//! writing and reading raw device memory, each length checked against the memory it names, so
//! that no caller reaches past an allocation; and the typed buffers made from them.

use super::backend::GpuBackend;
use super::buffer::{DeviceMem, GpuBuffer};
use super::runtime::GpuRuntime;
use wavekit_core::element::{Element, as_bytes, as_bytes_mut};
use wavekit_core::error::{Result, WavekitError};
use wavekit_core::host;

impl<R: GpuRuntime> GpuBackend<R> {
    pub(crate) fn mem_zeroed(&self, bytes: usize) -> Result<DeviceMem<R>> {
        let mut mem = self.mem(bytes)?;
        self.zero_mem(&mut mem, bytes)?;
        Ok(mem)
    }

    pub(crate) fn mem_from(&self, data: &[u8]) -> Result<DeviceMem<R>> {
        let mut mem = self.mem(data.len())?;
        self.write_mem(&mut mem, data)?;
        Ok(mem)
    }

    /// Zeroes the first `bytes` bytes of `mem` (refused past its end), ordered with this
    /// backend's stream.
    pub(crate) fn zero_mem(&self, mem: &mut DeviceMem<R>, bytes: usize) -> Result<()> {
        check_fits("device zero fill", bytes, mem.bytes)?;
        if bytes == 0 {
            return Ok(());
        }
        // SAFETY: `bytes <= mem.bytes` (checked above), and `mem` is `mem.bytes` bytes of one
        // live region (DeviceMem's invariant: an allocation of at least that size from this
        // backend's cache, a checked part of one, or memory an `adopt_mut` caller vouched
        // for), alive while borrowed here. The `&mut` means no other handle of this process's
        // safe API can use it meanwhile: kernels of this backend that used it were queued on
        // this stream before the memset, and the executor runs launches to completion on the
        // calling thread.
        unsafe { self.rt.memset_zero(mem.ptr, bytes) }
    }

    /// Copies `data` to the start of `mem` (refused when longer than `mem`), ordered with this
    /// backend's stream; returns once `data` has been read.
    pub(crate) fn write_mem(&self, mem: &mut DeviceMem<R>, data: &[u8]) -> Result<()> {
        check_fits("device write", data.len(), mem.bytes)?;
        if data.is_empty() {
            return Ok(());
        }
        // SAFETY: `data.len() <= mem.bytes` (checked above), so the range lies inside `mem`,
        // one live region as `zero_mem` says; the `&mut` keeps every other user of the memory
        // out, as there, and `data` is host memory, which no device region overlaps.
        unsafe { self.rt.copy_htod(mem.ptr, data) }
    }

    /// Fills `out` from the start of `mem` (refused when `out` is longer than `mem`), after
    /// the work queued on this backend's stream.
    pub(crate) fn read_mem(&self, mem: &DeviceMem<R>, out: &mut [u8]) -> Result<()> {
        check_fits("device read", out.len(), mem.bytes)?;
        if out.is_empty() {
            return Ok(());
        }
        // SAFETY: `out.len() <= mem.bytes` (checked above), so the range lies inside `mem`,
        // one live region as `zero_mem` says, alive while borrowed here. Writers: a kernel
        // takes its outputs as `&mut`, which cannot coexist with this `&`; those queued on
        // this stream before are ordered before the copy, and the executor's have finished.
        // (Work of another backend, on another stream, is ordered by the caller: see `own`.)
        unsafe { self.rt.copy_dtoh(out, mem.ptr) }
    }

    pub(crate) fn buffer_zeroed<T: Element>(&self, len: usize) -> Result<GpuBuffer<T, R>> {
        Ok(GpuBuffer::from_mem(
            self.mem_zeroed(bytes_for::<T>(len)?)?,
            len,
        ))
    }

    /// Zeroed device memory for `len` values of `T` (a per-lane output the kernels fill).
    pub(crate) fn lanes_zeroed<T>(&self, len: usize) -> Result<DeviceMem<R>> {
        self.mem_zeroed(bytes_for::<T>(len)?)
    }

    pub(crate) fn buffer_from<T: Element>(&self, data: &[T]) -> Result<GpuBuffer<T, R>> {
        Ok(GpuBuffer::from_mem(
            self.mem_from(as_bytes(data))?,
            data.len(),
        ))
    }

    /// The first `len` values of `T` in `mem`, after the work queued before (checked: `len`
    /// values fit in `mem`).
    pub(crate) fn read<T: Element>(&self, mem: &DeviceMem<R>, len: usize) -> Result<Vec<T>> {
        check_fits("device read", bytes_for::<T>(len)?, mem.bytes)?;
        let mut out = host::filled(len, T::default())?;
        self.read_mem(mem, as_bytes_mut(&mut out))?;
        Ok(out)
    }

    pub(crate) fn read_u64s(&self, mem: &DeviceMem<R>, len: usize) -> Result<Vec<u64>> {
        self.read::<u64>(mem, len)
    }

    pub(crate) fn read_bytes(&self, mem: &DeviceMem<R>, len: usize) -> Result<Vec<u8>> {
        let mut out = host::filled(len, 0u8)?;
        self.read_mem(mem, &mut out)?;
        Ok(out)
    }

    /// Fills `out` with `count = out.len() / size` elements of `size` bytes, element k read
    /// from `offset + k * pitch` bytes into `mem` (refused unless every one lies inside
    /// `mem`), after the work queued on this backend's stream.
    pub(crate) fn read_mem_strided(
        &self,
        mem: &DeviceMem<R>,
        out: &mut [u8],
        offset: usize,
        size: usize,
        pitch: usize,
    ) -> Result<()> {
        if out.is_empty() || size == 0 {
            return Ok(());
        }
        let count = out.len() / size;
        // The last element's end, which no earlier one passes: every pitch is at least 0.
        let end = (count - 1)
            .checked_mul(pitch)
            .and_then(|at| at.checked_add(offset))
            .and_then(|at| at.checked_add(size))
            .unwrap_or(usize::MAX);
        check_fits("device strided read", end, mem.bytes)?;
        // SAFETY: element k (k < count) lies at `offset + k * pitch` bytes into `mem` and ends
        // by `end <= mem.bytes` (checked above, without overflow), so every read lies inside
        // `mem`, one live region as `zero_mem` says, alive while borrowed here; `out` holds the
        // `count` elements of `size` bytes copied. Writers: as `read_mem` says.
        unsafe {
            self.rt
                .copy_dtoh_strided(out, mem.ptr + offset as u64, size, pitch)
        }
    }
}

/// `Ok` when `bytes` bytes fit in memory of `limit` bytes: the device copies above check
/// every length against the memory they name, so no caller can reach past it.
pub(crate) fn check_fits(what: &'static str, bytes: usize, limit: usize) -> Result<()> {
    if bytes <= limit {
        Ok(())
    } else {
        Err(WavekitError::IndexOutOfRange {
            what,
            value: bytes as u64,
            limit: limit as u64,
        })
    }
}

/// Bytes for `len` values of `T`; a size that overflows is memory no device has.
pub(crate) fn bytes_for<T>(len: usize) -> Result<usize> {
    len.checked_mul(size_of::<T>())
        .ok_or(WavekitError::OutOfMemory {
            bytes: host::bytes_of::<T>(len),
        })
}

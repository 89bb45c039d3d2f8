//! Memory of another process of this host mapped for this backend's kernels (CUDA IPC): the
//! staging buffers the peer allreduce of ranks in separate processes reads
//! (`GpuBackend::peer_all_reduce` with a staged `PeerCall`).

use super::backend::GpuBackend;
use super::buffer::GpuBuffer;
use super::runtime::{DevPtr, GpuRuntime, IpcHandle};
use std::sync::Arc;
use wavekit_core::element::Element;
use wavekit_core::error::Result;

/// Another process's memory mapped here ([`GpuBackend::ipc_open`]); unmapped on drop.
pub struct PeerMapping<R: GpuRuntime> {
    rt: Arc<R>,
    ptr: DevPtr,
    handle: IpcHandle,
}

impl<R: GpuRuntime> PeerMapping<R> {
    /// The exported address as this process sees it.
    pub fn device_ptr(&self) -> DevPtr {
        self.ptr
    }
}

impl<R: GpuRuntime> std::fmt::Debug for PeerMapping<R> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("PeerMapping")
            .field("ptr", &format_args!("{:#x}", self.ptr))
            .finish_non_exhaustive()
    }
}

impl<R: GpuRuntime> Drop for PeerMapping<R> {
    fn drop(&mut self) {
        // SAFETY: ptr is what ipc_open returned for handle, dropped once.
        unsafe { self.rt.ipc_close(self.ptr, &self.handle) }
    }
}

impl<R: GpuRuntime> GpuBackend<R> {
    /// A handle through which another process of this host maps `buf`
    /// ([`Self::ipc_open`]); `Ok(None)` where the runtime cannot (HIP, the executor).
    ///
    /// # Errors
    /// `ForeignBuffer` (a buffer of another device), `Device`.
    pub fn ipc_export<T: Element>(&self, buf: &GpuBuffer<T, R>) -> Result<Option<IpcHandle>> {
        self.own(buf)?;
        if buf.len == 0 {
            return Ok(None);
        }
        let handle = self.rt.ipc_export(buf.device_ptr())?;
        if handle.is_some() {
            buf.mem.mark_exported();
        }
        Ok(handle)
    }

    /// Maps memory another process exported with [`Self::ipc_export`], for this backend's
    /// kernels, until the mapping is dropped.
    ///
    /// # Safety
    /// `handle` came from `ipc_export` in another live process of this host, which keeps the
    /// buffer until this mapping is dropped.
    ///
    /// # Errors
    /// `Device` (the runtime has no IPC, or the driver refuses the handle).
    pub unsafe fn ipc_open(&self, handle: &IpcHandle) -> Result<PeerMapping<R>> {
        // SAFETY: as the caller promises.
        let ptr = unsafe { self.rt.ipc_open(handle)? };
        Ok(PeerMapping {
            rt: Arc::clone(&self.rt),
            ptr,
            handle: *handle,
        })
    }
}

//! Device memory owned by a GPU backend: freed through the runtime that allocated it.

use super::runtime::{DevPtr, GpuRuntime};
use std::marker::PhantomData;
use std::sync::Arc;
use wavekit_core::DeviceBuffer;
use wavekit_core::element::Element;

/// Raw device bytes; a zero-byte allocation holds no device memory.
pub(crate) struct DeviceMem<R: GpuRuntime> {
    pub(crate) ptr: DevPtr,
    pub(crate) bytes: usize,
    pub(crate) rt: Arc<R>,
}

impl<R: GpuRuntime> DeviceMem<R> {
    pub(crate) fn new(rt: &Arc<R>, bytes: usize) -> wavekit_core::Result<Self> {
        let ptr = if bytes == 0 { 0 } else { rt.alloc(bytes)? };
        Ok(DeviceMem {
            ptr,
            bytes,
            rt: Arc::clone(rt),
        })
    }
}

impl<R: GpuRuntime> Drop for DeviceMem<R> {
    fn drop(&mut self) {
        if self.bytes != 0 {
            // SAFETY: allocated by this runtime in `new` and owned only here.
            unsafe { self.rt.free(self.ptr) };
        }
    }
}

/// `len` elements of `T` in device memory.
pub struct GpuBuffer<T: Element, R: GpuRuntime> {
    pub(crate) mem: DeviceMem<R>,
    pub(crate) len: usize,
    _elem: PhantomData<T>,
}

impl<T: Element, R: GpuRuntime> GpuBuffer<T, R> {
    pub(crate) fn from_mem(mem: DeviceMem<R>, len: usize) -> Self {
        GpuBuffer {
            mem,
            len,
            _elem: PhantomData,
        }
    }

    /// The device address of element 0.
    pub fn device_ptr(&self) -> DevPtr {
        self.mem.ptr
    }

    pub(crate) fn bytes(&self) -> usize {
        self.len * std::mem::size_of::<T>()
    }
}

impl<T: Element, R: GpuRuntime> DeviceBuffer<T> for GpuBuffer<T, R> {
    fn len(&self) -> usize {
        self.len
    }
}

impl<T: Element, R: GpuRuntime> std::fmt::Debug for GpuBuffer<T, R> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "GpuBuffer<{}>({} on {}, {:#x})",
            T::KIND.name(),
            self.len,
            R::BACKEND,
            self.mem.ptr
        )
    }
}

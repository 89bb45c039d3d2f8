//! The public calls on the memory a backend keeps for reuse (mem_cache.rs): how much, its limit,
//! and handing it back to the device.

use super::backend::GpuBackend;
use super::runtime::GpuRuntime;

impl<R: GpuRuntime> GpuBackend<R> {
    /// Frees the device memory this backend keeps for reuse (blocks of dropped buffers and
    /// outgrown scratch) and returns its bytes: for other users of the device, such as another
    /// library in this process. Buffers in use are untouched, and the next allocations are
    /// fresh ones.
    ///
    /// ```
    /// use wavekit_core::{Backend, WarpWidth};
    /// let b = wavekit_simt::open(WarpWidth::W32).unwrap();
    /// b.set_memory_cache_limit(usize::MAX); // the executor keeps none by default
    /// let buf = b.upload(&[1u32; 1000]).unwrap();
    /// let at = buf.device_ptr();
    /// drop(buf);
    /// assert_eq!(b.cached_memory(), 4000);
    /// assert_eq!(b.upload(&[2u32; 990]).unwrap().device_ptr(), at); // reused
    /// drop(b.upload(&[3u32; 1000]).unwrap());
    /// assert_eq!(b.cached_memory(), 4000);
    /// assert_eq!(b.release_cached_memory(), 4000);
    /// assert_eq!(b.cached_memory(), 0);
    /// ```
    pub fn release_cached_memory(&self) -> usize {
        self.cache.release()
    }

    /// Bytes of device memory this backend keeps for reuse ([`Self::release_cached_memory`]).
    pub fn cached_memory(&self) -> usize {
        self.cache.cached()
    }

    /// Keeps at most `bytes` of freed device memory for reuse (0: frees every buffer's memory
    /// when it is dropped); what is kept beyond it is freed now. The default is the runtime's:
    /// no limit on CUDA and HIP (kept memory goes back to the device when an allocation finds
    /// it full), none kept on the SIMT executor.
    pub fn set_memory_cache_limit(&self, bytes: usize) {
        self.cache.set_limit(bytes);
    }
}

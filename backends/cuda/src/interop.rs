//! cudarc memory as wavekit buffers, without a copy: `&CudaSlice<T>`, `CudaView<T>` and
//! `CudaViewMut<T>` become a [`View`], and `&mut CudaSlice<T>` and `CudaViewMut<T>` a
//! [`ViewMut`], of a given [`CudaBackend`]. (A local trait: the orphan rule forbids implementing
//! wavekit-core's traits for cudarc's types with `GpuBackend<CudaRuntime>`.)
//!
//! Ordering, so that neither side sees the other's work half done:
//! - when the view is made, the backend's stream waits for the work queued on the slice's
//!   stream (and, through cudarc's event tracking, for the slice's pending writes, or reads and
//!   writes for a mutable view);
//! - when the view is dropped, the slice's stream waits for the work queued on the backend's
//!   stream, and cudarc's read (or write) event of the slice is recorded there, so a later
//!   cudarc read, write or free of the slice, on any stream, comes after wavekit's kernels.
//!
//! On the same stream none of this is needed, and nothing is recorded.

use crate::{CudaBackend, CudaRuntime};
use cudarc::driver::{CudaEvent, CudaStream, DevicePtr, DevicePtrMut, DeviceSlice, SyncOnDrop};
use std::sync::Arc;
use wavekit_core::element::Element;
use wavekit_core::error::{Result, WavekitError};
use wavekit_core::{View, ViewMut};
use wavekit_gpu::{GpuBuffer, OnDrop};

/// A read-only wavekit buffer of a [`CudaBackend`] over cudarc memory.
pub type CudaBufferView<'a, T> = View<'a, GpuBuffer<T, CudaRuntime>>;
/// A writable wavekit buffer of a [`CudaBackend`] over cudarc memory.
pub type CudaBufferViewMut<'a, T> = ViewMut<'a, GpuBuffer<T, CudaRuntime>>;

/// cudarc memory that a [`CudaBackend`] can read in place: `CudaSlice<T>`, `CudaView<T>`,
/// `CudaViewMut<T>`.
pub trait AsWavekit<T: Element> {
    /// This memory as a read-only buffer of `backend`, ordered against the memory's own stream
    /// (see the module docs).
    ///
    /// ```no_run
    /// use wavekit_cuda::{AsWavekit, cudarc::driver::CudaContext};
    /// use wavekit_core::{Collectives, ReduceOp};
    /// let ctx = CudaContext::new(0)?;
    /// let stream = ctx.new_stream()?;
    /// let data = stream.clone_htod(&[1.0f32, 2.0, 3.0])?;
    /// let wk = wavekit_cuda::open_on_stream(stream.clone())?;
    /// let view = data.as_wavekit(&wk)?;
    /// assert_eq!(wk.reduce(&view, ReduceOp::Sum)?, 6.0);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    ///
    /// # Errors
    /// `ForeignBuffer` when the memory is in another context or on another device;
    /// `Misaligned`; a `Device` error ordering the streams.
    fn as_wavekit<'a>(&'a self, backend: &CudaBackend) -> Result<CudaBufferView<'a, T>>;
}

/// cudarc memory that a [`CudaBackend`] can write in place: `CudaSlice<T>`, `CudaViewMut<T>`.
pub trait AsWavekitMut<T: Element> {
    /// This memory as a writable buffer of `backend`, ordered against the memory's own stream
    /// (see the module docs).
    ///
    /// ```no_run
    /// use wavekit_cuda::{AsWavekit, AsWavekitMut, cudarc::driver::CudaContext};
    /// use wavekit_core::{Collectives, ReduceOp, ScanKind};
    /// let ctx = CudaContext::new(0)?;
    /// let stream = ctx.new_stream()?;
    /// let data = stream.clone_htod(&[1u32, 2, 3])?;
    /// let mut sums = stream.alloc_zeros::<u32>(3)?;
    /// let wk = wavekit_cuda::open_on_stream(stream.clone())?;
    /// {
    ///     let (input, mut output) = (data.as_wavekit(&wk)?, sums.as_wavekit_mut(&wk)?);
    ///     wk.scan(&input, &mut output, ReduceOp::Sum, ScanKind::Inclusive)?;
    /// }
    /// assert_eq!(stream.clone_dtoh(&sums)?, [1, 3, 6]);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    ///
    /// # Errors
    /// As [`AsWavekit::as_wavekit`].
    fn as_wavekit_mut<'a>(&'a mut self, backend: &CudaBackend) -> Result<CudaBufferViewMut<'a, T>>;
}

fn driver(call: &str, e: cudarc::driver::DriverError) -> WavekitError {
    WavekitError::Device {
        backend: "cuda",
        call: call.to_string(),
        message: e.to_string(),
    }
}

/// `Ok` when memory on `theirs` lives where `backend`'s kernels run: the same context.
fn same_context(theirs: &CudaStream, backend: &CudaBackend) -> Result<()> {
    if theirs.context().cu_ctx() == backend.runtime().context().cu_ctx() {
        Ok(())
    } else {
        Err(WavekitError::ForeignBuffer)
    }
}

/// The event cudarc would record on drop of `sync`, taken out so that we record it later (when
/// the view drops, after our kernels), and `sync` dropped with nothing left to do. The event
/// belongs to the slice, so it lives as long as the slice's borrow.
fn take_event(mut sync: SyncOnDrop<'_>) -> Option<EventRef> {
    match &mut sync {
        SyncOnDrop::Record(target) => target.take().map(|(event, _)| EventRef(event)),
        SyncOnDrop::Sync(_) => None,
    }
}

/// A cudarc event borrowed for the view's `'a`, carried into its on-drop hook.
struct EventRef(*const CudaEvent);
// SAFETY: CudaEvent is Send and Sync; the pointer is only read while the view's borrow of the
// slice lasts (the hook runs inside 'a or never, GpuBackend::adopt_with).
unsafe impl Send for EventRef {}
// SAFETY: as for Send: shared, it only gives `&CudaEvent`, and CudaEvent is Sync.
unsafe impl Sync for EventRef {}

/// What runs when the view drops: cudarc's event recorded on our stream, and their stream made
/// to wait for ours. Errors are kept in the context's error state (cudarc's `check_err`).
fn hook(ours: Arc<CudaStream>, theirs: Arc<CudaStream>, event: Option<EventRef>) -> OnDrop {
    Box::new(move || {
        let ctx = ours.context();
        if let Some(EventRef(e)) = event
            && theirs.context().is_managing_stream_synchronization()
        {
            // SAFETY: see EventRef.
            ctx.record_err(unsafe { &*e }.record(&ours));
        }
        if *ours != *theirs {
            ctx.record_err(theirs.join(&ours));
        }
    })
}

/// Our stream waits for theirs (nothing on the same stream).
fn wait_for(ours: &CudaStream, theirs: &CudaStream) -> Result<()> {
    if ours != theirs {
        ours.join(theirs)
            .map_err(|e| driver("cuStreamWaitEvent", e))?;
    }
    Ok(())
}

impl<T: Element, S: DevicePtr<T>> AsWavekit<T> for S {
    fn as_wavekit<'a>(&'a self, backend: &CudaBackend) -> Result<CudaBufferView<'a, T>> {
        let theirs = Arc::clone(self.stream());
        same_context(&theirs, backend)?;
        let ours = Arc::clone(backend.runtime().cuda_stream());
        wait_for(&ours, &theirs)?;
        let (ptr, sync) = self.device_ptr(&ours);
        let event = take_event(sync);
        let on_drop = hook(ours, theirs, event);
        // SAFETY: `ptr` is `self.len()` initialised T of this backend's context (checked),
        // borrowed read-only for 'a; our stream is ordered after pending work on it, and the
        // hook orders later cudarc work after ours.
        unsafe { backend.adopt_with(ptr, DeviceSlice::len(self), Some(on_drop)) }
    }
}

impl<T: Element, S: DevicePtrMut<T>> AsWavekitMut<T> for S {
    fn as_wavekit_mut<'a>(&'a mut self, backend: &CudaBackend) -> Result<CudaBufferViewMut<'a, T>> {
        let theirs = Arc::clone(self.stream());
        same_context(&theirs, backend)?;
        let ours = Arc::clone(backend.runtime().cuda_stream());
        wait_for(&ours, &theirs)?;
        let len = DeviceSlice::len(self);
        let (ptr, sync) = self.device_ptr_mut(&ours);
        let event = take_event(sync);
        let on_drop = hook(ours, theirs, event);
        // SAFETY: as in as_wavekit, borrowed exclusively for 'a.
        unsafe { backend.adopt_mut_with(ptr, len, Some(on_drop)) }
    }
}

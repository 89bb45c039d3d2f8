//! Device-event timing of launches on a CUDA backend's own stream.
//!
//! Each sample: the L2 is flushed (a memset of four times its size), a delay kernel holds the
//! stream for `DELAY_US` so that everything after it is queued before the GPU gets there, then
//! start event, the launch(es), stop event. The sample is the GPU time between the events: the
//! work itself and the gaps between its launches, not the host's launch latency, and from a
//! cold L2 as a buffer far larger than L2 would be.

use super::ffi;
use crate::case::Refused;
use crate::timing::{Baseline, Harness, Timing};
use cudarc::driver::result as cu;
use cudarc::driver::sys;
use std::ffi::c_void;
use std::time::Duration;
use wavekit::cuda::{CudaBackend, CudaRuntime};
use wavekit::error::{Result, WavekitError};
use wavekit::gpu::GpuRuntime;

/// Longer than the host takes to queue the slowest timed call (a memset and a launch).
const DELAY_US: u32 = 40;
/// Used when the device does not report its L2 size.
const FALLBACK_L2: usize = 64 << 20;

pub(crate) fn driver_err(call: &str, e: cu::DriverError) -> WavekitError {
    WavekitError::Device {
        backend: "cuda",
        call: call.to_string(),
        message: e.to_string(),
    }
}

/// Turns a launcher's or bench function's return code into an error naming `what`.
pub(crate) fn check(b: &CudaBackend, code: i32, what: &str) -> Result<()> {
    b.runtime().check(code, what)
}

/// Times device work between two CUDA events, flushing L2 before each run.
pub struct DeviceTimer<'a> {
    b: &'a CudaBackend,
    start: sys::CUevent,
    stop: sys::CUevent,
    flush: wavekit::gpu::GpuBuffer<u32, CudaRuntime>,
}

// The events are raw handles: print what identifies the timer, not the handles' bits.
impl std::fmt::Debug for DeviceTimer<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("DeviceTimer").finish_non_exhaustive()
    }
}

impl<'a> DeviceTimer<'a> {
    pub fn new(b: &'a CudaBackend) -> Result<Self> {
        use wavekit::backend::Backend;
        b.runtime().make_current()?;
        let l2 = l2_bytes(b).unwrap_or(FALLBACK_L2);
        let flush = b.alloc::<u32>(4 * l2 / 4)?;
        let flags = sys::CUevent_flags::CU_EVENT_DEFAULT;
        let start = cu::event::create(flags).map_err(|e| driver_err("cuEventCreate", e))?;
        let stop = match cu::event::create(flags) {
            Ok(e) => e,
            Err(e) => {
                // SAFETY: created just above, used by nothing.
                unsafe {
                    let _ = cu::event::destroy(start);
                }
                return Err(driver_err("cuEventCreate", e));
            }
        };
        Ok(DeviceTimer {
            b,
            start,
            stop,
            flush,
        })
    }

    pub fn stream(&self) -> *mut c_void {
        self.b.runtime().stream()
    }

    /// Times `launch` (queueing work on the stream it is given, returning its status code):
    /// `h.warmup` untimed calls, then `h.reps` samples.
    pub fn time(
        &self,
        h: &Harness,
        what: &str,
        mut launch: impl FnMut(*mut c_void) -> i32,
    ) -> Result<Timing> {
        let b = self.b;
        b.runtime().make_current()?;
        let s = self.stream();
        let cs = s as sys::CUstream;
        for _ in 0..h.warmup {
            check(b, launch(s), what)?;
        }
        b.runtime().synchronize()?;
        let mut samples = Vec::with_capacity(h.reps.max(1));
        for _ in 0..h.reps.max(1) {
            // SAFETY: the flush buffer is ours and holds `len` words; the stream is the
            // backend's, in the context made current above; the events were created here.
            unsafe {
                sys::cuMemsetD32Async(self.flush.device_ptr(), 0x5a5a_5a5a, self.flush_words(), cs)
                    .result()
                    .map_err(|e| driver_err("cuMemsetD32Async", e))?;
                check(b, ffi::wk_bench_delay(s, DELAY_US), "delay kernel")?;
                cu::event::record(self.start, cs).map_err(|e| driver_err("cuEventRecord", e))?;
            }
            check(b, launch(s), what)?;
            // SAFETY: as above.
            let ms = unsafe {
                cu::event::record(self.stop, cs).map_err(|e| driver_err("cuEventRecord", e))?;
                cu::event::synchronize(self.stop)
                    .map_err(|e| driver_err("cuEventSynchronize", e))?;
                cu::event::elapsed(self.start, self.stop)
                    .map_err(|e| driver_err("cuEventElapsedTime", e))?
            };
            samples.push(Duration::from_secs_f64(f64::from(ms) / 1e3));
        }
        b.runtime().synchronize()?;
        Ok(Timing::new(samples))
    }

    /// Times a public wavekit call that only enqueues on the backend's stream (an `_into`
    /// form), as [`time`](Self::time) does a launch; the call's first error ends the timing
    /// and is returned, and the stream is drained before the caller reads the results.
    pub fn time_call(
        &self,
        h: &Harness,
        what: &str,
        mut call: impl FnMut() -> Result<()>,
    ) -> Result<Timing> {
        let mut failed: Option<WavekitError> = None;
        let timed = self.time(h, what, |_| match call() {
            Ok(()) => 0,
            Err(e) => {
                failed.get_or_insert(e);
                -3
            }
        });
        let timing = match (timed, failed) {
            (_, Some(e)) | (Err(e), None) => return Err(e),
            (Ok(t), None) => t,
        };
        wavekit::Backend::synchronize(self.b)?;
        Ok(timing)
    }

    /// Times `launch` end to end: the L2 flushed and the stream drained first, then start
    /// event, the launch(es), stop event, so each sample also holds the host's submission of
    /// every launch in the call.
    pub fn time_e2e(
        &self,
        h: &Harness,
        what: &str,
        mut launch: impl FnMut(*mut c_void) -> i32,
    ) -> Result<Timing> {
        let b = self.b;
        b.runtime().make_current()?;
        let s = self.stream();
        let cs = s as sys::CUstream;
        for _ in 0..h.warmup {
            check(b, launch(s), what)?;
        }
        let mut samples = Vec::with_capacity(h.reps.max(1));
        for _ in 0..h.reps.max(1) {
            // SAFETY: as in `time`.
            unsafe {
                sys::cuMemsetD32Async(self.flush.device_ptr(), 0x5a5a_5a5a, self.flush_words(), cs)
                    .result()
                    .map_err(|e| driver_err("cuMemsetD32Async", e))?;
            }
            b.runtime().synchronize()?;
            // SAFETY: as in `time`.
            unsafe {
                cu::event::record(self.start, cs).map_err(|e| driver_err("cuEventRecord", e))?
            };
            check(b, launch(s), what)?;
            // SAFETY: as in `time`.
            let ms = unsafe {
                cu::event::record(self.stop, cs).map_err(|e| driver_err("cuEventRecord", e))?;
                cu::event::synchronize(self.stop)
                    .map_err(|e| driver_err("cuEventSynchronize", e))?;
                cu::event::elapsed(self.start, self.stop)
                    .map_err(|e| driver_err("cuEventElapsedTime", e))?
            };
            samples.push(Duration::from_secs_f64(f64::from(ms) / 1e3));
        }
        Ok(Timing::new(samples))
    }

    /// A kernel shape against the launcher's default on the same buffers: `run(shape)` once
    /// untimed, then timed, then `run(0)` timed, with `verify` checking the outputs after each.
    /// Returns the shape's timing and the default's as the baseline.
    pub fn shape_against_default<L: FnMut(*mut c_void) -> i32>(
        &self,
        h: &Harness,
        what: &str,
        shape: u32,
        run: impl Fn(u32) -> L,
        verify: impl Fn(&CudaBackend) -> std::result::Result<(), Refused>,
    ) -> std::result::Result<(Timing, Baseline), Refused> {
        self.b.runtime().make_current()?;
        check(self.b, run(shape)(self.stream()), what)?;
        verify(self.b)?;
        let timing = self.time(h, what, run(shape))?;
        verify(self.b)?;
        let default = self.time(h, "default shape", run(0))?;
        verify(self.b)?;
        Ok((
            timing,
            Baseline {
                name: "default",
                timing: default,
            },
        ))
    }

    fn flush_words(&self) -> usize {
        use wavekit::backend::DeviceBuffer;
        self.flush.len()
    }
}

impl Drop for DeviceTimer<'_> {
    fn drop(&mut self) {
        if self.b.runtime().make_current().is_ok() {
            // SAFETY: both events were created in `new` and are used by nothing else; a
            // failure means the context is gone, which the next checked call reports.
            unsafe {
                let _ = cu::event::destroy(self.start);
                let _ = cu::event::destroy(self.stop);
            }
        }
    }
}

fn l2_bytes(b: &CudaBackend) -> Option<usize> {
    let dev = cu::device::get(b.runtime().ordinal() as i32).ok()?;
    // SAFETY: `dev` came from cuDeviceGet.
    let v = unsafe {
        cu::device::get_attribute(
            dev,
            sys::CUdevice_attribute::CU_DEVICE_ATTRIBUTE_L2_CACHE_SIZE,
        )
    }
    .ok()?;
    usize::try_from(v).ok().filter(|&v| v > 0)
}

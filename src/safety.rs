//! What the safe API guarantees, and how each guarantee is enforced.
//!
//! A program that uses only safe code cannot make a wavekit call crash, read or write past an
//! allocation, abort on a huge size, or leave its buffers half-updated: every bad argument
//! comes back as a [`WavekitError`](crate::WavekitError).
//!
//! | guarantee | what enforces it |
//! |---|---|
//! | validated types keep their invariants | the `compile_fail,E0616` test below |
//! | raw kernel entry points are out of reach | the `compile_fail,E0624` / `E0451` tests below; `tests/safe_api.rs` |
//! | a GPU runtime is trusted only through `unsafe impl` | the `compile_fail,E0200` test below |
//! | no safe write to a raw device address | seven `compile_fail,E0133` tests below (every runtime copy, `copy_dtoh_each`, the launcher table's typed wrappers); the checked `copy` / `fill_zero` in `tests/simt_backend.rs` (`checked_device_copies_refuse_bad_lengths_and_devices`) and fuzzed over views and both devices in `tests/fuzz_api/copies.rs` |
//! | no undefined behaviour from a foreign result code | `wavekit-cuda`'s `rtc` unit tests (`out_of_range_codes_get_the_fallback_without_nvrtc`) and `tests/cuda_rtc.rs` (`nvrtc_result_codes_outside_its_enum_get_a_fallback_message`) |
//! | a user's kernel source runs in the process only through `unsafe` | the `compile_fail,E0133` test at the end (with the `simt` feature) |
//! | running out of memory is `OutOfMemory`, never an abort | `tests/oom.rs` (each collective in a child process under `RLIMIT_AS`, CPU and executor); `tests/fuzz_api/alloc.rs` (lowered host limit) |
//! | all or nothing | the `atomic_agg_inc` doc-test below; every fuzz family (`tests/fuzz_*.rs`) compares outputs after an error. `tests/oom.rs` checks every output after `OutOfMemory` (the executor's `histogram_into` puts back the counts its launcher zeroed: `GpuRuntime::LAUNCH_ALLOCATES`) |
//! | every `unsafe` block says why it is sound | `clippy::undocumented_unsafe_blocks` and `clippy::missing_safety_doc` denied for every crate (`[workspace.lints]`), run by `.ci/run` |
//!
//! - **Validated types keep their invariants.** [`Csr`](crate::Csr) and
//!   [`Segments`](crate::Segments) are checked when built and expose getters only, so a checked
//!   matrix cannot be changed afterwards:
//!
//!   ```compile_fail,E0616
//!   use wavekit::prelude::*;
//!   let b = CpuBackend::new(WarpWidth::W32);
//!   let mut a = wavekit::Csr::new(&b, 2, 2, &[0, 1, 2], &[0, 1], &[1.0f32, 2.0]).unwrap();
//!   a.rows = 1_000_000; // private: use a.rows()
//!   ```
//!
//! - **Unchecked kernel entry points are out of reach.** The backends' raw methods
//!   ([`RawBackend`](crate::raw::RawBackend)) trust their arguments; each takes a
//!   [`Validated`](crate::raw::Validated) token that only the validated API can make, so user
//!   code cannot call one, safe or `unsafe`:
//!
//!   ```compile_fail,E0624
//!   use wavekit::prelude::*;
//!   use wavekit::raw::{RawBackend, Validated};
//!   let b = CpuBackend::new(WarpWidth::W32);
//!   let input = b.upload(&[1u32, 2, 3]).unwrap();
//!   let mut out = b.alloc::<u32>(1).unwrap();
//!   b.raw_device_scan(Validated::new(), &input, &mut out, ReduceOp::Sum, ScanKind::Inclusive);
//!   ```
//!
//!   ```compile_fail,E0451
//!   let token = wavekit::raw::Validated { _private: () };
//!   ```
//!
//!   The GPU backends check lengths again against the buffers they are handed, every launch
//!   checks each memory argument against what its launcher reaches with the call's other
//!   arguments (the extents of csrc/wavekit/launchers.def, backends/gpu/src/launch.rs), and the
//!   SpMV and segmented-reduce kernels the columns and offsets they read (defence in depth:
//!   reported at the next synchronisation, named after the launch), so even a wrong call from
//!   inside wavekit cannot make those kernels read or write past an allocation.
//!
//! - **No allocation aborts.** Every host allocation sized by a caller's number goes through a
//!   fallible path with a limit ([`host::HOST_ALLOC_LIMIT`](crate::host::HOST_ALLOC_LIMIT)), and
//!   running out of memory, on the host or a device, is one error on every backend,
//!   [`WavekitError::OutOfMemory`](crate::WavekitError::OutOfMemory).
//!
//! - **All or nothing.** Every call checks its whole input before it changes anything the
//!   caller can see: a scan into an output of the wrong length, an SpMV with a short `x`, or an
//!   `atomic_agg_inc` with one slot past the counters returns an error and leaves every buffer
//!   as it was.
//!
//!   ```
//!   use wavekit::prelude::*;
//!   use wavekit::WavekitError;
//!   let b = CpuBackend::new(WarpWidth::W32);
//!   let slots = b.upload(&[0u32, 1, 0, 2]).unwrap(); // slot 2: past the two counters
//!   let mut counters = b.upload(&[10u32, 20]).unwrap();
//!   let err = b.atomic_agg_inc(&slots, &mut counters).unwrap_err();
//!   assert!(matches!(err, WavekitError::IndexOutOfRange { value: 2, limit: 2, .. }));
//!   assert_eq!(b.download(&counters).unwrap(), [10, 20]); // no counter moved
//!   ```
//!
//! - **A GPU runtime is trusted only through `unsafe`.** The shared GPU backend hands the
//!   device pointers, copies and launcher table of its [`GpuRuntime`](crate::gpu::GpuRuntime)
//!   to kernels it cannot check, so the trait is an `unsafe trait` whose documentation lists
//!   what an implementation promises. A runtime in safe code that returns a bogus pointer no
//!   longer compiles:
//!
//!   ```compile_fail,E0200
//!   # use wavekit::gpu::{DevPtr, GpuRuntime, ffi::Launchers};
//!   struct Bogus;
//!   impl GpuRuntime for Bogus { // needs `unsafe impl`
//!   #   const BACKEND: &'static str = "bogus";
//!   #   fn ordinal(&self) -> usize { 0 }
//!   #   fn device_name(&self) -> String { String::new() }
//!   #   fn warp_size(&self) -> u32 { 32 }
//!   #   fn multiprocessors(&self) -> u32 { 1 }
//!   #   fn launchers(&self) -> &'static Launchers { unimplemented!() }
//!   #   fn make_current(&self) -> wavekit::Result<()> { Ok(()) }
//!       fn alloc(&self, _: usize) -> wavekit::Result<DevPtr> { Ok(0xdead_beef) }
//!   #   unsafe fn free(&self, _: DevPtr) {}
//!   #   unsafe fn memset_zero(&self, _: DevPtr, _: usize) -> wavekit::Result<()> { Ok(()) }
//!   #   unsafe fn copy_htod(&self, _: DevPtr, _: &[u8]) -> wavekit::Result<()> { Ok(()) }
//!   #   unsafe fn copy_dtoh(&self, _: &mut [u8], _: DevPtr) -> wavekit::Result<()> { Ok(()) }
//!   #   unsafe fn copy_dtod(&self, _: DevPtr, _: DevPtr, _: usize) -> wavekit::Result<()> { Ok(()) }
//!   #   fn stream(&self) -> *mut std::ffi::c_void { std::ptr::null_mut() }
//!   #   fn synchronize(&self) -> wavekit::Result<()> { Ok(()) }
//!   #   fn synchronize_device(&self) -> wavekit::Result<()> { Ok(()) }
//!   #   fn check(&self, _: i32, _: &str) -> wavekit::Result<()> { Ok(()) }
//!   }
//!   ```
//!
//!   The same runtime with `unsafe impl` compiles: its author has taken on the contract.
//!
//!   ```no_run
//!   # use wavekit::gpu::{DevPtr, GpuRuntime, ffi::Launchers};
//!   struct Bogus;
//!   // SAFETY: not upheld; this example only shows where the promise is made.
//!   unsafe impl GpuRuntime for Bogus {
//!   #   const BACKEND: &'static str = "bogus";
//!   #   fn ordinal(&self) -> usize { 0 }
//!   #   fn device_name(&self) -> String { String::new() }
//!   #   fn warp_size(&self) -> u32 { 32 }
//!   #   fn multiprocessors(&self) -> u32 { 1 }
//!   #   fn launchers(&self) -> &'static Launchers { unimplemented!() }
//!   #   fn make_current(&self) -> wavekit::Result<()> { Ok(()) }
//!       fn alloc(&self, _: usize) -> wavekit::Result<DevPtr> { Ok(0xdead_beef) }
//!   #   unsafe fn free(&self, _: DevPtr) {}
//!   #   unsafe fn memset_zero(&self, _: DevPtr, _: usize) -> wavekit::Result<()> { Ok(()) }
//!   #   unsafe fn copy_htod(&self, _: DevPtr, _: &[u8]) -> wavekit::Result<()> { Ok(()) }
//!   #   unsafe fn copy_dtoh(&self, _: &mut [u8], _: DevPtr) -> wavekit::Result<()> { Ok(()) }
//!   #   unsafe fn copy_dtod(&self, _: DevPtr, _: DevPtr, _: usize) -> wavekit::Result<()> { Ok(()) }
//!   #   fn stream(&self) -> *mut std::ffi::c_void { std::ptr::null_mut() }
//!   #   fn synchronize(&self) -> wavekit::Result<()> { Ok(()) }
//!   #   fn synchronize_device(&self) -> wavekit::Result<()> { Ok(()) }
//!   #   fn check(&self, _: i32, _: &str) -> wavekit::Result<()> { Ok(()) }
//!   }
//!   ```
//!
//! - **No raw device address is written from safe code.** The runtime's copies
//!   ([`GpuRuntime::memset_zero`](crate::gpu::GpuRuntime::memset_zero), `copy_htod`,
//!   `copy_dtoh`, `copy_dtoh_strided`, `copy_dtod` and
//!   [`copy_dtoh_each`](crate::gpu::runtime::copy_dtoh_each)) take a bare
//!   [`DevPtr`](crate::gpu::DevPtr) they cannot check, and
//!   [`GpuBackend::runtime`](crate::gpu::GpuBackend::runtime) is public, so they are
//!   `unsafe fn`s whose `# Safety` sections say what the caller promises (the range inside one
//!   live allocation, nothing unordered using it; on the SIMT executor device memory is host
//!   memory, where a wrong address is memory corruption). Calling one outside `unsafe` does
//!   not compile:
//!
//!   ```compile_fail,E0133
//!   use wavekit::gpu::{GpuBackend, GpuBuffer, GpuRuntime};
//!   fn overwrite<R: GpuRuntime>(b: &GpuBackend<R>, buf: &GpuBuffer<u32, R>) {
//!       // Past the end of `buf`, and through a shared borrow: nothing checks either.
//!       b.runtime().copy_htod(buf.device_ptr() + 4096, &[0xff; 64]).unwrap();
//!   }
//!   ```
//!
//!   ```compile_fail,E0133
//!   use wavekit::gpu::{GpuBackend, GpuBuffer, GpuRuntime};
//!   fn clear<R: GpuRuntime>(b: &GpuBackend<R>, buf: &GpuBuffer<u32, R>) {
//!       b.runtime().memset_zero(buf.device_ptr(), 1 << 20).unwrap();
//!   }
//!   ```
//!
//!   ```compile_fail,E0133
//!   use wavekit::gpu::{GpuBackend, GpuBuffer, GpuRuntime};
//!   fn peek<R: GpuRuntime>(b: &GpuBackend<R>, buf: &GpuBuffer<u32, R>) -> Vec<u8> {
//!       let mut out = vec![0; 1 << 20];
//!       b.runtime().copy_dtoh(&mut out, buf.device_ptr()).unwrap();
//!       out
//!   }
//!   ```
//!
//!   ```compile_fail,E0133
//!   use wavekit::gpu::{GpuBackend, GpuBuffer, GpuRuntime};
//!   fn gather<R: GpuRuntime>(b: &GpuBackend<R>, buf: &GpuBuffer<u32, R>) -> Vec<u8> {
//!       let mut out = vec![0; 64];
//!       b.runtime().copy_dtoh_strided(&mut out, buf.device_ptr(), 4, 1 << 20).unwrap();
//!       out
//!   }
//!   ```
//!
//!   ```compile_fail,E0133
//!   use wavekit::gpu::{GpuBackend, GpuBuffer, GpuRuntime};
//!   fn gather<R: GpuRuntime>(b: &GpuBackend<R>, buf: &GpuBuffer<u32, R>) -> Vec<u8> {
//!       let mut out = vec![0; 64];
//!       let (rt, at) = (b.runtime(), buf.device_ptr());
//!       wavekit::gpu::runtime::copy_dtoh_each(rt, &mut out, at, 4, 1 << 20).unwrap();
//!       out
//!   }
//!   ```
//!
//!   ```compile_fail,E0133
//!   use wavekit::gpu::{GpuBackend, GpuBuffer, GpuRuntime};
//!   type Buf<R> = GpuBuffer<u32, R>;
//!   fn alias<R: GpuRuntime>(b: &GpuBackend<R>, src: &Buf<R>, dst: &Buf<R>) {
//!       // `dst` is only borrowed shared, and may be `src` itself.
//!       b.runtime().copy_dtod(dst.device_ptr(), src.device_ptr(), 1 << 20).unwrap();
//!   }
//!   ```
//!
//!   The launcher table's typed wrappers ([`ffi::Launchers`](crate::gpu::ffi::Launchers)'s
//!   methods, one a launcher) take bare addresses too, and are `unsafe fn`s for the same
//!   reason; the backend calls them only through its checked launch, which compares every
//!   memory argument with what the launcher reaches first:
//!
//!   ```compile_fail,E0133
//!   use wavekit::gpu::{GpuBackend, GpuBuffer, GpuRuntime};
//!   fn fold<R: GpuRuntime>(b: &GpuBackend<R>, buf: &GpuBuffer<u32, R>) -> i32 {
//!       let (rt, at) = (b.runtime(), buf.device_ptr());
//!       // A million elements read from a buffer of any length, one written past its end.
//!       rt.launchers().fold_left(rt.stream(), 0, 1, 0, at, 1 << 20, at + 4096)
//!   }
//!   ```
//!
//!   The checked forms take typed buffers and compare lengths first:
//!   [`Backend::write`](crate::Backend::write) and [`Backend::download`](crate::Backend::download),
//!   [`GpuBackend::copy`](crate::gpu::GpuBackend::copy) (device to device, views for ranges),
//!   [`GpuBackend::fill_zero`](crate::gpu::GpuBackend::fill_zero) and
//!   [`SliceDevice::download_strided`](crate::SliceDevice::download_strided).
//!
//!   ```
//!   # #[cfg(feature = "simt")] {
//!   use wavekit::prelude::*;
//!   let b = wavekit::simt::open(WarpWidth::W32)?;
//!   let src = b.upload(&[1u32, 2, 3])?;
//!   let mut dst = b.alloc::<u32>(4)?;
//!   assert!(b.copy(&src, &mut dst).is_err()); // 3 elements into 4: refused
//!   let mut tail = b.slice_mut(&mut dst, 1..4)?;
//!   b.copy(&src, &mut tail)?;
//!   drop(tail);
//!   assert_eq!(b.download(&dst)?, [0, 1, 2, 3]);
//!   # }
//!   # Ok::<(), wavekit::WavekitError>(())
//!   ```
#![cfg_attr(
    feature = "simt",
    doc = r#"
- **A kernel source runs in your process only through `unsafe`.** Checking a source on the
  SIMT executor compiles it and loads it into the calling program (its global initialisers
  run at once), and the executor guards only the page after each buffer; a kernel that writes
  further away corrupts the caller. So
  [`check_source`](crate::simt::user::check_source) and
  [`SourceBuild::compile`](crate::simt::user::SourceBuild::compile) are `unsafe fn` whose
  contract the caller takes on; `wavekit check FILE.cu` runs a file in its own process.

  ```compile_fail,E0133
  use wavekit::simt::user::{LaunchShape, check_source};
  let src = "__global__ void k(int* p) { p[1 << 30] = 1; }";
  let _ = check_source("k.cu", src, "k", LaunchShape::linear(1, 32), &[]);
  ```
"#
)]

//! What the safe API guarantees, and how each guarantee is enforced.
//!
//! A program that uses only safe code cannot make a wavekit call crash, read or write past an
//! allocation, abort on a huge size, or leave its buffers half-updated: every bad argument
//! comes back as a [`WavekitError`](crate::WavekitError).
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

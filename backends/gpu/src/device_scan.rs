//! The device scan on a GPU (`RawBackend::raw_device_scan`, which imp.rs hands here): the
//! lengths checked again, the scratch its own (tagged_pool.rs; the carried scan's from the
//! backend's pool), one launch on the stream.

use super::backend::{GpuBackend, Reports};
use super::buffer::GpuBuffer;
use super::ffi::{self, cptr, dptr, kind};
use super::runtime::GpuRuntime;
use super::tagged_pool::Tagged;
use wavekit_core::api::{check_len, check_scan_steps};
use wavekit_core::element::Element;
use wavekit_core::error::Result;
use wavekit_core::{ReduceOp, ScanKind};

impl<R: GpuRuntime> GpuBackend<R> {
    /// What `RawBackend::raw_device_scan` does on this backend; with `carry`, what
    /// [`GpuBackend::scan_carried_enqueue`] does after its checks (the same launch, tile 0's
    /// prefix carried in).
    pub(crate) fn device_scan_enqueue<T: Element>(
        &self,
        input: &GpuBuffer<T, R>,
        output: &mut GpuBuffer<T, R>,
        op: ReduceOp,
        scan: ScanKind,
        carry: Option<&GpuBuffer<T, R>>,
    ) -> Result<()> {
        self.own(input)?;
        self.own(output)?;
        if let Some(c) = carry {
            self.own(c)?;
        }
        check_len("scan output", input.len, output.len)?;
        let mut work = self.lock();
        self.rt.make_current()?;
        let n = input.len;
        let exclusive = (scan == ScanKind::Exclusive) as u32;
        let (src, dst) = (cptr(input.device_ptr()), dptr(output.device_ptr()));
        let (dt, code) = (kind::<T>(), op as u32);
        match carry {
            None => self.launch_tagged::<T>(
                &mut work,
                Tagged::Scan,
                n,
                "device_scan",
                // SAFETY: the kernels read the n elements of `input` and write n to `output` (its
                // length, checked above); `scratch` is `bytes` bytes of the scan's own tagged pool,
                // sized by launch_tagged for n and owned by the locked workspace. `output` is
                // borrowed exclusively, so neither input aliases it.
                |s, st, scratch, bytes, tag| unsafe {
                    (self.table.device_scan_tagged)(
                        s,
                        st,
                        dt,
                        code,
                        exclusive,
                        src,
                        n as u64,
                        dptr(scratch),
                        bytes,
                        tag,
                        dst,
                    )
                },
            ),
            Some(c) => {
                let bytes = self.scratch_bytes(ffi::ALGO_DEVICE_SCAN, T::KIND, n);
                let scratch = self.ensure_pool(&mut work, bytes)?;
                let carried = cptr(c.device_ptr());
                self.launch(
                    &mut work,
                    "device_scan_carried",
                    Reports::Errors,
                    // SAFETY: as for the tagged scan, with `scratch` the pool (at least `bytes`
                    // after ensure_pool) and `carried` one element (scan_carried_enqueue, the only
                    // caller with a carry, checked its length), read only.
                    |s, st| unsafe {
                        (self.table.device_scan_carried)(
                            s,
                            st,
                            dt,
                            code,
                            exclusive,
                            src,
                            n as u64,
                            carried,
                            dptr(scratch),
                            bytes,
                            dst,
                        )
                    },
                )
            }
        }
    }
}

/// The sharded scan's device steps (`SliceDevice::scan_aggregates_into`, `scan_carried_into`,
/// `fold_left_into` on this backend; docs/SEMANTICS.md "dist_scan"): one launch each on the
/// stream, nothing read back, the arguments checked again.
impl<R: GpuRuntime> GpuBackend<R> {
    /// `out[t]` = the aggregate `A_t` of tile `t` of `input` (docs/SEMANTICS.md "device_scan",
    /// steps 1-4; tiles of `SCAN_TILE`, the last padded with the identity), bit for bit the
    /// last value of the tile's own scan.
    ///
    /// # Errors
    /// `UnsupportedType` (f16, bf16), `UnsupportedOp`, `EmptyInput`, `LengthMismatch` unless
    /// `out` has one slot a tile, `ForeignBuffer`, `Device`. Nothing is written on error.
    pub(crate) fn scan_aggregates_enqueue<T: Element>(
        &self,
        input: &GpuBuffer<T, R>,
        op: ReduceOp,
        out: &mut GpuBuffer<T, R>,
    ) -> Result<()> {
        self.scan_step_enqueue("scan_aggregates", input, op, out)
    }

    /// The device scan of `input` as the continuation of an array whose earlier tiles fold to
    /// `carry[0]` (device_scan step 5 with `X_0 = carry[0]`; exclusive: `output[0] = carry[0]`).
    ///
    /// # Errors
    /// As [`GpuBackend::scan_aggregates_enqueue`]; `LengthMismatch` unless `output` is the
    /// input's length and `carry` one element.
    pub(crate) fn scan_carried_enqueue<T: Element>(
        &self,
        input: &GpuBuffer<T, R>,
        output: &mut GpuBuffer<T, R>,
        op: ReduceOp,
        scan: ScanKind,
        carry: &GpuBuffer<T, R>,
    ) -> Result<()> {
        check_scan_steps::<T>("scan_carried", op, input.len, output.len, Some(carry.len))?;
        self.device_scan_enqueue(input, output, op, scan, Some(carry))
    }

    /// `out[0]` = the left fold `op(…op(op(input[0], input[1]), input[2])…)` of `input`, in
    /// order (float Sum and Product: one GPU thread, the chain of device_scan's tile prefixes;
    /// the ops whose result no order changes, integers' and float Min / Max: one block).
    ///
    /// # Errors
    /// As [`GpuBackend::scan_aggregates_enqueue`]; `LengthMismatch` unless `out` is one element.
    pub(crate) fn fold_left_enqueue<T: Element>(
        &self,
        input: &GpuBuffer<T, R>,
        op: ReduceOp,
        out: &mut GpuBuffer<T, R>,
    ) -> Result<()> {
        self.scan_step_enqueue("fold_left", input, op, out)
    }

    /// The aggregates' or the fold's launch: the same arguments, one input and one output.
    fn scan_step_enqueue<T: Element>(
        &self,
        step: &'static str,
        input: &GpuBuffer<T, R>,
        op: ReduceOp,
        out: &mut GpuBuffer<T, R>,
    ) -> Result<()> {
        check_scan_steps::<T>(step, op, input.len, out.len, None)?;
        self.own(input)?;
        self.own(out)?;
        let mut work = self.lock();
        self.rt.make_current()?;
        let (launcher, call) = match step {
            "scan_aggregates" => (self.table.device_scan_aggregates, "device_scan_aggregates"),
            _ => (self.table.fold_left, "fold_left"),
        };
        // SAFETY: check_scan_steps gave `out` the length this step writes (one value a tile of
        // `input`, or one value), and the kernels read the `input.len` elements of `input`; `out`
        // is borrowed exclusively, so it does not alias `input`.
        self.launch(&mut work, call, Reports::Errors, |s, st| unsafe {
            launcher(
                s,
                st,
                kind::<T>(),
                op as u32,
                cptr(input.device_ptr()),
                input.len as u64,
                dptr(out.device_ptr()),
            )
        })
    }
}

//! How the collectives launch: a [`Launch`] lends them the launcher table with this backend's
//! stream and status slot, and each launcher is a method of it (generated from
//! csrc/wavekit/launchers.def by wavekit-kernels' launchers module), taking its memory
//! arguments as handles ([`In`], [`Out`], [`ReduceScratch`], [`TaggedScratch`]) whose bytes it
//! checks against what the launcher reaches with the call's other arguments before the call.
//! The handles are made from this backend's buffers and workspace only, and borrow them for the
//! call; so the collectives' files hold no pointer cast and no `unsafe`: the one place that
//! vouches for a launch is the generated method (and [`Launch::new`]).
//!
//! Three launchers stay `unsafe` methods, for what launchers.def asks of data the host would
//! have to read back to check: `segmented_sort` (ordered offsets), `look_back_probe` (the
//! statuses) and `peer_all_reduce` (other GPUs' addresses).

use super::backend::GpuBackend;
use super::buffer::{DeviceMem, GpuBuffer};
use super::ffi::{DevPtr, Launchers};
use super::runtime::GpuRuntime;
use std::ffi::c_void;
use std::marker::PhantomData;
use std::sync::Arc;
use wavekit_core::canonical;
use wavekit_core::element::{ElemKind, Element};
use wavekit_core::error::{Result, WavekitError};

/// Device memory a launcher argument names: its address (0 for NULL) and its bytes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Mem {
    pub(crate) ptr: DevPtr,
    pub(crate) bytes: u64,
}

impl Mem {
    const NULL: Mem = Mem { ptr: 0, bytes: 0 };

    fn of<R: GpuRuntime>(mem: &DeviceMem<R>) -> Mem {
        Mem {
            ptr: mem.ptr,
            bytes: mem.bytes as u64,
        }
    }

    fn of_buffer<T: Element, R: GpuRuntime>(buf: &GpuBuffer<T, R>) -> Mem {
        Mem {
            ptr: buf.device_ptr(),
            bytes: buf.bytes() as u64,
        }
    }
}

/// Memory a launcher reads (a `const T*` parameter), borrowed from a buffer or the workspace
/// for `'a`.
#[derive(Clone, Copy, Debug)]
pub(crate) struct In<'a> {
    mem: Mem,
    _borrow: PhantomData<&'a ()>,
}

/// Memory a launcher writes (a `T*` parameter), borrowed exclusively for `'a`, so no other
/// argument of the call overlaps it.
#[derive(Debug)]
pub(crate) struct Out<'a> {
    mem: Mem,
    _borrow: PhantomData<&'a mut ()>,
}

impl In<'_> {
    /// NULL: an argument the launcher takes as absent.
    pub(crate) const NULL: In<'static> = In {
        mem: Mem::NULL,
        _borrow: PhantomData,
    };

    pub(crate) fn mem(&self) -> Mem {
        self.mem
    }
}

impl Out<'_> {
    /// NULL: an output the launcher takes as not wanted.
    pub(crate) const NULL: Out<'static> = Out {
        mem: Mem::NULL,
        _borrow: PhantomData,
    };

    pub(crate) fn mem(&self) -> Mem {
        self.mem
    }
}

/// The device reduce's own scratch (`Work::reduce_pool`): zeroed when allocated, its tickets
/// left zero by every launch of the device reduce's launchers.
#[derive(Debug)]
pub(crate) struct ReduceScratch<'a>(Out<'a>);

impl<'a> ReduceScratch<'a> {
    /// Only `GpuBackend::reduce_scratch` makes one, from the reduce pool.
    pub(crate) fn new<R: GpuRuntime>(pool: &'a mut DeviceMem<R>) -> Self {
        ReduceScratch(Out {
            mem: Mem::of(pool),
            _borrow: PhantomData,
        })
    }

    pub(crate) fn mem(&self) -> Mem {
        self.0.mem
    }

    /// Its bytes, as the launchers' `scratch_bytes`.
    pub(crate) fn bytes(&self) -> u64 {
        self.0.mem.bytes
    }
}

/// A look-back collective's own scratch with the tag of this call (tagged_pool.rs): made by
/// `GpuBackend::launch_tagged` for one launcher and element type, which the launch checks.
#[derive(Debug)]
pub(crate) struct TaggedScratch<'a> {
    out: Out<'a>,
    tag: u32,
    kind: u32,
    launcher: &'static str,
    backend: &'static str,
}

impl<'a> TaggedScratch<'a> {
    /// Only `GpuBackend::launch_tagged` makes one, from the launcher's pool and the tag its
    /// `Tags` gave for `kind`.
    pub(crate) fn new<R: GpuRuntime>(
        pool: &'a mut DeviceMem<R>,
        tag: u32,
        kind: u32,
        launcher: &'static str,
    ) -> Self {
        TaggedScratch {
            out: Out {
                mem: Mem::of(pool),
                _borrow: PhantomData,
            },
            tag,
            kind,
            launcher,
            backend: R::BACKEND,
        }
    }

    pub(crate) fn mem(&self) -> Mem {
        self.out.mem
    }

    pub(crate) fn tag(&self) -> u32 {
        self.tag
    }

    /// `Ok` when this scratch was tagged for `launcher` on elements of `dtype`.
    fn check(&self, launcher: &'static str, dtype: u32) -> Result<()> {
        if self.launcher == launcher && self.kind == dtype {
            return Ok(());
        }
        Err(WavekitError::Device {
            backend: self.backend,
            call: launcher.into(),
            message: format!(
                "scratch tagged for {} on element type {}, launched with type {dtype}",
                self.launcher, self.kind
            ),
        })
    }
}

impl<R: GpuRuntime> GpuBackend<R> {
    /// `buf` as a launcher's input, once `own` accepts it.
    pub(crate) fn input<'a, T: Element>(&self, buf: &'a GpuBuffer<T, R>) -> Result<In<'a>> {
        self.own(buf)?;
        Ok(In {
            mem: Mem::of_buffer(buf),
            _borrow: PhantomData,
        })
    }

    /// `buf` as a launcher's output, once `own` accepts it.
    pub(crate) fn output<'a, T: Element>(&self, buf: &'a mut GpuBuffer<T, R>) -> Result<Out<'a>> {
        self.own(buf)?;
        Ok(Out {
            mem: Mem::of_buffer(buf),
            _borrow: PhantomData,
        })
    }

    /// An optional input: NULL when absent.
    pub(crate) fn input_or_null<'a, T: Element>(
        &self,
        buf: Option<&'a GpuBuffer<T, R>>,
    ) -> Result<In<'a>> {
        buf.map_or(Ok(In::NULL), |b| self.input(b))
    }

    /// An optional output: NULL when not wanted.
    pub(crate) fn output_or_null<'a, T: Element>(
        &self,
        buf: Option<&'a mut GpuBuffer<T, R>>,
    ) -> Result<Out<'a>> {
        buf.map_or(Ok(Out::NULL), |b| self.output(b))
    }

    /// Raw memory of this backend's device (the workspace, a fresh upload) as an input.
    pub(crate) fn input_mem<'a>(&self, mem: &'a DeviceMem<R>) -> Result<In<'a>> {
        self.own_mem(mem)?;
        Ok(In {
            mem: Mem::of(mem),
            _borrow: PhantomData,
        })
    }

    /// Raw memory of this backend's device as an output.
    pub(crate) fn output_mem<'a>(&self, mem: &'a mut DeviceMem<R>) -> Result<Out<'a>> {
        self.own_mem(mem)?;
        Ok(Out {
            mem: Mem::of(mem),
            _borrow: PhantomData,
        })
    }

    fn own_mem(&self, mem: &DeviceMem<R>) -> Result<()> {
        if Arc::ptr_eq(&mem.rt, &self.rt) || mem.rt.same_device(&self.rt) {
            Ok(())
        } else {
            Err(WavekitError::ForeignBuffer)
        }
    }
}

/// The launcher table lent to one launch, with the stream and status slot it runs with: the
/// launchers are its methods (checked_launchers.rs, generated).
pub(crate) struct Launch<'a> {
    table: &'a Launchers,
    stream: *mut c_void,
    status: DevPtr,
}

impl<'a> Launch<'a> {
    /// # Safety
    /// `table` is the launcher table of the runtime `stream` belongs to (`GpuRuntime`'s
    /// contract), whose device is current on this thread; `status` is one status word of that
    /// device's memory which nothing else writes until the work queued through this `Launch`
    /// has run, and which lives as long as the `Launch` is used.
    pub(crate) unsafe fn new(table: &'a Launchers, stream: *mut c_void, status: DevPtr) -> Self {
        Launch {
            table,
            stream,
            status,
        }
    }
}

/// The extents' arithmetic: wide enough that no product of a call's arguments overflows.
fn wide(x: impl Into<u128>) -> u128 {
    x.into()
}

/// Bytes of an element of dtype code `d`; for a code no type has, the largest (the launcher
/// refuses it anyway).
fn size(d: u128) -> u128 {
    usize::try_from(d)
        .ok()
        .and_then(|d| ElemKind::ALL.get(d))
        .map_or(8, |k| k.size() as u128)
}

/// Bytes of dtype `d`'s accumulator type: `f32` for the 16-bit floats.
fn acc(d: u128) -> u128 {
    // The 2-byte types are exactly the 16-bit floats.
    if size(d) == 2 { 4 } else { size(d) }
}

/// `ceil(a / b)`; `a` for `b = 0` (the launcher refuses such a call, and no extent is larger).
fn ceil(a: u128, b: u128) -> u128 {
    if b == 0 { a } else { a.div_ceil(b) }
}

fn pow(a: u128, b: u128) -> u128 {
    a.saturating_pow(u32::try_from(b).unwrap_or(u32::MAX))
}

/// The first `k` values of host slice `s`, summed.
fn sum(s: &[u64], k: u128) -> u128 {
    let k = usize::try_from(k).unwrap_or(usize::MAX);
    s.iter().take(k).map(|&v| u128::from(v)).sum()
}

const REDUCE_TILE: u128 = canonical::REDUCE_TILE as u128;
const SCAN_TILE: u128 = canonical::SCAN_TILE as u128;

/// `Ok` when `mem` holds `need` bytes, or is NULL where the launcher takes NULL (`null`) or
/// touches none of it.
fn reach(what: &'static str, mem: Mem, need: u128, null: bool) -> Result<()> {
    let have = if mem.ptr == 0 { 0 } else { mem.bytes };
    if (mem.ptr == 0 && null) || u128::from(have) >= need {
        return Ok(());
    }
    Err(WavekitError::LengthMismatch {
        what,
        expected: usize::try_from(need).unwrap_or(usize::MAX),
        got: have as usize,
    })
}

/// `Ok` when a host slice of `bytes` bytes holds `need`.
fn reach_host(what: &'static str, bytes: usize, need: u128) -> Result<()> {
    if bytes as u128 >= need {
        return Ok(());
    }
    Err(WavekitError::LengthMismatch {
        what,
        expected: usize::try_from(need).unwrap_or(usize::MAX),
        got: bytes,
    })
}

include!(concat!(env!("OUT_DIR"), "/checked_launchers.rs"));

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn extents_count_what_each_type_holds() {
        let code = |k: ElemKind| u128::from(k as u32);
        assert_eq!(size(code(ElemKind::F64)), 8);
        assert_eq!(size(code(ElemKind::BF16)), 2);
        assert_eq!(acc(code(ElemKind::F16)), 4);
        assert_eq!(acc(code(ElemKind::I64)), 8);
        assert_eq!(acc(code(ElemKind::U32)), 4);
        assert_eq!(size(99), 8);
        assert_eq!(ceil(10, 4), 3);
        assert_eq!(ceil(10, 0), 10);
        assert_eq!(pow(4096, 2), 1 << 24);
        assert_eq!(pow(4096, 99), u128::MAX);
        assert_eq!(sum(&[1, 2, 3], 2), 3);
        assert_eq!(sum(&[u64::MAX, u64::MAX], 9), 2 * u128::from(u64::MAX));
    }

    #[test]
    fn an_argument_shorter_than_its_reach_is_refused() {
        let m = Mem { ptr: 64, bytes: 32 };
        assert!(reach("x", m, 32, false).is_ok());
        assert!(matches!(
            reach("x", m, 33, false),
            Err(WavekitError::LengthMismatch {
                expected: 33,
                got: 32,
                ..
            })
        ));
        // NULL: only where the launcher takes it, or touches nothing.
        assert!(reach("x", Mem::NULL, 8, true).is_ok());
        assert!(reach("x", Mem::NULL, 0, false).is_ok());
        assert!(reach("x", Mem::NULL, 8, false).is_err());
        // A NULL address holds nothing, whatever bytes it claims.
        assert!(reach("x", Mem { ptr: 0, bytes: 64 }, 8, false).is_err());
        assert!(reach_host("h", 16, 16).is_ok() && reach_host("h", 8, 16).is_err());
    }
}

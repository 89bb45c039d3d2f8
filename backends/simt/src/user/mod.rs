//! Users' own kernels on the executor: `.cu` files written against csrc/wavekit.h
//! (docs/DEVICE_API.md), each kernel exported with `WK_EXPORT_KERNEL(name)`, compiled at 32 and
//! 64 lanes by `wavekit_kernels::user::executor` from the user's build script, or plain CUDA and
//! HIP built by `wavekit_kernels::plain` into a shared library ([`Library`]). [`user_kernel!`](crate::user_kernel)
//! finds both builds of a kernel by name; [`Kernel::launch`] runs one under a [`Session`], whose
//! reports then name the kernel, block, warp, lanes and source line of each hazard.
//!
//! ```ignore
//! let k = wavekit::simt::user_kernel!(warp_sums); // WK_EXPORT_KERNEL(warp_sums) in the .cu
//! let s = Session::new(Schedule::Lockstep);
//! let mut args = [Arg::Buffer(Values::I32(input)), Arg::Buffer(Values::I32(vec![0; n]))];
//! unsafe { k.at(WarpWidth::W64).launch(&s, [1, 1, 1], [128, 1, 1], 0, &mut args)? };
//! let reports = s.take_reports();
//! ```

use super::session::Session;
use std::ffi::{CStr, c_char, c_int, c_uint, c_void};
use std::fmt;
use wavekit_core::error::{Result, WavekitError};
use wavekit_core::width::WarpWidth;

type LaunchFn = unsafe extern "C" fn(
    stream: *mut c_void,
    grid: *const c_uint,
    block: *const c_uint,
    dynamic_shared_bytes: usize,
    args: *const *mut c_void,
) -> c_int;

/// csrc/wavekit.h's `wk_kernel_desc`: what `WK_EXPORT_KERNEL(name)` defines, as
/// `wk_user32_kernel_<name>` and `wk_user64_kernel_<name>` in an executor build (and
/// csrc/simt/plain/exports.h's WK_PLAIN_EXPORT in a plain source's).
#[repr(C)]
pub struct RawKernel {
    name: *const c_char,
    warp_size: c_uint,
    params: unsafe extern "C" fn() -> *const c_char,
    launch: LaunchFn,
}

// SAFETY: a descriptor is immutable static data and function pointers.
unsafe impl Sync for RawKernel {}

impl fmt::Debug for RawKernel {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        // The name is read only through `Kernel::from_raw`'s contract: shown as its address.
        f.debug_struct("RawKernel")
            .field("name", &self.name)
            .field("warp_size", &self.warp_size)
            .finish_non_exhaustive()
    }
}

mod guard;
mod library;
mod params;
mod source;
mod values;

pub use library::Library;
pub use params::{Field, Param, StructParam};
pub use source::{LaunchShape, SourceBuild, SourceCheck, check_source};
pub use values::{Elem, Value, Values};

/// One argument of a launch, matching its [`Param`].
#[derive(Clone, Debug, PartialEq)]
pub enum Arg {
    /// For a [`Param::Scalar`].
    Scalar(Value),
    /// For a [`Param::Pointer`]: the elements, copied in before the launch and back after.
    Buffer(Values),
    /// For a [`Param::Struct`]: one argument per field, in order.
    Struct(Vec<Arg>),
}

/// One build (one width) of a user kernel.
pub struct Kernel {
    name: String,
    width: WarpWidth,
    params: Vec<Param>,
    launch: LaunchFn,
}

impl fmt::Debug for Kernel {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Kernel")
            .field("name", &self.name)
            .field("width", &self.width)
            .field("params", &self.params)
            .finish()
    }
}

fn device_error(call: &str, message: String) -> WavekitError {
    WavekitError::Device {
        backend: "simt",
        call: call.to_string(),
        message,
    }
}

impl Kernel {
    /// The kernel a descriptor describes.
    ///
    /// # Safety
    /// `raw` is a descriptor `WK_EXPORT_KERNEL` defined in an executor build linked into (or
    /// loaded by, and never unloaded from) this program.
    pub unsafe fn from_raw(raw: &'static RawKernel) -> Result<Kernel> {
        // SAFETY: the descriptor's name and parameter list are NUL-terminated strings that live
        // as long as the program (a literal, and a function-local static).
        let (name, params) = unsafe {
            (
                CStr::from_ptr(raw.name).to_string_lossy().into_owned(),
                CStr::from_ptr((raw.params)())
                    .to_string_lossy()
                    .into_owned(),
            )
        };
        let width = WarpWidth::new(raw.warp_size)?;
        let params = if params.is_empty() {
            Vec::new()
        } else {
            split_params(&params)
                .into_iter()
                .enumerate()
                .map(|(i, p)| {
                    Param::parse(p).map_err(|u| {
                        device_error(
                            &name,
                            format!(
                                "parameter {i} has type `{}`, which the executor cannot pass: it \
                                 passes i8 to u64, f32, f64, pointers to them, and structs of \
                                 those whose fields it can name",
                                u.0
                            ),
                        )
                    })
                })
                .collect::<Result<_>>()?
        };
        Ok(Kernel {
            name,
            width,
            params,
            launch: raw.launch,
        })
    }

    /// The kernel's name, as `WK_EXPORT_KERNEL` gave it.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// The warp width this build runs at.
    pub fn width(&self) -> WarpWidth {
        self.width
    }

    /// The kernel's parameters, in order.
    pub fn params(&self) -> &[Param] {
        &self.params
    }

    /// Runs the kernel on `grid` x `block` threads under the session's schedule: buffers are
    /// read and written in place, hazards go to the session (`take_reports`). An error means
    /// the launch could not run (arguments that do not match the parameters, a bad grid or
    /// block, `LaunchBounds` for a cooperative launch larger than
    /// [`Session::cooperative_max_threads`]) or was abandoned (a lane faulted: the session's
    /// `InvalidAccess` report says where); a launch that ran and reported hazards is `Ok`.
    ///
    /// # Safety
    /// The kernel is the user's code: it must stay inside the buffers it is given (the
    /// executor checks shared memory, not these).
    pub unsafe fn launch(
        &self,
        session: &Session,
        grid: [u32; 3],
        block: [u32; 3],
        dynamic_shared_bytes: usize,
        args: &mut [Arg],
    ) -> Result<()> {
        // SAFETY: passed on.
        unsafe { self.run(session, grid, block, dynamic_shared_bytes, args, false) }
    }

    /// As [`launch`](Self::launch), with each buffer copied in and out of memory whose end
    /// (and a page before its start) touches an inaccessible page: a kernel that indexes past
    /// a buffer faults there, and the executor reports it (`InvalidAccess`) and abandons the
    /// launch, instead of the kernel writing over the program's other memory. For a kernel not
    /// known to stay inside its buffers (`wavekit check`). Outputs registered with
    /// [`expect_written`] are not seen through the copies: use `launch` for those.
    ///
    /// # Safety
    /// The kernel is the user's code: what it does within a page of its buffers, or anywhere
    /// else by other means, is still its own.
    pub unsafe fn launch_guarded(
        &self,
        session: &Session,
        grid: [u32; 3],
        block: [u32; 3],
        dynamic_shared_bytes: usize,
        args: &mut [Arg],
    ) -> Result<()> {
        // SAFETY: passed on.
        unsafe { self.run(session, grid, block, dynamic_shared_bytes, args, true) }
    }

    unsafe fn run(
        &self,
        session: &Session,
        grid: [u32; 3],
        block: [u32; 3],
        dynamic_shared_bytes: usize,
        args: &mut [Arg],
        guarded: bool,
    ) -> Result<()> {
        if args.len() != self.params.len() {
            return Err(WavekitError::LengthMismatch {
                what: "kernel arguments",
                expected: self.params.len(),
                got: args.len(),
            });
        }
        // The guarded copies of the buffers, in the order `slot` meets them.
        let mut copies: Vec<guard::Guarded> = Vec::new();
        let mut slot = |p: &Param, a: &mut Arg| -> Option<(u64, usize)> {
            let (bits, size) = scalar_slot(p, a)?;
            match a {
                Arg::Buffer(b) if guarded => {
                    let g =
                        guard::Guarded::copy_of(b.as_mut_ptr().cast(), b.len() * b.elem().size())?;
                    let at = g.data() as usize as u64;
                    copies.push(g);
                    Some((at, size))
                }
                _ => Some((bits, size)),
            }
        };
        // Each argument's value: a scalar's bits, a buffer's address, or a struct's bytes laid
        // out as the descriptor says; `argv[i]` points at it.
        let mut slots: Vec<Vec<u64>> = Vec::with_capacity(args.len());
        for (i, (p, a)) in self.params.iter().zip(args.iter_mut()).enumerate() {
            let mismatch =
                |a: &Arg| device_error(&self.name, format!("argument {i} is {p}, given {a:?}"));
            let value = match (p, &mut *a) {
                (Param::Struct(s), Arg::Struct(fields)) if fields.len() == s.fields.len() => {
                    let mut bytes = vec![0u8; s.size.div_ceil(8) * 8];
                    for (f, v) in s.fields.iter().zip(fields.iter_mut()) {
                        let (bits, size) = slot(&f.param, v).ok_or_else(|| mismatch(v))?;
                        if f.offset + size > bytes.len() {
                            return Err(mismatch(v));
                        }
                        let b = bits.to_ne_bytes();
                        bytes[f.offset..f.offset + size].copy_from_slice(&b[..size]);
                    }
                    bytes
                        .chunks(8)
                        .map(|c| u64::from_ne_bytes(c.try_into().expect("8 bytes")))
                        .collect()
                }
                (p, a) => vec![slot(p, a).ok_or_else(|| mismatch(a))?.0],
            };
            slots.push(value);
        }
        let argv: Vec<*mut c_void> = slots.iter_mut().map(|s| s.as_mut_ptr().cast()).collect();
        // SAFETY: argv[i] points at a value of parameter i's type (a scalar in the low bytes of
        // its slot, little-endian, a pointer, or a struct's bytes at its fields' offsets, read
        // byte-wise by the launch); the buffers (or their guarded copies) outlive the launch,
        // which runs to its end before returning; the caller vouches for the kernel's
        // accesses.
        let code = unsafe {
            (self.launch)(
                session.stream(),
                grid.as_ptr(),
                block.as_ptr(),
                dynamic_shared_bytes,
                argv.as_ptr(),
            )
        };
        // The copies back, in the order they were made.
        let mut copies = copies.into_iter();
        let mut back = |b: &mut Values| {
            if let Some(g) = copies.next() {
                g.copy_back(b.as_mut_ptr().cast());
            }
        };
        if guarded {
            for a in args.iter_mut() {
                match a {
                    Arg::Buffer(b) => back(b),
                    Arg::Struct(fields) => fields.iter_mut().for_each(|f| {
                        if let Arg::Buffer(b) = f {
                            back(b)
                        }
                    }),
                    Arg::Scalar(_) => {}
                }
            }
        }
        if code == crate::session::COOPERATIVE_TOO_LARGE {
            return Err(WavekitError::LaunchBounds {
                kernel: self.name.clone(),
                what: "the threads of a cooperative launch (every block co-resident, a fiber each)",
                got: grid
                    .iter()
                    .chain(&block)
                    .fold(1u64, |a, &d| a.saturating_mul(u64::from(d))),
                min: 1,
                limit: Session::cooperative_max_threads(),
            });
        }
        Session::check(code, &self.name)
    }
}

/// Registers the first `count` elements of `out` for the unwritten-output check of the next
/// launch on this thread: the executor fills them with 0x5A bytes, and after that launch
/// reports those still holding them (`HazardKind::UnwrittenOutput`), naming the warp and lanes
/// meant to write each (element i is thread i * `stride` of the grid, threads numbered block
/// after block) and `file:line`. More elements than `out` holds is an error.
///
/// # Safety
/// `out`'s elements must stay where they are (no push, no drop) until that launch ends.
pub unsafe fn expect_written(
    out: &mut Values,
    count: usize,
    stride: usize,
    name: &str,
    file: &str,
    line: u32,
) -> Result<()> {
    if count > out.len() {
        return Err(WavekitError::LengthMismatch {
            what: "expected output",
            expected: count,
            got: out.len(),
        });
    }
    let c = |s: &str| std::ffi::CString::new(s.replace('\0', " ")).expect("no NUL left");
    let (name, file) = (c(name), c(file));
    let elem = out.elem().size();
    // SAFETY: `count` elements lie in `out`, which the caller keeps in place until the launch
    // that reads them; the executor copies the strings.
    unsafe {
        crate::ffi::wk_simt_expect_written(
            out.as_mut_ptr(),
            count,
            elem,
            stride,
            name.as_ptr(),
            file.as_ptr(),
            line as c_int,
        )
    };
    Ok(())
}

/// The parameter list split at its top-level commas (a struct's fields are `;`-separated
/// inside braces).
fn split_params(s: &str) -> Vec<&str> {
    let mut out = Vec::new();
    let (mut depth, mut start) = (0i32, 0);
    for (i, c) in s.char_indices() {
        match c {
            '{' => depth += 1,
            '}' => depth -= 1,
            ',' if depth == 0 => {
                out.push(&s[start..i]);
                start = i + 1;
            }
            _ => {}
        }
    }
    out.push(&s[start..]);
    out
}

/// A scalar's bits and size, or a buffer's address, for parameter `p`; None if `a` does not
/// match it.
fn scalar_slot(p: &Param, a: &mut Arg) -> Option<(u64, usize)> {
    match (p, a) {
        (Param::Scalar(e), Arg::Scalar(v)) if v.elem() == *e => Some((v.bits(), e.size())),
        (Param::Pointer { elem, .. }, Arg::Buffer(b)) if b.elem() == *elem => {
            Some((b.as_mut_ptr() as usize as u64, std::mem::size_of::<usize>()))
        }
        _ => None,
    }
}

/// Both builds of a user kernel, as [`user_kernel!`](crate::user_kernel) finds them.
#[derive(Debug)]
pub struct UserKernel {
    w32: Kernel,
    w64: Kernel,
}

impl UserKernel {
    /// # Safety
    /// As [`Kernel::from_raw`], for both descriptors.
    pub unsafe fn from_raw(w32: &'static RawKernel, w64: &'static RawKernel) -> Result<Self> {
        // SAFETY: passed on from the caller.
        unsafe {
            Ok(UserKernel {
                w32: Kernel::from_raw(w32)?,
                w64: Kernel::from_raw(w64)?,
            })
        }
    }

    /// The build at `width` lanes.
    pub fn at(&self, width: WarpWidth) -> &Kernel {
        match width {
            WarpWidth::W32 => &self.w32,
            WarpWidth::W64 => &self.w64,
        }
    }
}

/// The kernel `name` of a user's `.cu` file (exported there with `WK_EXPORT_KERNEL(name)`)
/// compiled by `wavekit_kernels::user::executor` into the crate using this macro: a
/// `Result<`[`UserKernel`]`>` holding its 32- and 64-lane builds.
#[macro_export]
macro_rules! user_kernel {
    ($name:ident) => {{
        unsafe extern "C" {
            #[link_name = concat!("wk_user32_kernel_", stringify!($name))]
            static W32: $crate::user::RawKernel;
            #[link_name = concat!("wk_user64_kernel_", stringify!($name))]
            static W64: $crate::user::RawKernel;
        }
        // SAFETY: the symbols are the descriptors WK_EXPORT_KERNEL defines in the executor
        // builds wavekit_kernels::user::executor links into this crate.
        unsafe { $crate::user::UserKernel::from_raw(&*&raw const W32, &*&raw const W64) }
    }};
}

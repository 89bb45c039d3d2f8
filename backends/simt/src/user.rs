//! Users' own kernels on the executor: `.cu` files written against csrc/wavekit.h
//! (docs/DEVICE_API.md), each kernel exported with `WK_EXPORT_KERNEL(name)`, compiled at 32 and
//! 64 lanes by `wavekit_build::user::executor` from the user's build script. [`user_kernel!`]
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
/// `wk_user32_kernel_<name>` and `wk_user64_kernel_<name>` in an executor build.
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

macro_rules! elems {
    ($($v:ident $t:ty, $s:literal;)*) => {
        /// An element type a user kernel's parameter may have.
        #[derive(Clone, Copy, Debug, PartialEq, Eq)]
        pub enum Elem { $(#[doc = concat!("`", $s, "`.")] $v),* }

        impl Elem {
            /// As csrc/wavekit.h spells it: i32, u32, i64, u64, f32, f64.
            pub fn name(self) -> &'static str {
                match self { $(Elem::$v => $s),* }
            }

            fn parse(s: &str) -> Option<Elem> {
                match s { $($s => Some(Elem::$v),)* _ => None }
            }
        }

        /// One scalar argument.
        #[derive(Clone, Copy, Debug, PartialEq)]
        pub enum Value { $(#[doc = concat!("A `", $s, "`.")] $v($t)),* }

        /// The elements of one buffer argument; a launch reads and writes them in place.
        #[derive(Clone, Debug, PartialEq)]
        pub enum Values { $(#[doc = concat!("Elements of type `", $s, "`.")] $v(Vec<$t>)),* }

        impl Value {
            /// The argument's element type.
            pub fn elem(&self) -> Elem {
                match self { $(Value::$v(_) => Elem::$v),* }
            }

            fn bits(&self) -> u64 {
                match *self { $(Value::$v(x) => {
                    let mut b = [0u8; 8];
                    let x = x.to_ne_bytes();
                    b[..x.len()].copy_from_slice(&x);
                    u64::from_ne_bytes(b)
                })* }
            }

            /// `text` read as an element of type `elem` (a decimal, or 0x... for integers).
            pub fn parse(elem: Elem, text: &str) -> Option<Value> {
                let t = text.trim();
                match elem { $(Elem::$v => parse_num::<$t>(t).map(Value::$v)),* }
            }
        }

        impl Values {
            /// The buffer's element type.
            pub fn elem(&self) -> Elem {
                match self { $(Values::$v(_) => Elem::$v),* }
            }

            /// Elements in the buffer.
            pub fn len(&self) -> usize {
                match self { $(Values::$v(v) => v.len()),* }
            }

            /// `true` when the buffer holds no elements.
            pub fn is_empty(&self) -> bool {
                self.len() == 0
            }

            fn as_mut_ptr(&mut self) -> *mut c_void {
                match self { $(Values::$v(v) => v.as_mut_ptr().cast()),* }
            }

            /// `n` elements of type `elem` from `next`, which yields values in -1..1 scaled
            /// to the type: integers in -100..100 (0..200 unsigned), floats in [-1, 1).
            pub fn random(elem: Elem, n: usize, mut next: impl FnMut() -> f64) -> Values {
                match elem { $(Elem::$v => Values::$v((0..n).map(|_| random_of::<$t>(next())).collect())),* }
            }

            /// `text`, comma separated, as elements of type `elem`.
            pub fn parse(elem: Elem, text: &str) -> Option<Values> {
                match elem { $(Elem::$v => text.split(',').map(|t| parse_num::<$t>(t.trim())).collect::<Option<Vec<$t>>>().map(Values::$v)),* }
            }

            /// Element i, for printing.
            pub fn show(&self, i: usize) -> String {
                match self { $(Values::$v(v) => v[i].to_string()),* }
            }
        }
    };
}

elems! {
    I32 i32, "i32";
    U32 u32, "u32";
    I64 i64, "i64";
    U64 u64, "u64";
    F32 f32, "f32";
    F64 f64, "f64";
}

trait Num: Sized {
    fn parse_num(s: &str) -> Option<Self>;
    fn from_unit(x: f64) -> Self;
}

macro_rules! ints {
    ($($t:ty),*) => {$(
        impl Num for $t {
            fn parse_num(s: &str) -> Option<Self> {
                match s.strip_prefix("0x") {
                    Some(h) => <$t>::from_str_radix(h, 16).ok(),
                    None => s.parse().ok(),
                }
            }
            fn from_unit(x: f64) -> Self {
                // -100..100 signed, 0..200 unsigned: small enough that sums do not overflow.
                let v = (x * 100.0).round() as i64;
                (if <$t>::MIN == 0 { v + 100 } else { v }) as $t
            }
        }
    )*};
}
ints!(i32, u32, i64, u64);

macro_rules! floats {
    ($($t:ty),*) => {$(
        impl Num for $t {
            fn parse_num(s: &str) -> Option<Self> {
                s.parse().ok()
            }
            fn from_unit(x: f64) -> Self {
                x as $t
            }
        }
    )*};
}
floats!(f32, f64);

fn parse_num<T: Num>(s: &str) -> Option<T> {
    T::parse_num(s)
}

fn random_of<T: Num>(x: f64) -> T {
    T::from_unit(x)
}

/// A parameter of a user kernel.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Param {
    /// A value of this element type, passed by value.
    Scalar(Elem),
    /// A pointer to elements; `read_only` when the kernel takes it as `const T*`.
    Pointer {
        /// The pointee's element type.
        elem: Elem,
        /// `true` for `const T*`.
        read_only: bool,
    },
}

impl fmt::Display for Param {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Param::Scalar(e) => f.write_str(e.name()),
            Param::Pointer { elem, read_only } => {
                write!(
                    f,
                    "{}{}*",
                    if *read_only { "const " } else { "" },
                    elem.name()
                )
            }
        }
    }
}

impl Param {
    fn parse(s: &str) -> Option<Param> {
        let s = s.trim();
        match s.strip_suffix('*') {
            Some(p) => {
                let (read_only, e) = match p.trim().strip_prefix("const ") {
                    Some(e) => (true, e),
                    None => (false, p.trim()),
                };
                Elem::parse(e).map(|elem| Param::Pointer { elem, read_only })
            }
            None => Elem::parse(s).map(Param::Scalar),
        }
    }
}

/// One argument of a launch, matching its [`Param`].
#[derive(Clone, Debug, PartialEq)]
pub enum Arg {
    /// For a [`Param::Scalar`].
    Scalar(Value),
    /// For a [`Param::Pointer`]: the elements, copied in before the launch and back after.
    Buffer(Values),
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
            params
                .split(',')
                .map(|p| {
                    Param::parse(p).ok_or_else(|| {
                        device_error(&name, format!("parameter type `{p}` is not supported"))
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
    /// block); a launch that ran and reported hazards is `Ok`.
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
        if args.len() != self.params.len() {
            return Err(WavekitError::LengthMismatch {
                what: "kernel arguments",
                expected: self.params.len(),
                got: args.len(),
            });
        }
        // Each argument's value: a scalar's bits, or a buffer's address; `argv[i]` points at it.
        let mut slots: Vec<u64> = Vec::with_capacity(args.len());
        for (i, (p, a)) in self.params.iter().zip(args.iter_mut()).enumerate() {
            let slot = match (p, a) {
                (Param::Scalar(e), Arg::Scalar(v)) if v.elem() == *e => v.bits(),
                (Param::Pointer { elem, .. }, Arg::Buffer(b)) if b.elem() == *elem => {
                    b.as_mut_ptr() as usize as u64
                }
                (p, a) => {
                    return Err(device_error(
                        &self.name,
                        format!("argument {i} is {p}, given {a:?}"),
                    ));
                }
            };
            slots.push(slot);
        }
        let argv: Vec<*mut c_void> = slots.iter_mut().map(|s| (s as *mut u64).cast()).collect();
        // SAFETY: argv[i] points at a value of parameter i's type (a scalar in the low bytes of
        // its slot, little-endian, or a pointer); the buffers outlive the launch, which runs to
        // its end before returning; the caller vouches for the kernel's accesses.
        let code = unsafe {
            (self.launch)(
                session.stream(),
                grid.as_ptr(),
                block.as_ptr(),
                dynamic_shared_bytes,
                argv.as_ptr(),
            )
        };
        Session::check(code, &self.name)
    }
}

/// Both builds of a user kernel, as [`user_kernel!`] finds them.
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
/// compiled by `wavekit_build::user::executor` into the crate using this macro: a
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
        // builds wavekit_build::user::executor links into this crate.
        unsafe { $crate::user::UserKernel::from_raw(&*&raw const W32, &*&raw const W64) }
    }};
}

//! Users' kernel sources compiled at run time, written once over the two vendors' runtime
//! compilers, whose C APIs are the same shape (NVRTC's `nvrtc*`, hipRTC's `hiprtc*`): the
//! device API's headers are handed over by name and text (no file on disk), each kernel the
//! source exports with `WK_EXPORT_KERNEL(name)` is registered as the name expression
//! `&<namespace>::name`, and its lowered (mangled) name comes back with the code, so the vendor
//! crates load a kernel by the name the source gave it.

use crate::device;
use std::ffi::{CString, c_char};
use wavekit_core::error::{Result, WavekitError};

/// One vendor's runtime compiler: thin wrappers of its C calls, each returning the vendor's
/// result code (0 is success).
///
/// # Safety
/// Implementations call the vendor's functions with the arguments as given; `program` is one
/// `create` returned and `destroy` has not yet freed. Callers of each method keep the
/// vendor's own contract for that call (valid pointers, NUL-terminated strings, out-buffers of
/// the size the compiler reported), which is what each method's safety is.
#[allow(clippy::missing_safety_doc)] // one contract for every method, stated above
pub unsafe trait RtcApi {
    /// `nvrtc` or `hiprtc`, as errors name it.
    const COMPILER: &'static str;
    /// The namespace the device layer puts kernels in for this vendor (`wk_cuda`, `wk_hip`).
    const NAMESPACE: &'static str;
    /// The vendor's program handle.
    type Program: Copy;
    /// `*CreateProgram`.
    unsafe fn create(
        program: *mut Self::Program,
        source: *const c_char,
        name: *const c_char,
        count: i32,
        headers: *const *const c_char,
        names: *const *const c_char,
    ) -> i32;
    /// `*AddNameExpression`.
    unsafe fn add_name_expression(program: Self::Program, expr: *const c_char) -> i32;
    /// `*CompileProgram`.
    unsafe fn compile(program: Self::Program, count: i32, options: *const *const c_char) -> i32;
    /// `*GetProgramLogSize` and `*GetProgramLog`.
    unsafe fn log_size(program: Self::Program, size: *mut usize) -> i32;
    /// See `log_size`.
    unsafe fn log(program: Self::Program, out: *mut c_char) -> i32;
    /// The compiled code's size and bytes: PTX (NVRTC) or a code object (hipRTC).
    unsafe fn code_size(program: Self::Program, size: *mut usize) -> i32;
    /// See `code_size`.
    unsafe fn code(program: Self::Program, out: *mut c_char) -> i32;
    /// `*GetLoweredName`.
    unsafe fn lowered_name(
        program: Self::Program,
        expr: *const c_char,
        out: *mut *const c_char,
    ) -> i32;
    /// `*DestroyProgram`.
    unsafe fn destroy(program: *mut Self::Program) -> i32;
    /// The vendor's message for a result code.
    fn error_string(code: i32) -> String;
}

/// A compiled source: the code, the compiler's log (warnings), and each exported kernel's name
/// with its lowered name in the code.
#[derive(Clone, Debug)]
pub struct Compiled {
    /// PTX text (NVRTC, NUL excluded) or a code object (hipRTC).
    pub code: Vec<u8>,
    /// What the compiler printed (empty when it had nothing to say).
    pub log: String,
    /// (the name in `WK_EXPORT_KERNEL`, the symbol in `code`), in the source's order.
    pub kernels: Vec<(String, String)>,
}

impl Compiled {
    /// The symbol of kernel `name` in the code.
    ///
    /// # Errors
    /// `UnknownKernel` when the source exports no kernel of that name.
    pub fn symbol(&self, source_name: &str, name: &str) -> Result<&str> {
        self.kernels
            .iter()
            .find(|(k, _)| k == name)
            .map(|(_, s)| s.as_str())
            .ok_or_else(|| WavekitError::UnknownKernel {
                kernel: name.to_string(),
                source_name: source_name.to_string(),
                available: self.kernels.iter().map(|(k, _)| k.clone()).collect(),
            })
    }
}

fn c_string(what: &str, s: &str) -> Result<CString> {
    CString::new(s).map_err(|_| WavekitError::UserSource {
        file: what.to_string(),
        line: 0,
        message: "holds a NUL byte".into(),
    })
}

/// A program handle destroyed on every path out.
struct Program<A: RtcApi>(A::Program);

impl<A: RtcApi> Drop for Program<A> {
    fn drop(&mut self) {
        // SAFETY: the handle `create` returned, destroyed once, here.
        unsafe { A::destroy(&mut self.0) };
    }
}

/// Compiles `source` (named `name` in the log) with `options` (an architecture and any
/// `-D`/`-std` the caller adds) against the device API's headers.
///
/// # Errors
/// `Compile` with the compiler's log when the source does not compile; `UserSource` when it
/// holds a NUL byte or exports no kernel; `Device` when a compiler call fails otherwise.
pub fn compile<A: RtcApi>(name: &str, source: &str, options: &[String]) -> Result<Compiled> {
    let kernels = device::exported_kernels(source);
    if kernels.is_empty() {
        return Err(WavekitError::UserSource {
            file: name.to_string(),
            line: 0,
            message: "no WK_EXPORT_KERNEL(name) line: a runtime-compiled kernel is found by it"
                .into(),
        });
    }
    let fail = |call: &str, code: i32| WavekitError::Device {
        backend: A::COMPILER,
        call: call.to_string(),
        message: A::error_string(code),
    };
    let src = c_string(name, source)?;
    let cname = c_string(name, name)?;
    // Each header under each name its includers spell.
    let mut texts = Vec::new();
    let mut names = Vec::new();
    for h in device::headers() {
        for n in device::include_names(h) {
            texts.push(c_string(h.name, h.text)?);
            names.push(c_string(h.name, n)?);
        }
    }
    let text_ptrs: Vec<*const c_char> = texts.iter().map(|c| c.as_ptr()).collect();
    let name_ptrs: Vec<*const c_char> = names.iter().map(|c| c.as_ptr()).collect();
    let mut raw = std::mem::MaybeUninit::<A::Program>::uninit();
    // SAFETY: NUL-terminated strings and arrays of `count` of them, alive for the call (the
    // compiler copies them).
    let code = unsafe {
        A::create(
            raw.as_mut_ptr(),
            src.as_ptr(),
            cname.as_ptr(),
            text_ptrs.len() as i32,
            text_ptrs.as_ptr(),
            name_ptrs.as_ptr(),
        )
    };
    if code != 0 {
        return Err(fail("CreateProgram", code));
    }
    // SAFETY: `create` succeeded, so it wrote the handle.
    let program = Program::<A>(unsafe { raw.assume_init() });
    let exprs: Vec<CString> = kernels
        .iter()
        .map(|k| c_string(name, &format!("&{}::{k}", A::NAMESPACE)))
        .collect::<Result<_>>()?;
    for e in &exprs {
        // SAFETY: a live program and a NUL-terminated expression.
        let code = unsafe { A::add_name_expression(program.0, e.as_ptr()) };
        if code != 0 {
            return Err(fail("AddNameExpression", code));
        }
    }
    let opts: Vec<CString> = options
        .iter()
        .map(|o| c_string("a compile option", o))
        .collect::<Result<_>>()?;
    let opt_ptrs: Vec<*const c_char> = opts.iter().map(|c| c.as_ptr()).collect();
    // SAFETY: a live program and `count` NUL-terminated options.
    let compiled = unsafe { A::compile(program.0, opt_ptrs.len() as i32, opt_ptrs.as_ptr()) };
    let log = read::<A>(&program, A::log_size, A::log).unwrap_or_default();
    let log = String::from_utf8_lossy(&log)
        .trim_end_matches('\0')
        .trim_end()
        .to_string();
    if compiled != 0 {
        return Err(WavekitError::Compile {
            compiler: A::COMPILER.to_string(),
            source_name: name.to_string(),
            log: if log.is_empty() {
                A::error_string(compiled)
            } else {
                log
            },
        });
    }
    let mut code = read::<A>(&program, A::code_size, A::code).map_err(|c| fail("GetCode", c))?;
    if A::COMPILER == "nvrtc" {
        // PTX is text ending in a NUL the module loader adds back.
        while code.last() == Some(&0) {
            code.pop();
        }
    }
    let mut symbols = Vec::with_capacity(kernels.len());
    for (k, e) in kernels.into_iter().zip(&exprs) {
        let mut out: *const c_char = std::ptr::null();
        // SAFETY: a compiled program, an expression added before compiling, and an out-pointer
        // the compiler sets to a string it owns until the program is destroyed.
        let code = unsafe { A::lowered_name(program.0, e.as_ptr(), &mut out) };
        if code != 0 || out.is_null() {
            return Err(fail("GetLoweredName", code));
        }
        // SAFETY: as above: NUL-terminated, alive until `program` drops, copied now.
        let s = unsafe { std::ffi::CStr::from_ptr(out) }
            .to_string_lossy()
            .into_owned();
        symbols.push((k, s));
    }
    Ok(Compiled {
        code,
        log,
        kernels: symbols,
    })
}

type SizeFn<P> = unsafe fn(P, *mut usize) -> i32;
type ReadFn<P> = unsafe fn(P, *mut c_char) -> i32;

/// A sized output of the program (its log, its code).
fn read<A: RtcApi>(
    program: &Program<A>,
    size: SizeFn<A::Program>,
    get: ReadFn<A::Program>,
) -> std::result::Result<Vec<u8>, i32> {
    let mut n = 0usize;
    // SAFETY: a live program and an out-pointer.
    let code = unsafe { size(program.0, &mut n) };
    if code != 0 {
        return Err(code);
    }
    let mut buf = vec![0u8; n];
    if n == 0 {
        return Ok(buf);
    }
    // SAFETY: `buf` holds the `n` bytes the compiler said it writes.
    let code = unsafe { get(program.0, buf.as_mut_ptr().cast()) };
    if code != 0 {
        return Err(code);
    }
    Ok(buf)
}

/// What a compiled kernel may be launched with on its device.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Limits {
    /// Threads of one block (the kernel's own limit: registers can lower the device's).
    pub threads: u32,
    /// Each block dimension.
    pub block: [u32; 3],
    /// Each grid dimension.
    pub grid: [u32; 3],
    /// Dynamic shared memory of one block, bytes.
    pub dynamic_shared: u64,
}

/// Checks a launch of `kernel` against `limits` before anything is queued.
///
/// ```
/// use wavekit_gpu::rtc::{Limits, check_launch};
/// let l = Limits { threads: 1024, block: [1024, 1024, 64], grid: [1 << 31, 65535, 65535], dynamic_shared: 49152 };
/// assert!(check_launch("k", &l, [4, 1, 1], [256, 1, 1], 0).is_ok());
/// assert!(check_launch("k", &l, [4, 1, 1], [2048, 1, 1], 0).is_err());
/// ```
///
/// # Errors
/// `LaunchBounds` naming the first part of the launch outside its limit: a zero or too large
/// dimension, more threads than the kernel allows, more dynamic shared memory than it may have.
pub fn check_launch(
    kernel: &str,
    limits: &Limits,
    grid: [u32; 3],
    block: [u32; 3],
    dynamic_shared: u64,
) -> Result<()> {
    let bounds = |what: &'static str, got: u64, min: u64, limit: u64| {
        if (min..=limit).contains(&got) {
            Ok(())
        } else {
            Err(WavekitError::LaunchBounds {
                kernel: kernel.to_string(),
                what,
                got,
                min,
                limit,
            })
        }
    };
    const BLOCK: [&str; 3] = [
        "block dimension x",
        "block dimension y",
        "block dimension z",
    ];
    const GRID: [&str; 3] = ["grid dimension x", "grid dimension y", "grid dimension z"];
    for i in 0..3 {
        bounds(BLOCK[i], block[i].into(), 1, limits.block[i].into())?;
        bounds(GRID[i], grid[i].into(), 1, limits.grid[i].into())?;
    }
    let threads: u64 = block.iter().map(|&d| u64::from(d)).product();
    bounds("threads per block", threads, 1, limits.threads.into())?;
    bounds(
        "dynamic shared memory (bytes)",
        dynamic_shared,
        0,
        limits.dynamic_shared,
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    const L: Limits = Limits {
        threads: 768,
        block: [1024, 1024, 64],
        grid: [1 << 31, 65535, 65535],
        dynamic_shared: 48 << 10,
    };

    fn what(r: Result<()>) -> (&'static str, u64) {
        match r {
            Err(WavekitError::LaunchBounds { what, got, .. }) => (what, got),
            other => panic!("expected LaunchBounds, got {other:?}"),
        }
    }

    #[test]
    fn each_part_of_a_launch_is_checked() {
        assert!(check_launch("k", &L, [1, 1, 1], [768, 1, 1], 48 << 10).is_ok());
        // The kernel's own thread limit, below the block dimension's.
        assert_eq!(
            what(check_launch("k", &L, [1, 1, 1], [1024, 1, 1], 0)),
            ("threads per block", 1024)
        );
        assert_eq!(
            what(check_launch("k", &L, [1, 1, 1], [32, 2, 16], 0)),
            ("threads per block", 1024)
        );
        assert_eq!(
            what(check_launch("k", &L, [1, 1, 1], [0, 1, 1], 0)),
            ("block dimension x", 0)
        );
        assert_eq!(
            what(check_launch("k", &L, [1, 1, 1], [1, 1, 65], 0)),
            ("block dimension z", 65)
        );
        assert_eq!(
            what(check_launch("k", &L, [1, 0, 1], [32, 1, 1], 0)),
            ("grid dimension y", 0)
        );
        assert_eq!(
            what(check_launch("k", &L, [1, 1, 65536], [32, 1, 1], 0)),
            ("grid dimension z", 65536)
        );
        assert_eq!(
            what(check_launch("k", &L, [1, 1, 1], [32, 1, 1], (48 << 10) + 1)),
            ("dynamic shared memory (bytes)", (48 << 10) + 1)
        );
    }
}

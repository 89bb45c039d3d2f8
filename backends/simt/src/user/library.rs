//! A shared library of user kernels, loaded into the running program: what
//! `wavekit_kernels::plain::shared_object` builds from a plain CUDA or HIP file. Its kernels call
//! the executor (and the compiler's instrumentation calls its hooks) through the program's own
//! symbols, so the program must export them: link it with `-rdynamic` (the `wavekit` binary
//! does; a test target, `cargo:rustc-link-arg-tests=-rdynamic` from its build script).

use super::{Kernel, RawKernel, device_error};
use std::ffi::{CStr, CString, c_char, c_int, c_void};
use std::path::Path;
use wavekit_core::error::Result;

unsafe extern "C" {
    fn dlopen(file: *const c_char, mode: c_int) -> *mut c_void;
    fn dlsym(handle: *mut c_void, name: *const c_char) -> *mut c_void;
    fn dlerror() -> *const c_char;
}
const RTLD_NOW: c_int = 2;

fn dl_error() -> String {
    // SAFETY: dlerror returns null or a NUL-terminated message.
    let e = unsafe { dlerror() };
    if e.is_null() {
        "unknown error".into()
    } else {
        // SAFETY: as above.
        unsafe { CStr::from_ptr(e) }.to_string_lossy().into_owned()
    }
}

/// A loaded library of user kernels. It is never unloaded: its kernels' descriptors and code
/// live as long as the program.
#[derive(Debug)]
pub struct Library {
    handle: *mut c_void,
    path: String,
}

// SAFETY: the handle is only used for dlsym, which is thread-safe; the library stays loaded.
unsafe impl Send for Library {}
// SAFETY: as above.
unsafe impl Sync for Library {}

impl Library {
    /// Loads the library at `path`, resolving every symbol now: a library that needs one the
    /// program does not export fails here, naming it.
    ///
    /// # Safety
    /// The library is a build of user kernels for this program's executor (its initialisers
    /// run now); loading anything else runs whatever it holds.
    pub unsafe fn open(path: &Path) -> Result<Library> {
        let shown = path.display().to_string();
        let c = CString::new(path.as_os_str().as_encoded_bytes())
            .map_err(|e| device_error("dlopen", format!("{shown}: {e}")))?;
        // SAFETY: the caller vouches for the library.
        let handle = unsafe { dlopen(c.as_ptr(), RTLD_NOW) };
        if handle.is_null() {
            return Err(device_error(
                "dlopen",
                format!(
                    "cannot load {shown}: {} (the program must export the executor's symbols: \
                     link it with -rdynamic)",
                    dl_error()
                ),
            ));
        }
        Ok(Library {
            handle,
            path: shown,
        })
    }

    /// The kernel whose descriptor is the symbol `symbol` (`wavekit_kernels::plain::symbol(i)`).
    pub fn kernel(&self, symbol: &str) -> Result<Kernel> {
        let c = CString::new(symbol).map_err(|e| device_error("dlsym", e.to_string()))?;
        // SAFETY: a lookup in a live handle.
        let raw = unsafe { dlsym(self.handle, c.as_ptr()) } as *const RawKernel;
        if raw.is_null() {
            return Err(device_error(
                "dlsym",
                format!("{} exports no kernel descriptor {symbol}", self.path),
            ));
        }
        // SAFETY: the symbol is a wk_kernel_desc the build defined, in a library that is never
        // unloaded.
        unsafe { Kernel::from_raw(&*raw) }
    }
}

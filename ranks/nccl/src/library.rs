//! NCCL (or RCCL: the same C API) loaded at run time, so a binary built with `nccl` runs, and
//! fails with a typed error, on a machine without it.
//!
//! Why our own loader rather than cudarc's `nccl` module: cudarc looks for `libnccl.so` and
//! `libnccl.so.<CUDA major>`, while the NCCL wheel (nvidia-nccl-cu13, pinned in
//! scripts/setup-cuda.sh) and the distributions ship `libnccl.so.2`; cudarc also panics when
//! the library is missing. Search order, first found wins:
//! 1. `$WAVEKIT_NCCL_LIB` (a full path);
//! 2. the dynamic loader's own search (`LD_LIBRARY_PATH`, the system) for `libnccl.so.2`, then
//!    `libnccl.so` (RCCL: `librccl.so.1`, `librccl.so`);
//! 3. the wheel: `nvidia/nccl/lib/libnccl.so.2` under `$VIRTUAL_ENV`'s site-packages, then
//!    under `$WAVEKIT_CUDA_VENV`'s as it is at run time and as it was at build time (the
//!    repository's .cargo/config.toml names its `.venv-cuda/`, where scripts/setup-cuda.sh puts
//!    the wheel).

use super::ffi::{Comm, DataType, RedOp, UniqueId};
use std::ffi::{c_char, c_int, c_void};
use std::path::PathBuf;
use std::sync::OnceLock;
use wavekit_core::{Result, WavekitError};

pub(crate) type Code = c_int;
type Stream = *mut c_void;
/// `ncclAllReduce` and `ncclReduceScatter`: (send, recv, count, type, op, comm, stream).
type ReduceFn =
    unsafe extern "C" fn(*const c_void, *mut c_void, usize, DataType, RedOp, Comm, Stream) -> Code;

/// Which library: NCCL for CUDA, RCCL for HIP.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Vendor {
    /// NVIDIA's NCCL (`libnccl.so.2`), over the CUDA backend.
    Nccl,
    /// AMD's RCCL (`librccl.so.1`), over the HIP backend.
    Rccl,
}

impl Vendor {
    /// `"nccl"` or `"rccl"`.
    pub fn name(self) -> &'static str {
        match self {
            Vendor::Nccl => "nccl",
            Vendor::Rccl => "rccl",
        }
    }

    fn sonames(self) -> [&'static str; 2] {
        match self {
            Vendor::Nccl => ["libnccl.so.2", "libnccl.so"],
            Vendor::Rccl => ["librccl.so.1", "librccl.so"],
        }
    }

    /// Where pip wheels put the library, relative to a site-packages directory.
    fn wheel_path(self) -> &'static str {
        match self {
            Vendor::Nccl => "nvidia/nccl/lib/libnccl.so.2",
            Vendor::Rccl => "rccl/lib/librccl.so.1",
        }
    }
}

/// The entry points wavekit uses, resolved once.
pub(crate) struct Library {
    pub vendor: Vendor,
    pub path: String,
    _lib: libloading::Library,
    pub get_version: unsafe extern "C" fn(*mut c_int) -> Code,
    pub get_unique_id: unsafe extern "C" fn(*mut UniqueId) -> Code,
    pub comm_init_rank: unsafe extern "C" fn(*mut Comm, c_int, UniqueId, c_int) -> Code,
    pub comm_init_all: unsafe extern "C" fn(*mut Comm, c_int, *const c_int) -> Code,
    pub comm_split: unsafe extern "C" fn(Comm, c_int, c_int, *mut Comm, *mut c_void) -> Code,
    pub comm_destroy: unsafe extern "C" fn(Comm) -> Code,
    pub comm_abort: unsafe extern "C" fn(Comm) -> Code,
    pub get_error_string: unsafe extern "C" fn(Code) -> *const c_char,
    pub get_last_error: unsafe extern "C" fn(Comm) -> *const c_char,
    pub all_reduce: ReduceFn,
    pub all_gather:
        unsafe extern "C" fn(*const c_void, *mut c_void, usize, DataType, Comm, Stream) -> Code,
    pub reduce_scatter: ReduceFn,
    /// `ncclSend`: (send, count, type, peer, comm, stream).
    pub send: unsafe extern "C" fn(*const c_void, usize, DataType, c_int, Comm, Stream) -> Code,
    /// `ncclRecv`: (recv, count, type, peer, comm, stream).
    pub recv: unsafe extern "C" fn(*mut c_void, usize, DataType, c_int, Comm, Stream) -> Code,
    pub group_start: unsafe extern "C" fn() -> Code,
    pub group_end: unsafe extern "C" fn() -> Code,
}

/// Candidate paths, in search order.
fn candidates(vendor: Vendor) -> Vec<PathBuf> {
    let mut out = Vec::new();
    if let Some(p) = std::env::var_os("WAVEKIT_NCCL_LIB") {
        out.push(PathBuf::from(p));
    }
    out.extend(vendor.sonames().map(PathBuf::from));
    let envs: Vec<PathBuf> = ["VIRTUAL_ENV", "WAVEKIT_CUDA_VENV"]
        .iter()
        .filter_map(std::env::var_os)
        .map(PathBuf::from)
        .chain(option_env!("WAVEKIT_CUDA_VENV").map(PathBuf::from))
        .collect();
    for env in envs {
        let Ok(dirs) = std::fs::read_dir(env.join("lib")) else {
            continue;
        };
        for d in dirs.flatten() {
            out.push(d.path().join("site-packages").join(vendor.wheel_path()));
        }
    }
    out
}

macro_rules! sym {
    ($lib:expr, $path:expr, $name:literal) => {
        // SAFETY: the symbol is NCCL's public C function of this name; the field's type is its
        // prototype from nccl.h (NCCL 2.18 and later, RCCL the same).
        *unsafe { $lib.get($name) }.map_err(|e| WavekitError::Device {
            backend: "nccl",
            call: format!(
                "dlsym {}",
                String::from_utf8_lossy(&$name[..$name.len() - 1])
            ),
            message: format!("{}: {e}", $path),
        })?
    };
}

impl Library {
    fn open(vendor: Vendor) -> Result<Library> {
        let tried = candidates(vendor);
        let mut errors = Vec::new();
        for path in &tried {
            // SAFETY: loading NCCL runs its initialisers, which have no preconditions.
            match unsafe { libloading::Library::new(path) } {
                Ok(lib) => return Library::resolve(vendor, path.display().to_string(), lib),
                Err(e) => errors.push(format!("{}: {e}", path.display())),
            }
        }
        Err(WavekitError::NoDevice {
            backend: vendor.name(),
            reason: format!(
                "the {} library was not found (run scripts/setup-cuda.sh, or set \
                 WAVEKIT_NCCL_LIB to its path); tried {}",
                vendor.name(),
                errors.join("; ")
            ),
        })
    }

    fn resolve(vendor: Vendor, path: String, lib: libloading::Library) -> Result<Library> {
        Ok(Library {
            vendor,
            get_version: sym!(lib, path, b"ncclGetVersion\0"),
            get_unique_id: sym!(lib, path, b"ncclGetUniqueId\0"),
            comm_init_rank: sym!(lib, path, b"ncclCommInitRank\0"),
            comm_init_all: sym!(lib, path, b"ncclCommInitAll\0"),
            comm_split: sym!(lib, path, b"ncclCommSplit\0"),
            comm_destroy: sym!(lib, path, b"ncclCommDestroy\0"),
            comm_abort: sym!(lib, path, b"ncclCommAbort\0"),
            get_error_string: sym!(lib, path, b"ncclGetErrorString\0"),
            get_last_error: sym!(lib, path, b"ncclGetLastError\0"),
            all_reduce: sym!(lib, path, b"ncclAllReduce\0"),
            all_gather: sym!(lib, path, b"ncclAllGather\0"),
            reduce_scatter: sym!(lib, path, b"ncclReduceScatter\0"),
            send: sym!(lib, path, b"ncclSend\0"),
            recv: sym!(lib, path, b"ncclRecv\0"),
            group_start: sym!(lib, path, b"ncclGroupStart\0"),
            group_end: sym!(lib, path, b"ncclGroupEnd\0"),
            path,
            _lib: lib,
        })
    }

    /// The process-wide library of this vendor, loaded on first use.
    pub(crate) fn get(vendor: Vendor) -> Result<&'static Library> {
        static NCCL: OnceLock<std::result::Result<Library, WavekitError>> = OnceLock::new();
        static RCCL: OnceLock<std::result::Result<Library, WavekitError>> = OnceLock::new();
        let cell = match vendor {
            Vendor::Nccl => &NCCL,
            Vendor::Rccl => &RCCL,
        };
        cell.get_or_init(|| Library::open(vendor))
            .as_ref()
            .map_err(Clone::clone)
    }

    /// `ncclSuccess` as `Ok`; any other code as a `Device` error naming the call, with NCCL's
    /// own message and, when a communicator is known, its last error.
    pub(crate) fn check(&self, code: Code, call: &str, comm: Option<Comm>) -> Result<()> {
        if code == 0 {
            return Ok(());
        }
        let text = |p: *const c_char| {
            if p.is_null() {
                String::new()
            } else {
                // SAFETY: NCCL returns NUL-terminated static or per-thread strings.
                unsafe { std::ffi::CStr::from_ptr(p) }
                    .to_string_lossy()
                    .into_owned()
            }
        };
        // SAFETY: ncclGetErrorString takes any code and returns a static string (or null).
        let mut message = text(unsafe { (self.get_error_string)(code) });
        if let Some(c) = comm {
            // SAFETY: `c` is a communicator this transport created and has not destroyed (the
            // caller's `comm`); ncclGetLastError returns a string it keeps (or null).
            let last = text(unsafe { (self.get_last_error)(c) });
            if !last.is_empty() {
                message = format!("{message}: {last}");
            }
        }
        Err(WavekitError::Device {
            backend: self.vendor.name(),
            call: call.to_string(),
            message: format!("{} (code {code})", message),
        })
    }

    /// NCCL's version as `major.minor.patch`.
    pub fn version(&self) -> Result<String> {
        let mut v: c_int = 0;
        self.check(
            // SAFETY: writes one int.
            unsafe { (self.get_version)(&mut v) },
            "ncclGetVersion",
            None,
        )?;
        Ok(format!("{}.{}.{}", v / 10000, (v / 100) % 100, v % 100))
    }
}

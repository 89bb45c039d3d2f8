//! wavekit's device API (csrc/wavekit.h and the layer under it) as text, for kernels compiled at
//! run time: NVRTC and hipRTC take headers by name and content, so a user's source can
//! `#include <wavekit.h>` with no file on disk. `wavekit::cuda::rtc` and `wavekit::hip::rtc`
//! pass these to the compiler; the SIMT executor's `check_source` writes them out beside its own.
//!
//! ```
//! let names: Vec<&str> = wavekit_gpu::device::headers().iter().map(|h| h.name).collect();
//! assert!(names.contains(&"wavekit.h") && names.contains(&"wavekit/width.h"));
//! let width = wavekit_gpu::device::header("wavekit/width.h").unwrap();
//! assert!(width.text.contains("WK_WARP_SIZE"));
//! ```

/// One header: its name as an `#include` spells it from csrc/ (`wavekit.h`,
/// `wavekit/prims.h`), and its text.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Header {
    /// The path under csrc/.
    pub name: &'static str,
    /// The header's text, as in this build of wavekit.
    pub text: &'static str,
}

/// Everything `#include <wavekit.h>` reads, for CUDA and HIP builds (the SIMT executor's arch
/// layer is the simt backend's): `wavekit.h` and every file of `wavekit/`, embedded from
/// wavekit-kernels' copy by the build script (build.rs), so that none is left out.
static HEADERS: &[Header] = include!(concat!(env!("OUT_DIR"), "/device_headers.rs"));

/// The device API's headers, `wavekit.h` first.
pub fn headers() -> &'static [Header] {
    HEADERS
}

/// The header named `name` (a path under csrc/), if it is one of [`headers`].
pub fn header(name: &str) -> Option<&'static Header> {
    HEADERS.iter().find(|h| h.name == name)
}

/// The names a runtime compiler is given each header under: its path under csrc/, and for the
/// headers under `wavekit/` also the bare file name, which is how they include one another
/// (`#include "width.h"`); NVRTC and hipRTC match an include's name literally.
pub fn include_names(h: &Header) -> impl Iterator<Item = &'static str> {
    let bare = h.name.strip_prefix("wavekit/");
    std::iter::once(h.name).chain(bare)
}

/// The kernels a source exports with `WK_EXPORT_KERNEL(name)`, in order: the names the runtime
/// compile helpers and the executor's `check_source` know each kernel by. Lines inside `//`
/// comments and the macro's own definition are skipped.
///
/// ```
/// let src = "WK_KERNELS_BEGIN\n__global__ void a(int*) {}\nWK_KERNELS_END\n\
///            WK_EXPORT_KERNEL(a);\n// WK_EXPORT_KERNEL(not_this)\n";
/// assert_eq!(wavekit_gpu::device::exported_kernels(src), ["a"]);
/// ```
pub fn exported_kernels(source: &str) -> Vec<String> {
    const MACRO: &str = "WK_EXPORT_KERNEL(";
    let mut out = Vec::new();
    for line in source.lines() {
        let code = line.split("//").next().unwrap_or("").trim_start();
        if code.starts_with("#") {
            continue;
        }
        let mut rest = code;
        while let Some(at) = rest.find(MACRO) {
            let after = &rest[at + MACRO.len()..];
            let Some(end) = after.find(')') else { break };
            let name = after[..end].trim();
            if !name.is_empty() && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_') {
                out.push(name.to_string());
            }
            rest = &after[end..];
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_include_of_the_layer_is_embedded() {
        // Each `#include "x.h"` in an embedded header names another embedded one, so a runtime
        // compile never looks for a file: a header added to csrc/wavekit/ and not here fails.
        for h in headers() {
            for line in h.text.lines() {
                let Some(rest) = line.trim_start().strip_prefix("#include \"") else {
                    continue;
                };
                let inc = rest.split('"').next().unwrap();
                if inc.starts_with("simt/") {
                    continue; // the executor's layer, only in WK_VENDOR_HOST builds
                }
                let found = headers().iter().any(|o| include_names(o).any(|n| n == inc));
                assert!(found, "{} includes {inc}, which is not embedded", h.name);
            }
        }
        let layer: Vec<&str> = headers().iter().map(|h| h.name).collect();
        for name in ["wavekit.h", "wavekit/width.h", "wavekit/launchers.def"] {
            assert!(layer.contains(&name), "{name} is not embedded: {layer:?}");
        }
        assert_eq!(layer[0], "wavekit.h", "wavekit.h comes first");
    }

    #[test]
    fn exported_kernels_reads_the_export_lines() {
        let src = "#define WK_EXPORT_KERNEL(name) x\nWK_EXPORT_KERNEL(one);\n  \
                   WK_EXPORT_KERNEL( two ) WK_EXPORT_KERNEL(three)\n/* */ // WK_EXPORT_KERNEL(no)\n\
                   WK_EXPORT_KERNEL(bad name)\n";
        assert_eq!(exported_kernels(src), ["one", "two", "three"]);
        assert!(exported_kernels("").is_empty());
    }
}

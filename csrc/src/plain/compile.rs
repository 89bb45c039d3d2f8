//! The host compiler's run over a wrapper [`super::Program::write`] laid out: one object at
//! the width asked, instrumented for raw shared memory, linked into a shared library with no
//! sanitizer runtime (the executor defines the hooks).

use super::{Program, error};
use std::path::{Path, PathBuf};
use std::process::Command;
use wavekit_core::error::Result;

/// The compiler's arguments for a plain source at `width` lanes (32 or 64), besides the input
/// and output: the executor's device flags (crate::simt::DEVICE_FLAGS), ThreadSanitizer's
/// instrumentation (every load and store reported to csrc/simt/raw.cpp, no runtime), line
/// tables (the reports' lines come from them), the plain-source layer and its CUDA/HIP header
/// names on the include path, and the width's namespace. Warnings are the user's business,
/// not the executor's; a host function emptied by the rewriter returns nothing.
pub fn compiler_args(width: u32) -> Vec<String> {
    compiler_args_at(width, &crate::csrc_dir())
}

/// As [`compiler_args`], with the headers read from `csrc` (a folder laid out as csrc/), such
/// as the copy `wavekit::simt::user::SourceBuild` writes from the headers embedded in the
/// library.
pub fn compiler_args_at(width: u32, csrc: &Path) -> Vec<String> {
    let plain = csrc.join("simt").join("plain");
    let ns = format!("wk_plain{width}");
    // DWARF 4: in DWARF 5's line tables file 0 is the wrapper, and binutils' addr2line (2.40)
    // names it for the lines of the first file the wrapper includes (a helper's race was
    // reported at wrapper.cu with the helper's line).
    let mut args: Vec<String> = ["-x", "c++", "-std=c++17", "-O1", "-g1", "-gdwarf-4"]
        .iter()
        .map(|s| s.to_string())
        .collect();
    args.extend(crate::simt::DEVICE_FLAGS.iter().map(|s| s.to_string()));
    args.extend(
        ["-fsanitize=thread", "-fPIC", "-fvisibility=hidden", "-w"]
            .iter()
            .map(|s| s.to_string()),
    );
    args.extend([
        "-DWK_ARCH_HEADER=<arch_simt.h>".to_string(),
        format!("-DWK_NS={ns}"),
        format!("-DWK_LAUNCHERS_SYMBOL={ns}_launchers"),
        format!("-DWK_WARP_SIZE={width}"),
        format!("-I{}", plain.join("include").display()),
        format!("-I{}", plain.display()),
        format!("-I{}", csrc.display()),
        format!("-I{}", csrc.join("simt").display()),
    ]);
    args
}

fn cxx() -> String {
    std::env::var("CXX").unwrap_or_else(|_| "c++".to_string())
}

/// Compiles `wrapper` (from `program.write`) at `width` lanes into `dir/plain_w{width}.so`.
/// A build that fails is the user's source error, with the compiler's first lines.
pub fn shared_object(program: &Program, wrapper: &Path, width: u32, dir: &Path) -> Result<PathBuf> {
    shared_object_at(program, wrapper, width, dir, &crate::csrc_dir())
}

/// As [`shared_object`], with the headers read from `csrc` (see [`compiler_args_at`]).
pub fn shared_object_at(
    program: &Program,
    wrapper: &Path,
    width: u32,
    dir: &Path,
    csrc: &Path,
) -> Result<PathBuf> {
    let obj = dir.join(format!("plain_w{width}.o"));
    let so = dir.join(format!("plain_w{width}.so"));
    let main_dir = program.path().parent().unwrap_or(Path::new("/"));
    // The rewritten copies of the include folders first, then the folders themselves (for
    // what the rewriter did not read).
    let written = wrapper.parent().unwrap_or(Path::new("."));
    let mut includes = Vec::new();
    for (k, d) in program.include_dirs.iter().enumerate() {
        includes.push(format!("-I{}", super::include_copy(written, k).display()));
        includes.push(format!("-I{}", d.display()));
    }
    let cxx = cxx();
    let compile = Command::new(&cxx)
        .args(compiler_args_at(width, csrc))
        .args(&includes)
        .arg(format!("-iquote{}", main_dir.display()))
        .arg("-c")
        .arg(wrapper)
        .arg("-o")
        .arg(&obj)
        .output()
        .map_err(|e| error(program.display(), 0, format!("cannot run {cxx}: {e}")))?;
    if !compile.status.success() {
        let text = String::from_utf8_lossy(&compile.stderr)
            .replace(&program.path().display().to_string(), program.display());
        // No message may point at the generated wrapper: an export that does not build names
        // a kernel the compiler does not see, which an `#if` the reader could not decide (or a
        // macro defining the kernel) leaves out.
        let wrapper_name = wrapper.display().to_string();
        let generated =
            |l: &str| l.contains("<wavekit check: exports>") || l.contains(&wrapper_name);
        if text.lines().any(|l| generated(l) && l.contains("error")) {
            let user: Vec<&str> = text
                .lines()
                .filter(|l| !generated(l) && l.contains("error"))
                .take(20)
                .collect();
            return Err(error(
                program.display(),
                first_error_line(&text, program.display()),
                format!(
                    "a kernel asked for is not there as the compiler sees the file at {width} \
                     lanes (preprocessed as {}): an `#if` the reader could not decide, or a \
                     macro, leaves it out{}{}",
                    program.toolchain().describe(program.hip),
                    if user.is_empty() { "" } else { ":\n" },
                    user.join("\n")
                ),
            ));
        }
        return Err(error(
            program.display(),
            first_error_line(&text, program.display()),
            format!(
                "does not build for the executor at {width} lanes:\n{}",
                text.lines().take(40).collect::<Vec<_>>().join("\n")
            ),
        ));
    }
    // Linked without -fsanitize: the hooks are the executor's, in the program that loads it.
    let link = Command::new(&cxx)
        .args(["-shared", "-o"])
        .arg(&so)
        .arg(&obj)
        .output()
        .map_err(|e| error(program.display(), 0, format!("cannot run {cxx}: {e}")))?;
    if !link.status.success() {
        return Err(error(
            program.display(),
            0,
            format!(
                "does not link for the executor at {width} lanes:\n{}",
                String::from_utf8_lossy(&link.stderr)
            ),
        ));
    }
    Ok(so)
}

/// The line of the first `FILE:LINE:COL: error` in the compiler's output about `file`.
fn first_error_line(text: &str, file: &str) -> u32 {
    text.lines()
        .filter(|l| l.contains("error"))
        .find_map(|l| {
            let rest = l.strip_prefix(file)?.strip_prefix(':')?;
            rest.split(':').next()?.parse().ok()
        })
        .unwrap_or(0)
}

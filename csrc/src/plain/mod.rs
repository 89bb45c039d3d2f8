//! Plain CUDA and HIP, as people have it, for the SIMT executor: what `wavekit check FILE.cu
//! --kernel NAME` runs. No macro, export line or rename in the user's file: [`Program::read`]
//! reads it (and the local headers it includes), finds its kernels and structs, and rewrites
//! it line for line where C++ cannot take it (its `__shared__` declarations, its host-only
//! function bodies), refusing what the executor cannot model (inline assembly, textures,
//! tensor cores, dynamic parallelism) with the construct and its line. [`Program::write`]
//! lays out a wrapper that includes csrc/simt/plain/wavekit_plain.h (CUDA's and HIP's
//! spellings on the executor), the rewritten file, and an export for each kernel asked for,
//! built from the kernel's own signature; [`shared_object`] compiles it at 32 or 64 lanes
//! into a shared library whose kernels `wavekit::simt::user::Library` loads, each descriptor
//! named [`symbol`]`(i)`.
//!
//! ```no_run
//! use wavekit_kernels::plain::{self, Program};
//! let p = Program::read("reduce.cu".as_ref())?;
//! let kernel = p.resolve("reduce<float, 256>")?;
//! let dir = std::path::Path::new("target/plain");
//! let wrapper = p.write(dir, &[kernel])?;
//! let so = plain::shared_object(&p, &wrapper, 64, dir)?;
//! # Ok::<(), wavekit_core::error::WavekitError>(())
//! ```

mod compile;
pub mod cond;
pub mod lex;
mod reach;
mod rewrite;
pub mod scan;
#[cfg(test)]
mod tests;
mod unsupported;

pub use compile::{compiler_args, compiler_args_at, shared_object, shared_object_at};
pub use cond::Toolchain;
pub use scan::{KernelDecl, StructDecl};

use std::collections::HashSet;
use std::fmt::Write as _;
use std::path::{Component, Path, PathBuf};
use wavekit_core::error::{Result, WavekitError};

/// The descriptor of the `i`-th kernel [`Program::write`] exports.
pub fn symbol(i: usize) -> String {
    format!("wk_plain_kernel_{i}")
}

/// One file of a program: its path, scan and rewritten text.
#[derive(Clone, Debug)]
struct File {
    /// Absolute.
    path: PathBuf,
    /// Relative to the main file's folder (may start with `..`).
    rel: PathBuf,
    scan: scan::Scan,
    /// Its text as read.
    src: String,
    /// How it is shown in messages: the main file as the caller named it, a header by its path.
    shown: String,
}

/// A user's source file and the local headers it includes, read and rewritten.
#[derive(Clone, Debug)]
pub struct Program {
    /// The file as the caller named it, for messages.
    display: String,
    files: Vec<File>,
    /// The program's include folders (`-I`), absolute.
    include_dirs: Vec<PathBuf>,
    /// The compiler it is read and built as.
    toolchain: Toolchain,
    /// Whether the main file is HIP (its headers or spellings): hipcc's macros, not nvcc's.
    hip: bool,
    /// Built for a cooperative launch: `grid.sync()` runs instead of being refused.
    cooperative: bool,
}

fn error(file: &str, line: u32, message: impl Into<String>) -> WavekitError {
    WavekitError::UserSource {
        file: file.to_string(),
        line,
        message: message.into(),
    }
}

/// A source file's bytes as the text the scanner reads, line for line the same. Published
/// sources are not all UTF-8 (AMD's and NVIDIA's older samples carry a Latin-1 `©` in their
/// license comment): a byte that is not UTF-8 becomes U+FFFD (in those files, inside comments).
/// Windows line ends become `\n` (a backslash before `\r\n` continues a directive for the
/// compiler as before `\n`), so that the lexer, the `#if` reader and the rewriter see one kind
/// of line end.
fn source_text(bytes: Vec<u8>) -> String {
    let text = match String::from_utf8(bytes) {
        Ok(t) => t,
        Err(e) => String::from_utf8_lossy(e.as_bytes()).into_owned(),
    };
    if text.contains("\r\n") {
        text.replace("\r\n", "\n")
    } else {
        text
    }
}

/// `p` relative to the folder `base` (both absolute), with `..` where it lies outside.
fn relative(p: &Path, base: &Path) -> PathBuf {
    let pc: Vec<Component> = p.components().collect();
    let bc: Vec<Component> = base.components().collect();
    let common = pc.iter().zip(&bc).take_while(|(a, b)| a == b).count();
    let mut out = PathBuf::new();
    for _ in common..bc.len() {
        out.push("..");
    }
    for c in &pc[common..] {
        out.push(c);
    }
    out
}

impl Program {
    /// Reads `path` and the headers it includes with `#include "..."` (where they exist beside
    /// their includer), scans and rewrites them. An error names the first construct the
    /// executor cannot model, with its file and line.
    pub fn read(path: &Path) -> Result<Program> {
        Self::read_with(path, &[])
    }

    /// As [`read`](Self::read), with the program's include folders (a compiler's `-I`): the
    /// headers found there (`#include <...>`, or `"..."` not beside its includer) are read
    /// and rewritten too, and [`shared_object`] searches them.
    pub fn read_with(path: &Path, include_dirs: &[PathBuf]) -> Result<Program> {
        Self::read_as(path, include_dirs, &Toolchain::default())
    }

    /// As [`read_with`](Self::read_with), read and built with `toolchain`'s predefined macros
    /// (nvcc's for a CUDA file, hipcc's for a HIP one): the kernels an `#if` drops are not
    /// found, as the compiler does not see them.
    pub fn read_as(
        path: &Path,
        include_dirs: &[PathBuf],
        toolchain: &Toolchain,
    ) -> Result<Program> {
        let display = path.display().to_string();
        let include_dirs = include_dirs
            .iter()
            .map(|d| {
                d.canonicalize()
                    .map_err(|e| error(&display, 0, format!("include folder {}: {e}", d.display())))
            })
            .collect::<Result<Vec<_>>>()?;
        let main = path
            .canonicalize()
            .map_err(|e| error(&display, 0, format!("cannot read it: {e}")))?;
        let base = main.parent().unwrap_or(Path::new("/")).to_path_buf();
        let mut files: Vec<File> = Vec::new();
        let mut macros = Vec::new();
        let mut hip = false;
        let mut seen = HashSet::new();
        // Each file to read, with the macros its includer had defined where it included it
        // (None: the main file, read with the toolchain's).
        let mut todo: Vec<(PathBuf, Option<cond::Macros>)> = vec![(main, None)];
        while let Some((p, inherited)) = todo.pop() {
            if !seen.insert(p.clone()) {
                continue;
            }
            let shown = if files.is_empty() {
                display.clone()
            } else {
                p.display().to_string()
            };
            let src = std::fs::read(&p)
                .map(source_text)
                .map_err(|e| error(&shown, 0, format!("cannot read it: {e}")))?;
            let toks = lex::tokens(&src);
            let all = scan::scan(&src, &toks);
            if files.is_empty() {
                hip = all.hip;
                macros = toolchain.macros(hip, None);
            }
            let (active, at_includes) =
                cond::active_and_includes(&src, &toks, inherited.as_deref().unwrap_or(&macros));
            let mut scan = scan::scan_active(&src, &toks, &active);
            scan.hidden = all
                .kernels
                .into_iter()
                .filter(|k| !scan.kernels.iter().any(|a| a.name == k.name))
                .collect();
            let dir = p.parent().unwrap_or(Path::new("/"));
            let found = |inc: &str, beside: bool| {
                let here = beside.then(|| dir.join(inc));
                here.into_iter()
                    .chain(include_dirs.iter().map(|d| d.join(inc)))
                    .find_map(|h| h.canonicalize().ok().filter(|h| h.is_file()))
            };
            let defined_at = |line: u32| {
                at_includes
                    .iter()
                    .find(|(l, _)| *l == line)
                    .map(|(_, m)| m.clone())
            };
            for (inc, line) in &scan.includes {
                todo.extend(found(inc, true).map(|h| (h, defined_at(*line))));
            }
            let absent: Vec<(usize, usize)> = scan
                .vendor_quoted
                .iter()
                .filter(|(inc, _)| found(inc, true).is_none())
                .map(|&(_, span)| span)
                .collect();
            scan.vendor_includes.extend(absent);
            for (inc, line) in &scan.system_includes {
                todo.extend(found(inc, false).map(|h| (h, defined_at(*line))));
            }
            files.push(File {
                rel: relative(&p, &base),
                path: p,
                scan,
                src,
                shown,
            });
        }
        Ok(Program {
            display,
            files,
            include_dirs,
            toolchain: toolchain.clone(),
            hip,
            cooperative: false,
        })
    }

    /// Builds the program for a cooperative launch (`on`), as `cudaLaunchCooperativeKernel`
    /// launches a kernel: its `grid.sync()` calls then run, as the executor's barrier across
    /// the grid, instead of being refused by [`write`](Self::write). Its kernels must then be
    /// launched under a cooperative session (`wavekit::simt::Session::set_cooperative`); in
    /// another, a `grid.sync()` reached abandons the launch.
    pub fn set_cooperative(&mut self, on: bool) {
        self.cooperative = on;
    }

    /// Whether it is built for a cooperative launch.
    pub fn is_cooperative(&self) -> bool {
        self.cooperative
    }

    /// The toolchain it is read and built as.
    pub fn toolchain(&self) -> &Toolchain {
        &self.toolchain
    }

    /// The file as the caller named it.
    pub fn display(&self) -> &str {
        &self.display
    }

    /// Its absolute path, as reports name it.
    pub fn path(&self) -> &Path {
        &self.files[0].path
    }

    /// The kernels of the file and its headers.
    pub fn kernels(&self) -> impl Iterator<Item = &KernelDecl> {
        self.files.iter().flat_map(|f| &f.scan.kernels)
    }

    /// Whether the program is written in HIP (its headers or spellings): AMD's lockstep
    /// wave is then the schedule it was written for, at either width.
    pub fn is_hip(&self) -> bool {
        self.files.iter().any(|f| f.scan.hip)
    }

    /// Whether the program declares dynamic shared memory, which a launch must size.
    pub fn dynamic_shared(&self) -> bool {
        self.files.iter().any(|f| f.scan.dynamic_shared)
    }

    /// The kernel `request` names (`NAME`, `NAME<ARGS>` for a template, either qualified with
    /// its namespaces), as a C++ expression the wrapper can take the address of.
    pub fn resolve(&self, request: &str) -> Result<String> {
        let request = request.trim();
        let (base, args) = match request.find('<') {
            Some(k) => (request[..k].trim(), request[k..].trim()),
            None => (request, ""),
        };
        let parts: Vec<&str> = base
            .trim_start_matches("::")
            .split("::")
            .map(str::trim)
            .collect();
        let (name, qual) = parts.split_last().expect("split yields one part at least");
        let found: Vec<&KernelDecl> = self
            .kernels()
            .filter(|k| {
                k.name == *name
                    && k.scope
                        .ends_with(&qual.iter().map(|q| q.to_string()).collect::<Vec<_>>())
            })
            .collect();
        let listing = || {
            let all: Vec<String> = self.kernels().map(describe).collect();
            if all.is_empty() {
                "it defines no __global__ function".to_string()
            } else {
                format!("its kernels: {}", all.join(", "))
            }
        };
        let k = match found.as_slice() {
            [] => {
                let hidden = self.files.iter().find_map(|f| {
                    f.scan
                        .hidden
                        .iter()
                        .find(|k| k.name == *name)
                        .map(|k| (f, k))
                });
                if let Some((f, k)) = hidden {
                    return Err(error(
                        &f.shown,
                        k.line,
                        format!(
                            "`{base}` is not there after preprocessing: an `#if` around it is \
                             false for {} (the device pass); pick another toolchain with \
                             --cuda-version, --cuda-arch or --hip-version; {}",
                            self.toolchain.describe(self.hip),
                            listing()
                        ),
                    ));
                }
                return Err(error(
                    &self.display,
                    0,
                    format!("no __global__ function `{base}`; {}", listing()),
                ));
            }
            [k] => *k,
            many => {
                let names: Vec<String> = many.iter().map(|k| describe(k)).collect();
                return Err(error(
                    &self.display,
                    0,
                    format!("`{base}` is ambiguous: {}; qualify it", names.join(", ")),
                ));
            }
        };
        match (&k.template, args.is_empty()) {
            (Some(t), true) => Err(error(
                &self.display,
                k.line,
                format!(
                    "`{}` is a template {t}: name an instantiation, e.g. --kernel '{}<...>'",
                    k.name, k.name
                ),
            )),
            (None, false) => Err(error(
                &self.display,
                k.line,
                format!("`{}` is not a template; name it without `{args}`", k.name),
            )),
            _ => {
                let mut q = String::new();
                for s in &k.scope {
                    q += "::";
                    q += s;
                }
                Ok(format!("{q}::{}{args}", k.name))
            }
        }
    }

    /// Writes the rewritten files and a wrapper exporting `kernels` (from
    /// [`resolve`](Self::resolve)) under `dir`; returns the wrapper's path.
    pub fn write(&self, dir: &Path, kernels: &[String]) -> Result<PathBuf> {
        let names: Vec<&str> = kernels.iter().map(|k| base_name(k)).collect();
        let reach = reach::Reach::of(self, &names);
        let mut refused = reach.refused(self).into_iter();
        if let Some((f, u, via)) = refused.find(|(_, u, _)| !(self.cooperative && u.cooperative)) {
            let via = match via {
                Some(func) if !names.contains(&func.as_str()) => {
                    format!(" (in `{func}`, which the kernel reaches)")
                }
                _ => String::new(),
            };
            return Err(error(
                &self.files[f].shown,
                u.line,
                format!("{}{via}", u.what),
            ));
        }
        let io = |p: &Path, e: std::io::Error| {
            error(
                &self.display,
                0,
                format!("cannot write {}: {e}", p.display()),
            )
        };
        // Deep enough that the headers above the main file's folder stay inside `dir/src`.
        let ups = self
            .files
            .iter()
            .map(|f| {
                f.rel
                    .components()
                    .take_while(|c| *c == Component::ParentDir)
                    .count()
            })
            .max()
            .unwrap_or(0);
        let mut root = dir.join("src");
        for _ in 0..ups {
            root.push("d");
        }
        let base = self.files[0].path.parent().unwrap_or(Path::new("/"));
        // The main file's functions may name the namespace-scope `__shared__` variables its
        // headers declare.
        let included: Vec<(String, String)> = self.files[1..]
            .iter()
            .flat_map(|f| rewrite::ns_bindings(&f.src, &lex::tokens(&f.src), &f.scan))
            .collect();
        for (fi, f) in self.files.iter().enumerate() {
            let toks = lex::tokens(&f.src);
            let from_headers = if fi == 0 { &included[..] } else { &[] };
            let blanks = reach.blanks(self, fi);
            let rewritten = rewrite::rewrite(&f.src, &toks, &f.scan, &blanks, from_headers);
            // Where the compiler may look for it: beside its includers (the main file's tree),
            // and in the copy of each include folder holding it.
            let mut places = Vec::new();
            let in_dirs: Vec<(usize, &Path)> = self
                .include_dirs
                .iter()
                .enumerate()
                .filter_map(|(k, d)| f.path.strip_prefix(d).ok().map(|r| (k, r)))
                .collect();
            if f.path.starts_with(base) || in_dirs.is_empty() {
                places.push(normalize(&root.join(&f.rel)));
            }
            places.extend(in_dirs.iter().map(|(k, r)| include_copy(dir, *k).join(r)));
            let text = format!("#line 1 \"{}\"\n{}", c_string(&f.path), rewritten);
            for to in places {
                if let Some(parent) = to.parent() {
                    std::fs::create_dir_all(parent).map_err(|e| io(parent, e))?;
                }
                std::fs::write(&to, &text).map_err(|e| io(&to, e))?;
            }
        }
        let main = normalize(&root.join(&self.files[0].rel));
        let mut w = String::new();
        let _ = writeln!(
            w,
            "// wavekit check: {} on the SIMT executor (generated).\n{}#include <wavekit_plain.h>\n\
             // The predefined macros of {}, the device pass.\n{}\
             #include \"{}\"\n#line 1 \"<wavekit check: exports>\"",
            self.display,
            if self.cooperative {
                "// Built for a cooperative launch: grid.sync() runs.\n\
                 #define WK_PLAIN_COOPERATIVE 1\n"
            } else {
                ""
            },
            self.toolchain.describe(self.hip),
            self.toolchain.defines(self.hip),
            c_string(&main)
        );
        w += &self.fields(kernels);
        for (i, k) in kernels.iter().enumerate() {
            let shown = k.trim_start_matches("::");
            let _ = writeln!(
                w,
                "WK_PLAIN_EXPORT({}, \"{}\", {k});",
                symbol(i),
                c_string(Path::new(shown))
            );
        }
        let wrapper = dir.join("wrapper.cu");
        std::fs::write(&wrapper, w).map_err(|e| io(&wrapper, e))?;
        Ok(wrapper)
    }

    /// The field lists of the structs the kernels' parameter lists name.
    fn fields(&self, kernels: &[String]) -> String {
        let mut out = String::new();
        let named: Vec<&KernelDecl> = self
            .kernels()
            .filter(|k| kernels.iter().any(|r| r.contains(&format!("::{}", k.name))))
            .collect();
        for f in &self.files {
            for s in &f.scan.structs {
                let Some(fields) = &s.fields else { continue };
                let used = named.iter().any(|k| {
                    lex::tokens(&k.params)
                        .iter()
                        .any(|t| t.text(&k.params) == s.name)
                });
                if s.name.is_empty() || !used {
                    continue;
                }
                let mut q = String::new();
                for n in &s.scope {
                    q += "::";
                    q += n;
                }
                let q = format!("{q}::{}", s.name);
                let _ = write!(
                    out,
                    "namespace wk_plain {{ template <> struct fields<{q}> {{ static constexpr \
                     bool known = true; static std::string get() {{ std::string s;"
                );
                for field in fields {
                    let _ = write!(out, " WK_PLAIN_FIELD({q}, {field});");
                }
                out += " return s; } }; }\n";
            }
        }
        out
    }
}

/// The unqualified name of a kernel expression from [`Program::resolve`]: `::ns::k<int>` is `k`.
fn base_name(expr: &str) -> &str {
    let base = expr.split('<').next().unwrap_or(expr).trim();
    base.rsplit("::").next().unwrap_or(base).trim()
}

/// Where [`Program::write`] under `dir` copies the `k`-th include folder's headers.
fn include_copy(dir: &Path, k: usize) -> PathBuf {
    dir.join(format!("inc{k}"))
}

/// A kernel as a listing shows it: `ns::name<template params>(params)`.
fn describe(k: &KernelDecl) -> String {
    let mut s = String::new();
    for n in &k.scope {
        s += n;
        s += "::";
    }
    s += &k.name;
    if let Some(t) = &k.template {
        s += " ";
        s += t;
    }
    s
}

/// `p` with `.` and `..` folded (lexically).
fn normalize(p: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for c in p.components() {
        match c {
            Component::ParentDir => {
                out.pop();
            }
            Component::CurDir => {}
            c => out.push(c),
        }
    }
    out
}

/// `p` as the inside of a C string literal.
fn c_string(p: &Path) -> String {
    p.display()
        .to_string()
        .replace('\\', "\\\\")
        .replace('"', "\\\"")
}

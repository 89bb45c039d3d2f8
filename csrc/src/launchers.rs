//! Generates the Rust mirror of the launcher ABI from csrc/wavekit/launchers.def (the table's
//! entries) and csrc/wavekit/launch.h (the `WK_*` constants), so the C++ and Rust sides are
//! written once. A type or constant the generator does not know stops the build with its line.
//!
//! Two files come out: `launchers.rs` (wavekit-gpu's `ffi`: the `Launchers` table of extern
//! "C" fn pointers, a typed `unsafe fn` wrapper per launcher on it, the constants) and
//! `checked_launchers.rs` (wavekit-gpu's launch module: each launcher as a method of its
//! `Launch`, taking its memory arguments as handles whose bytes are checked against what the
//! launcher reaches, the table of launchers/reach.rs, before the call).

mod checked;
mod reach;

use std::fmt::Write as _;
use std::path::Path;

/// One parameter of an entry: its C type (white space normalised) and name.
#[derive(Clone, Debug, PartialEq, Eq)]
struct Param {
    cty: String,
    name: String,
}

impl Param {
    /// The Rust type of the C type, as the table's fn pointer takes it.
    fn rust(&self) -> Result<&'static str, String> {
        rust_type(&self.cty)
    }

    /// The stream handle every launcher takes first (`void* stream`).
    fn is_stream(&self) -> bool {
        self.name == "stream" && self.cty == "void*"
    }

    /// The device status word (`wk_status* st`).
    fn is_status(&self) -> bool {
        self.cty == "wk_status*"
    }

    /// A pointer other than the stream: device memory, or host memory where [`HOST`] says.
    fn is_pointer(&self) -> bool {
        self.cty.ends_with('*') && !self.is_stream()
    }

    /// Read only (`const T*`).
    fn is_const(&self) -> bool {
        self.cty.starts_with("const ")
    }

    /// The pointee's Rust type (`c_void`, `u32`, ...).
    fn pointee(&self) -> Result<&'static str, String> {
        let base = self.cty.trim_start_matches("const ").trim_end_matches('*');
        Ok(match base {
            "void" => "c_void",
            "uint8_t" => "u8",
            "uint32_t" => "u32",
            "uint64_t" => "u64",
            "wk_status" => "Status",
            "char" => "c_char",
            other => return Err(format!("launchers.def: no pointee mapping for `{other}`")),
        })
    }

    fn ident(&self) -> String {
        rust_ident(&self.name)
    }
}

/// The pointer parameters that name host memory, not device memory: the launcher reads them
/// before it returns (their comments in launchers.def say so). Every other pointer parameter of
/// a launcher is a device address.
const HOST: &[(&str, &str)] = &[("merge_runs", "run_lens"), ("peer_all_reduce", "peers")];

/// One entry of launchers.def.
#[derive(Clone, Debug)]
struct Entry {
    query: bool,
    name: String,
    /// The C return type (`int32_t` for every launcher).
    ret: String,
    params: Vec<Param>,
}

impl Entry {
    fn is_host(&self, p: &Param) -> bool {
        HOST.contains(&(self.name.as_str(), p.name.as_str()))
    }
}

/// The Rust type of a C parameter or return type of launchers.def.
fn rust_type(c: &str) -> Result<&'static str, String> {
    Ok(match c {
        "void*" => "*mut c_void",
        "const void*" => "*const c_void",
        "wk_status*" => "*mut Status",
        "const char*" => "*const c_char",
        "int32_t" => "i32",
        "uint32_t" => "u32",
        "uint64_t" => "u64",
        "const uint8_t*" => "*const u8",
        "uint8_t*" => "*mut u8",
        "const uint32_t*" => "*const u32",
        "uint32_t*" => "*mut u32",
        "const uint64_t*" => "*const u64",
        "uint64_t*" => "*mut u64",
        other => {
            return Err(format!(
                "launchers.def: no Rust mapping for the C type `{other}`"
            ));
        }
    })
}

/// A C type with its white space normalised: `const void *` as `const void*`.
fn normalise(c: &str) -> String {
    let c: String = c.split_whitespace().collect::<Vec<_>>().join(" ");
    c.replace(" *", "*")
}

fn strip_comments(src: &str) -> String {
    src.lines()
        .map(|l| l.split("//").next().unwrap_or(""))
        .collect::<Vec<_>>()
        .join("\n")
}

/// `(a, b, c)` at the start of `s` (after white space): the inside and the rest.
fn parenthesised(s: &str) -> Result<(&str, &str), String> {
    let s = s.trim_start();
    if !s.starts_with('(') {
        return Err(format!(
            "launchers.def: expected `(` at `{}`",
            first_line(s)
        ));
    }
    let mut depth = 0;
    for (i, ch) in s.char_indices() {
        match ch {
            '(' => depth += 1,
            ')' => {
                depth -= 1;
                if depth == 0 {
                    return Ok((&s[1..i], &s[i + 1..]));
                }
            }
            _ => {}
        }
    }
    Err(format!(
        "launchers.def: unbalanced `(` at `{}`",
        first_line(s)
    ))
}

fn first_line(s: &str) -> &str {
    s.lines().next().unwrap_or("")
}

/// One C parameter `const void* vals`.
fn param(p: &str) -> Result<Param, String> {
    let p = p.trim();
    let split = p
        .rfind(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
        .ok_or_else(|| format!("launchers.def: parameter `{p}` has no name"))?;
    let (ty, name) = (&p[..=split], &p[split + 1..]);
    let param = Param {
        cty: normalise(ty),
        name: name.to_string(),
    };
    param.rust()?;
    Ok(param)
}

fn params(list: &str) -> Result<Vec<Param>, String> {
    list.split(',')
        .filter(|p| !p.trim().is_empty())
        .map(param)
        .collect()
}

fn rust_ident(name: &str) -> String {
    const KEYWORDS: &[&str] = &[
        "as", "async", "await", "break", "const", "continue", "dyn", "else", "enum", "extern",
        "false", "fn", "for", "gen", "if", "impl", "in", "let", "loop", "match", "mod", "move",
        "mut", "pub", "ref", "return", "static", "struct", "trait", "true", "type", "unsafe",
        "use", "where", "while",
    ];
    if KEYWORDS.contains(&name) {
        format!("r#{name}")
    } else {
        name.to_string()
    }
}

/// The entries of launchers.def, in order.
fn parse(def: &str) -> Result<Vec<Entry>, String> {
    let src = strip_comments(def);
    let mut rest = src.as_str();
    let mut entries = Vec::new();
    loop {
        let q = rest.find("WK_QUERY");
        let l = rest.find("WK_LAUNCHER");
        let (at, query) = match (q, l) {
            (None, None) => break,
            (Some(q), Some(l)) if q < l => (q, true),
            (Some(q), None) => (q, true),
            (_, Some(l)) => (l, false),
        };
        let after = &rest[at + if query { 8 } else { 11 }..];
        let (inside, tail) = parenthesised(after)?;
        let (ret, name, list) = if query {
            let mut parts = inside.splitn(3, ',');
            let ret = parts.next().unwrap_or("").trim();
            let name = parts.next().unwrap_or("").trim();
            let rest = parts.next().unwrap_or("");
            (ret, name, parenthesised(rest)?.0)
        } else {
            let (name, rest) = inside
                .split_once(',')
                .ok_or_else(|| format!("launchers.def: WK_LAUNCHER({inside}) has no params"))?;
            ("int32_t", name.trim(), parenthesised(rest)?.0)
        };
        if name.is_empty() || !name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_') {
            return Err(format!("launchers.def: bad entry name `{name}`"));
        }
        rust_type(&normalise(ret))?;
        entries.push(Entry {
            query,
            name: name.to_string(),
            ret: normalise(ret),
            params: params(list)?,
        });
        rest = tail;
    }
    Ok(entries)
}

/// `Ok` when every parameter [`HOST`] names is one of `def`'s, so that renaming one in
/// launchers.def cannot turn a host array into a device address unnoticed.
fn check_host(def: &str) -> Result<(), String> {
    let entries = parse(def)?;
    for (entry, host) in HOST {
        let known = entries
            .iter()
            .any(|e| e.name == *entry && e.params.iter().any(|p| p.name == *host));
        if !known {
            return Err(format!(
                "launchers.rs: HOST names `{entry}`'s `{host}`, which launchers.def lacks"
            ));
        }
    }
    Ok(())
}

/// The `//` comment lines right above entry `name` in launchers.def (section rules excepted),
/// with brackets escaped for rustdoc, each as a `///` line indented by `indent`.
fn def_comment(def: &str, name: &str, query: bool, indent: &str) -> String {
    let lines: Vec<&str> = def.lines().collect();
    let needle = if query {
        format!(", {name},")
    } else {
        format!("WK_LAUNCHER({name},")
    };
    let Some(at) = lines
        .iter()
        .position(|l| l.contains(&needle) && l.contains("WK_"))
    else {
        return String::new();
    };
    let above: Vec<&str> = lines[..at]
        .iter()
        .rev()
        .map(|l| l.trim())
        .take_while(|l| l.starts_with("//") && !l.starts_with("// ----"))
        .collect();
    let mut doc = String::new();
    for l in above.into_iter().rev() {
        let text = l.trim_start_matches('/').trim();
        let text = text.replace('[', "\\[").replace(']', "\\]");
        writeln!(doc, "{indent}/// {text}").expect("write to String");
    }
    doc
}

/// The doc comment of table entry `name`: what kind of entry it is, then its comment in
/// launchers.def.
fn entry_doc(def: &str, name: &str, query: bool) -> String {
    let mut doc = if query {
        format!("    /// The `{name}` query (`WK_QUERY` in csrc/wavekit/launchers.def).\n")
    } else {
        format!("    /// The `{name}` launcher (`{name}_launch` in csrc/kernels).\n")
    };
    let comment = def_comment(def, name, query, "    ");
    if !comment.is_empty() {
        doc.push_str("    ///\n");
        doc.push_str(&comment);
    }
    doc
}

/// The contract of every typed wrapper (`# Safety` of `Launchers::<launcher>`), a line each.
const WRAPPER_CONTRACT: &[&str] = &[
    "# Safety",
    "`self` is the table of wavekit's csrc object compiled for one device (what",
    "`GpuRuntime::launchers` returns); `stream` is a stream of that device (or null, the",
    "default stream) and the device is current on the calling thread. Every `DevPtr` is the",
    "address of memory on that device (0 only where launchers.def lets the argument be NULL):",
    "the status word `st` one `Status`, and every other one at least the extent the",
    "launcher reaches with these arguments as its entry in csrc/wavekit/launchers.def",
    "documents it, alive until the queued work has run, written by nothing else meanwhile",
    "(and read by nothing else where the launcher writes it), outputs overlapping no other",
    "argument; a host slice holds what the launcher reads from it. What launchers.def asks",
    "of a launcher's scratch or data beyond that (the zeroed tickets of the device reduce's",
    "scratch, the tag contract of the `*_tagged` launchers, ordered segment offsets, ...) is",
    "the caller's too. The launcher checks its scalar arguments and refuses what it cannot",
    "take (a negative `ERR_*`).",
];

/// The typed `unsafe fn` wrapper of a launcher: device addresses as `DevPtr`, host arrays as
/// slices, the casts done inside.
fn wrapper(def: &str, e: &Entry) -> Result<String, String> {
    let mut args = Vec::new();
    let mut call = Vec::new();
    for p in &e.params {
        let id = p.ident();
        if p.is_stream() {
            args.push(format!("{id}: *mut c_void"));
            call.push(id);
        } else if e.is_host(p) {
            args.push(format!("{id}: &[{}]", p.pointee()?));
            call.push(format!("{id}.as_ptr()"));
        } else if p.is_pointer() {
            args.push(format!("{id}: DevPtr"));
            let to = if p.is_const() { "cptr" } else { "dptr" };
            call.push(format!("{to}::<{}>({id})", p.pointee()?));
        } else {
            args.push(format!("{id}: {}", p.rust()?));
            call.push(id);
        }
    }
    let name = &e.name;
    let mut out = format!(
        "    /// The typed form of the `{name}` entry (its field says what it does): device \
         addresses as\n    /// [`DevPtr`], host arrays as slices, the pointer casts done \
         here. Returns 0, a positive\n    /// vendor error code or a negative `ERR_*`.\n    ///\n"
    );
    let comment = def_comment(def, name, false, "    ");
    if !comment.is_empty() {
        out.push_str(&comment);
        out.push_str("    ///\n");
    }
    out.push_str(&checked::comment_lines(WRAPPER_CONTRACT, "    ", "///"));
    writeln!(
        out,
        "    #[allow(clippy::too_many_arguments)]\n    \
         pub unsafe fn {}(&self, {}) -> i32 {{\n        \
         // SAFETY: this function's contract, which the caller upholds, is the entry's.\n        \
         unsafe {{ (self.{})({}) }}\n    }}\n",
        rust_ident(name),
        args.join(", "),
        rust_ident(name),
        call.join(", ")
    )
    .expect("write to String");
    Ok(out)
}

/// The `Launchers` struct, field for field as launch.h expands launchers.def, and the typed
/// wrappers of its launchers.
pub fn table(def: &str) -> Result<String, String> {
    let entries = parse(def)?;
    let mut out = String::new();
    out.push_str(
        "/// `wk_launchers` (csrc/wavekit/launch.h), generated from csrc/wavekit/launchers.def: \
         every launcher queues work\n/// on the stream and returns 0, a positive vendor error \
         code, or a negative `WK_ERR_*`.\n#[repr(C)]\npub struct Launchers {\n    \
         /// `WK_ABI_VERSION` of the compiled object, checked against `ABI_VERSION`.\n    \
         pub abi_version: u32,\n    \
         /// `sizeof(wk_launchers)` of the compiled object.\n    \
         pub struct_size: u32,\n",
    );
    for e in &entries {
        out.push_str(&entry_doc(def, &e.name, e.query));
        let ps = e
            .params
            .iter()
            .map(|p| Ok(format!("{}: {}", p.ident(), p.rust()?)))
            .collect::<Result<Vec<_>, String>>()?;
        writeln!(
            out,
            "    pub {}: unsafe extern \"C\" fn({}) -> {},",
            rust_ident(&e.name),
            ps.join(", "),
            rust_type(&e.ret)?
        )
        .expect("write to String");
    }
    // The entries are function pointers: the table shows its ABI, not their addresses.
    out.push_str(
        "}\n\nimpl std::fmt::Debug for Launchers {\n    \
         fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {\n        \
         f.debug_struct(\"Launchers\")\n            \
         .field(\"abi_version\", &self.abi_version)\n            \
         .field(\"struct_size\", &self.struct_size)\n            \
         .finish_non_exhaustive()\n    }\n}\n\n\
         /// Every entry of the table, in field order.\npub const ENTRIES: &[&str] = &[",
    );
    for e in &entries {
        write!(out, "\"{}\", ", e.name).expect("write to String");
    }
    out.push_str("];\n\nimpl Launchers {\n");
    for e in entries.iter().filter(|e| !e.query) {
        out.push_str(&wrapper(def, e)?);
    }
    out.push_str("}\n");
    Ok(out)
}

/// `pub const` items for the `#define WK_<NAME> <value>` lines of launch.h that are numbers.
pub fn constants(header: &str) -> Result<String, String> {
    let mut out = String::new();
    for line in header.lines() {
        let Some(def) = line.trim().strip_prefix("#define WK_") else {
            continue;
        };
        let mut it = def.split_whitespace();
        let (Some(name), Some(value)) = (it.next(), it.next()) else {
            continue;
        };
        if name.contains('(') {
            continue; // a function-like macro, such as WK_LAUNCHER itself
        }
        let value = value.trim_start_matches('(').trim_end_matches(')');
        let (ty, v) = if value == "~0ull" {
            ("u64", "u64::MAX".to_string())
        } else if let Some(u) = value.strip_suffix('u') {
            ("u32", u.to_string())
        } else if value.parse::<i32>().is_ok() {
            let ty = if name.starts_with("ERR_") || name == "OK" {
                "i32"
            } else {
                "u32"
            };
            (ty, value.to_string())
        } else {
            return Err(format!(
                "launch.h: cannot mirror `#define WK_{name} {value}`"
            ));
        };
        writeln!(
            out,
            "/// `WK_{name}` of csrc/wavekit/launch.h.\npub const {name}: {ty} = {v};"
        )
        .expect("write to String");
    }
    Ok(out)
}

/// Writes `launchers.rs` and `checked_launchers.rs` into `out_dir` from the csrc sources under
/// `csrc`.
pub fn generate(csrc: &Path, out_dir: &Path) {
    let def_path = csrc.join("wavekit/launchers.def");
    let header_path = csrc.join("wavekit/launch.h");
    for p in [&def_path, &header_path] {
        println!("cargo:rerun-if-changed={}", p.display());
    }
    let read = |p: &Path| {
        std::fs::read_to_string(p).unwrap_or_else(|e| panic!("cannot read {}: {e}", p.display()))
    };
    let def = read(&def_path);
    let code = check_host(&def)
        .and_then(|()| constants(&read(&header_path)))
        .and_then(|c| Ok(c + "\n" + &table(&def)?))
        .unwrap_or_else(|e| panic!("{e}"));
    let checked = checked::methods(&def).unwrap_or_else(|e| panic!("{e}"));
    for (name, text) in [("launchers.rs", code), ("checked_launchers.rs", checked)] {
        let dest = out_dir.join(name);
        std::fs::write(&dest, text)
            .unwrap_or_else(|e| panic!("cannot write {}: {e}", dest.display()));
    }
}

#[cfg(test)]
mod tests;

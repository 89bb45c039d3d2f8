//! Generates the Rust mirror of the launcher ABI from csrc/wavekit/launchers.def (the table's
//! entries) and csrc/wavekit/launch.h (the `WK_*` constants), so the C++ and Rust sides are
//! written once. A type or constant the generator does not know stops the build with its line.

use std::fmt::Write as _;
use std::path::Path;

/// The Rust type of a C parameter or return type of launchers.def.
fn rust_type(c: &str) -> Result<&'static str, String> {
    let c: String = c.split_whitespace().collect::<Vec<_>>().join(" ");
    Ok(match c.as_str() {
        "void*" | "void *" => "*mut c_void",
        "const void*" | "const void *" => "*const c_void",
        "wk_status*" | "wk_status *" => "*mut Status",
        "const char*" | "const char *" => "*const c_char",
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

/// One C parameter `const void* vals` as `vals: *const c_void`.
fn param(p: &str) -> Result<String, String> {
    let p = p.trim();
    let split = p
        .rfind(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
        .ok_or_else(|| format!("launchers.def: parameter `{p}` has no name"))?;
    let (ty, name) = (&p[..=split], &p[split + 1..]);
    Ok(format!("{}: {}", rust_ident(name), rust_type(ty)?))
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

fn fn_type(ret: &str, params: &str) -> Result<String, String> {
    let ps = params
        .split(',')
        .filter(|p| !p.trim().is_empty())
        .map(param)
        .collect::<Result<Vec<_>, _>>()?;
    Ok(format!(
        "unsafe extern \"C\" fn({}) -> {}",
        ps.join(", "),
        rust_type(ret)?
    ))
}

/// The doc comment of table entry `name`: what kind of entry it is, then the `//` comment lines
/// right above it in launchers.def (section rules excepted), with brackets escaped for rustdoc.
fn entry_doc(def: &str, name: &str, query: bool) -> String {
    let mut doc = if query {
        format!("    /// The `{name}` query (`WK_QUERY` in csrc/wavekit/launchers.def).\n")
    } else {
        format!("    /// The `{name}` launcher (`{name}_launch` in csrc/kernels).\n")
    };
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
        return doc;
    };
    let above: Vec<&str> = lines[..at]
        .iter()
        .rev()
        .map(|l| l.trim())
        .take_while(|l| l.starts_with("//") && !l.starts_with("// ----"))
        .collect();
    if !above.is_empty() {
        doc.push_str("    ///\n");
    }
    for l in above.into_iter().rev() {
        let text = l.trim_start_matches('/').trim();
        let text = text.replace('[', "\\[").replace(']', "\\]");
        writeln!(doc, "    /// {text}").expect("write to String");
    }
    doc
}

/// The `Launchers` struct, field for field as launch.h expands launchers.def.
pub fn table(def: &str) -> Result<String, String> {
    let src = strip_comments(def);
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
    let mut rest = src.as_str();
    let mut names = Vec::new();
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
        let (ret, name, params) = if query {
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
        out.push_str(&entry_doc(def, name, query));
        writeln!(
            out,
            "    pub {}: {},",
            rust_ident(name),
            fn_type(ret, params)?
        )
        .expect("write to String");
        names.push(name.to_string());
        rest = tail;
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
    for n in &names {
        write!(out, "\"{n}\", ").expect("write to String");
    }
    out.push_str("];\n");
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

/// Writes `launchers.rs` into `out_dir` from the csrc sources under `csrc`.
pub fn generate(csrc: &Path, out_dir: &Path) {
    let def_path = csrc.join("wavekit/launchers.def");
    let header_path = csrc.join("wavekit/launch.h");
    for p in [&def_path, &header_path] {
        println!("cargo:rerun-if-changed={}", p.display());
    }
    let read = |p: &Path| {
        std::fs::read_to_string(p).unwrap_or_else(|e| panic!("cannot read {}: {e}", p.display()))
    };
    let code = constants(&read(&header_path))
        .and_then(|c| Ok(c + "\n" + &table(&read(&def_path))?))
        .unwrap_or_else(|e| panic!("{e}"));
    let dest = out_dir.join("launchers.rs");
    std::fs::write(&dest, code).unwrap_or_else(|e| panic!("cannot write {}: {e}", dest.display()));
}

//! Arrows point down inside wavekit-core too (issue #84): the raw layer (raw.rs, raw_args.rs,
//! raw_slices.rs, backend.rs, the vocabulary in vocab/ and every other module outside api/)
//! never reaches up into the validated API. This reads each of those sources and fails,
//! naming the file and line, on code that names `crate::api` (in a `use` or a path), or an
//! `api` item in a `use crate::{...}` group. lib.rs is the one exception: the crate root
//! declares both layers and re-exports the API.

use std::path::{Path, PathBuf};

/// Every `.rs` file under `dir`, but not under `src/api/`.
fn raw_layer_sources(dir: &Path, out: &mut Vec<PathBuf>) {
    let mut entries: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap_or_else(|e| panic!("reading {}: {e}", dir.display()))
        .map(|e| e.expect("a directory entry").path())
        .collect();
    entries.sort();
    for p in entries {
        if p.is_dir() {
            if p.file_name().is_some_and(|n| n == "api") && p.parent() == Some(src().as_path()) {
                continue;
            }
            raw_layer_sources(&p, out);
        } else if p.extension().is_some_and(|e| e == "rs") {
            out.push(p);
        }
    }
}

fn src() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("src")
}

/// The line numbers (1-based) of `text` whose code reaches into the API.
fn upward_imports(text: &str) -> Vec<usize> {
    let mut hits = Vec::new();
    // A `use` statement being read across lines: its first line and its text so far.
    let mut open_use: Option<(usize, String)> = None;
    for (i, line) in text.lines().enumerate() {
        let code = line.split("//").next().unwrap_or("");
        if code.contains("crate::api") || code.contains("super::api") {
            hits.push(i + 1);
        }
        let trimmed = code.trim_start();
        let starts_use = ["use ", "pub use ", "pub(crate) use ", "pub(super) use "]
            .iter()
            .any(|p| trimmed.starts_with(p));
        if open_use.is_none() && starts_use {
            open_use = Some((i + 1, String::new()));
        }
        if let Some((first, stmt)) = &mut open_use {
            stmt.extend(code.chars().filter(|c| !c.is_whitespace()));
            if stmt.contains(';') {
                if group_names_api(stmt) && !hits.contains(first) {
                    hits.push(*first);
                }
                open_use = None;
            }
        }
    }
    hits.sort_unstable();
    hits
}

/// Whether a `use` statement (whitespace removed) imports `api` from a `crate::{...}` or
/// `super::{...}` group: `use crate::{api::Sort, element::Element};`.
fn group_names_api(stmt: &str) -> bool {
    for root in ["crate::{", "super::{"] {
        let Some(at) = stmt.find(root) else { continue };
        let mut depth = 0usize;
        let mut item = String::new();
        for c in stmt[at + root.len()..].chars() {
            match c {
                '{' => depth += 1,
                '}' if depth == 0 => return item_is_api(&item),
                '}' => depth -= 1,
                ',' if depth == 0 => {
                    if item_is_api(&item) {
                        return true;
                    }
                    item.clear();
                    continue;
                }
                _ => {}
            }
            if depth == 0 || c == '{' {
                item.push(c);
            }
        }
    }
    false
}

fn item_is_api(item: &str) -> bool {
    item == "api" || item.starts_with("api::") || item.starts_with("apias")
}

#[test]
fn the_raw_layer_imports_nothing_of_the_api() {
    let mut files = Vec::new();
    raw_layer_sources(&src(), &mut files);
    let root = src().join("lib.rs");
    assert!(
        files.iter().any(|f| f.ends_with("raw_slices.rs")),
        "the scan found the raw layer's sources"
    );
    let mut found = Vec::new();
    for f in files.iter().filter(|f| **f != root) {
        let text = std::fs::read_to_string(f).expect("a readable source");
        let name = f.strip_prefix(env!("CARGO_MANIFEST_DIR")).unwrap_or(f);
        for line in upward_imports(&text) {
            found.push(format!(
                "{}:{line}: {}",
                name.display(),
                text.lines().nth(line - 1).unwrap_or("").trim()
            ));
        }
    }
    assert!(
        found.is_empty(),
        "wavekit-core's raw layer reaches up into api/ (issue #84: move the code that needs \
         the API into api/, or the type into vocab/):\n{}",
        found.join("\n")
    );
}

#[test]
fn the_check_sees_each_form_of_import() {
    for bad in [
        "use crate::api::{Collectives, Sort};",
        "use crate::api;",
        "pub use crate::api::SortOrder;",
        "use super::api::Sort;",
        "use super::super::api::Sort;",
        "    let _ = crate::api::check_len(\"x\", 1, 1);",
        "use crate::{api::Sort, element::Element};",
        "use crate::{\n    element::Element,\n    api::{Collectives, Sort},\n};",
        "use crate::{api as validated, error::Result};",
        "use crate::{element::Element, api};",
    ] {
        assert!(!upward_imports(bad).is_empty(), "missed: {bad}");
    }
    for fine in [
        "use crate::vocab::SortOrder;",
        "use crate::raw::{RawBackend, Validated};",
        "/// See [`Sort`](crate::api::Sort).",
        "//! The validated API (api/) checks first.",
        "use crate::{element::{Element, api_like}, raw::RawBackend};",
        "use crate::{apiary::Bee, element::Element};",
    ] {
        assert!(upward_imports(fine).is_empty(), "flagged: {fine}");
    }
    // The line named is the statement's first.
    assert_eq!(
        upward_imports("use x;\nuse crate::{\n    element::Element,\n    api::Sort,\n};"),
        [2]
    );
}

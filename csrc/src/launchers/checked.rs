//! The checked launch methods (`checked_launchers.rs`, included by wavekit-gpu's launch
//! module): each launcher as a method of `Launch`, which holds the table, the stream and the
//! status slot. Memory arguments come as handles (`In`, `Out`, and the scratch kinds of
//! reach.rs), each checked against the bytes reach.rs says the launcher reaches with the call's
//! arguments before the typed wrapper runs; the stream and status word are the `Launch`'s.

use super::reach::{LAUNCHERS, Launcher, Scratch};
use super::{Entry, Param, parse, rust_ident};
use std::fmt::Write as _;

/// The helpers and constants an expression of reach.rs may name besides parameters.
const VOCABULARY: &[&str] = &[
    "size",
    "acc",
    "ceil",
    "pow",
    "sum",
    "max",
    "REDUCE_TILE",
    "SCAN_TILE",
];

/// The identifiers of a Rust expression, in order.
fn identifiers(expr: &str) -> Vec<&str> {
    let mut out = Vec::new();
    let mut start = None;
    for (i, c) in expr.char_indices().chain([(expr.len(), ' ')]) {
        let word = c.is_ascii_alphanumeric() || c == '_';
        match (start, word) {
            (None, true) => start = Some(i),
            (Some(s), false) => {
                let w = &expr[s..i];
                if !w.starts_with(|c: char| c.is_ascii_digit()) {
                    out.push(w);
                }
                start = None;
            }
            _ => {}
        }
    }
    out
}

/// The row of reach.rs for `e`, checked against its parameters.
fn row<'a>(e: &Entry, rows: &'a [Launcher]) -> Result<&'a Launcher, String> {
    let name = &e.name;
    let row = rows
        .iter()
        .find(|r| r.name == name)
        .ok_or_else(|| format!("launchers/reach.rs: no entry for the launcher `{name}`"))?;
    let pointers: Vec<&Param> = e
        .params
        .iter()
        .filter(|p| p.is_pointer() && !p.is_status())
        .collect();
    for p in &pointers {
        let n = row
            .reach
            .iter()
            .filter(|(q, _)| q.trim_end_matches('?') == p.name)
            .count();
        if n != 1 {
            return Err(format!(
                "launchers/reach.rs: `{name}`'s `{}` needs exactly one extent (has {n})",
                p.name
            ));
        }
    }
    for (q, expr) in row.reach {
        let q = q.trim_end_matches('?');
        if !pointers.iter().any(|p| p.name == q) {
            return Err(format!(
                "launchers/reach.rs: `{name}` has no pointer parameter `{q}`"
            ));
        }
        for id in identifiers(expr) {
            let known = VOCABULARY.contains(&id) || e.params.iter().any(|p| p.name == id);
            if !known {
                return Err(format!(
                    "launchers/reach.rs: `{name}`'s `{q}` names `{id}`, not a parameter"
                ));
            }
        }
    }
    let has = |p: &str| e.params.iter().any(|q| q.name == p);
    match row.scratch {
        Scratch::Any => {}
        Scratch::Reduce if has("scratch") => {}
        Scratch::Tagged(d) if has("scratch") && has("tag") && has(d) => {}
        _ => {
            return Err(format!(
                "launchers/reach.rs: `{name}`'s scratch kind needs parameters it lacks"
            ));
        }
    }
    Ok(row)
}

/// The SAFETY comment of every checked launch, a line each.
const SAFETY: &[&str] = &[
    "SAFETY: the typed wrapper's contract. The table, stream and status slot are the",
    "backend's (`Launch::new`). Every memory argument is a handle made from memory of this",
    "backend's device that its borrow keeps alive through the call (an `Out` from an",
    "exclusive borrow, so it overlaps no other argument), checked above to hold what the",
    "launcher reaches with these arguments (launchers.def, as launchers/reach.rs writes it",
    "down) or to be NULL where it may be; a scratch handle is of the kind launchers.def",
    "asks for (`ReduceScratch`, `TaggedScratch`, checked against the dtype); the launcher",
    "checks its scalar arguments itself.",
];

/// `lines` as `//` comment lines indented by `indent` (`//` or `///` given as `mark`).
pub(super) fn comment_lines(lines: &[&str], indent: &str, mark: &str) -> String {
    lines
        .iter()
        .map(|l| format!("{indent}{mark} {l}\n"))
        .collect()
}

/// One launcher's checked method.
fn method(e: &Entry, row: &Launcher) -> Result<String, String> {
    let name = &e.name;
    let tagged = match row.scratch {
        Scratch::Tagged(d) => Some(d),
        _ => None,
    };
    let mut args = Vec::new();
    let mut call = Vec::new();
    let mut checks = String::new();
    let mut host = Vec::new();
    for p in &e.params {
        let id = p.ident();
        if p.is_stream() {
            call.push("self.stream".to_string());
        } else if p.is_status() {
            call.push("self.status".to_string());
        } else if e.is_host(p) {
            args.push(format!("{id}: &[{}]", p.pointee()?));
            call.push(id);
            host.push(p.name.as_str());
        } else if p.is_pointer() {
            let ty = match (p.name.as_str(), row.scratch) {
                ("scratch", Scratch::Reduce) => "ReduceScratch<'_>",
                ("scratch", Scratch::Tagged(_)) => "TaggedScratch<'_>",
                _ if p.is_const() => "In<'_>",
                _ => "Out<'_>",
            };
            args.push(format!("{id}: {ty}"));
            call.push(format!("{id}.mem().ptr"));
        } else if p.name == "tag" && tagged.is_some() {
            call.push("scratch.tag()".to_string());
        } else {
            args.push(format!("{id}: {}", p.rust()?));
            call.push(id);
        }
    }
    if let Some(d) = tagged {
        writeln!(
            checks,
            "        scratch.check(\"{name}\", {})?;",
            rust_ident(d)
        )
        .expect("write to String");
    }
    // The integer parameters the extents name, widened.
    let mut wide: Vec<&str> = Vec::new();
    for (_, expr) in row.reach {
        for id in identifiers(expr) {
            let param = e.params.iter().any(|p| p.name == id && !p.is_pointer());
            if param && !wide.contains(&id) {
                wide.push(id);
            }
        }
    }
    let mut reaches = String::new();
    let mut doc = Vec::new();
    for (q, expr) in row.reach {
        let null = q.ends_with('?');
        let q = q.trim_end_matches('?');
        let id = rust_ident(q);
        let what = format!("{name}: {q} (bytes the launcher reaches)");
        if host.contains(&q) {
            writeln!(
                reaches,
                "            reach_host(\"{what}\", std::mem::size_of_val({id}), {expr})?;"
            )
        } else {
            writeln!(
                reaches,
                "            reach(\"{what}\", {id}.mem(), {expr}, {null})?;"
            )
        }
        .expect("write to String");
        doc.push(format!(
            "`{q}` {expr}{}",
            if null { " (or NULL)" } else { "" }
        ));
    }
    let mut widen = String::new();
    for w in wide {
        let w = rust_ident(w);
        writeln!(widen, "            let {w} = wide({w});").expect("write to String");
    }
    let mut out = format!(
        "    /// The `{name}` launcher (`Launchers::{id}`, unchecked) on this launch's stream, \
         its\n    /// memory arguments first checked to hold what it reaches, in bytes: {}.\n",
        doc.join("; "),
        id = rust_ident(name)
    );
    let unsafety = match row.unchecked {
        Some(why) => {
            write!(out, "    ///\n    /// # Safety\n    /// {why}.\n").expect("write to String");
            "unsafe "
        }
        None => "",
    };
    writeln!(
        out,
        "    #[allow(clippy::too_many_arguments)]\n    \
         pub(crate) {unsafety}fn {}(&self, {}) -> Result<i32> {{\n{checks}        {{\n\
         {widen}{reaches}        }}\n{}{}        \
         Ok(unsafe {{ self.table.{}({}) }})\n    }}\n",
        rust_ident(name),
        args.join(", "),
        comment_lines(SAFETY, "        ", "//"),
        match row.unchecked {
            Some(_) => "        // And this method's contract, which the caller upholds.\n",
            None => "",
        },
        rust_ident(name),
        call.join(", ")
    )
    .expect("write to String");
    Ok(out)
}

/// `impl Launch<'_> { ... }`: a checked method for every launcher of `def`.
pub(super) fn methods(def: &str) -> Result<String, String> {
    methods_with(def, LAUNCHERS)
}

fn methods_with(def: &str, rows: &[Launcher]) -> Result<String, String> {
    let entries = parse(def)?;
    let launchers: Vec<&Entry> = entries.iter().filter(|e| !e.query).collect();
    for r in rows {
        if !launchers.iter().any(|e| e.name == r.name) {
            return Err(format!(
                "launchers/reach.rs: `{}` is no launcher of launchers.def",
                r.name
            ));
        }
    }
    let mut out = String::from(
        "// Generated by wavekit-kernels' launchers module from csrc/wavekit/launchers.def and\n\
         // its launchers/reach.rs. The backend calls the launchers it needs: not every method\n\
         // has a caller.\n#[allow(dead_code)]\nimpl Launch<'_> {\n",
    );
    for e in launchers {
        out.push_str(&method(e, row(e, rows)?)?);
    }
    out.push_str("}\n");
    Ok(out)
}

#[cfg(test)]
pub(super) fn methods_for(def: &str, rows: &[Launcher]) -> Result<String, String> {
    methods_with(def, rows)
}

//! What a check found, run by run, and its two renderings: the text a person reads (each
//! report, then a summary by hazard kind and line) and `--json`, a stable schema for tools and
//! CI (docs/DEVICE_API.md, "Check the kernel you have", lists its fields).

use std::collections::BTreeMap;
use std::fmt::Write as _;

/// One hazard as the check shows it.
pub struct Shown {
    pub kind: String,
    pub block: [u32; 3],
    pub warp: u32,
    pub lanes: u64,
    /// The first `FILE:LINE` of the user's source the report names.
    pub at: Option<(String, u32)>,
    /// The executor's account (its sites, masks, values).
    pub message: String,
    /// The whole report line, as the executor writes it.
    pub text: String,
}

/// One kernel at one width.
pub struct Run {
    /// `name(params)`.
    pub kernel: String,
    pub width: u32,
    pub grid: [u32; 3],
    pub block: [u32; 3],
    pub schedule: String,
    pub reports: Vec<Shown>,
    /// Reports past the cap of each kind (`--max-reports`), not kept.
    pub suppressed: u64,
    /// Why the launch stopped early, if it did.
    pub abandoned: Option<String>,
    /// Each written buffer's label and first values.
    pub outputs: Vec<(String, Vec<String>, bool)>,
}

/// The first `PATH:LINE` in `text` whose path names a source file (a C, C++, CUDA or HIP
/// extension, or an include fragment).
pub fn first_site(text: &str) -> Option<(String, u32)> {
    const EXT: &[&str] = &[
        ".cu", ".cuh", ".hip", ".h", ".hpp", ".hh", ".cpp", ".cc", ".cxx", ".c", ".inc", ".inl",
    ];
    let bytes = text.as_bytes();
    let mut from = 0;
    while let Some(k) = text[from..].find(':') {
        let colon = from + k;
        from = colon + 1;
        let digits: String = text[colon + 1..]
            .chars()
            .take_while(char::is_ascii_digit)
            .collect();
        if digits.is_empty() {
            continue;
        }
        let start = text[..colon]
            .rfind(|c: char| c.is_whitespace() || c == '(' || c == '\'' || c == '"')
            .map_or(0, |s| s + 1);
        let path = &text[start..colon];
        if !path.is_empty()
            && EXT.iter().any(|e| path.ends_with(e))
            && bytes[start..colon].iter().all(|&b| b != b':')
        {
            return Some((path.to_string(), digits.parse().ok()?));
        }
    }
    None
}

fn plural(n: usize, one: &str) -> String {
    if n == 1 {
        format!("1 {one}")
    } else {
        format!("{n} {one}s")
    }
}

/// The text of `runs`: a header per run, its reports, outputs, and a summary by kind and line.
pub fn text(runs: &[Run]) -> String {
    let mut out = String::new();
    for r in runs {
        let _ = writeln!(
            out,
            "{} at {} lanes, grid {:?}, block {:?}, {}: {}",
            r.kernel,
            r.width,
            r.grid,
            r.block,
            r.schedule,
            match r.reports.len() {
                0 => "no hazard".to_string(),
                n => plural(n, "hazard"),
            }
        );
        for s in &r.reports {
            let _ = writeln!(out, "  {}", s.text);
        }
        if r.suppressed > 0 {
            let _ = writeln!(
                out,
                "  ({} more not shown: --max-reports N keeps N of each kind, --all every one)",
                r.suppressed
            );
        }
        if let Some(why) = &r.abandoned {
            let _ = writeln!(out, "  launch abandoned: {why}");
        }
        for (label, values, more) in &r.outputs {
            let more = if *more { ", ..." } else { "" };
            let _ = writeln!(out, "  out arg {label}: [{}{more}]", values.join(", "));
        }
    }
    let summary = summary(runs);
    if !summary.is_empty() {
        let _ = writeln!(out, "summary by hazard and line:");
        for ((kind, at), by_width) in &summary {
            let counts: Vec<String> = by_width
                .iter()
                .map(|(w, n)| format!("{n} at {w} lanes"))
                .collect();
            let _ = writeln!(out, "  {kind} at {at}: {}", counts.join(", "));
        }
    }
    out
}

/// Reports counted by (kind, `FILE:LINE`) and width.
fn summary(runs: &[Run]) -> BTreeMap<(String, String), BTreeMap<u32, usize>> {
    let mut m: BTreeMap<(String, String), BTreeMap<u32, usize>> = BTreeMap::new();
    for r in runs {
        for s in &r.reports {
            let at =
                s.at.as_ref()
                    .map_or("(no line)".to_string(), |(f, l)| format!("{f}:{l}"));
            *m.entry((s.kind.clone(), at))
                .or_default()
                .entry(r.width)
                .or_default() += 1;
        }
    }
    m
}

/// `s` as a JSON string.
fn js(s: &str) -> String {
    let mut out = String::from("\"");
    for c in s.chars() {
        match c {
            '"' => out += "\\\"",
            '\\' => out += "\\\\",
            '\n' => out += "\\n",
            '\t' => out += "\\t",
            c if (c as u32) < 0x20 => {
                let _ = write!(out, "\\u{:04x}", c as u32);
            }
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

fn list<T>(items: &[T], f: impl Fn(&T) -> String) -> String {
    format!("[{}]", items.iter().map(f).collect::<Vec<_>>().join(", "))
}

/// The JSON document of a check of `file` (schema version 1).
pub fn json(file: &str, toolchain: &str, runs: &[Run], clean: bool) -> String {
    let dim = |d: &[u32; 3]| list(d, |v| v.to_string());
    let runs_json = list(runs, |r| {
        let reports = list(&r.reports, |s| {
            let (file, line) = match &s.at {
                Some((f, l)) => (js(f), l.to_string()),
                None => ("null".to_string(), "null".to_string()),
            };
            format!(
                "{{\"kind\": {}, \"file\": {file}, \"line\": {line}, \"block\": {}, \"warp\": {}, \
                 \"lanes\": \"{:#x}\", \"message\": {}}}",
                js(&s.kind),
                dim(&s.block),
                s.warp,
                s.lanes,
                js(&s.message)
            )
        });
        let outputs = list(&r.outputs, |(label, values, more)| {
            format!(
                "{{\"arg\": {}, \"values\": {}, \"truncated\": {more}}}",
                js(label),
                list(values, |v| js(v))
            )
        });
        format!(
            "{{\"kernel\": {}, \"width\": {}, \"grid\": {}, \"block\": {}, \"schedule\": {}, \
             \"reports\": {reports}, \"not_shown\": {}, \"abandoned\": {}, \"outputs\": {outputs}}}",
            js(&r.kernel),
            r.width,
            dim(&r.grid),
            dim(&r.block),
            js(&r.schedule),
            r.suppressed,
            r.abandoned.as_deref().map_or("null".to_string(), js)
        )
    });
    let summary: Vec<String> = summary(runs)
        .into_iter()
        .map(|((kind, at), by_width)| {
            let (f, l) = at.rsplit_once(':').unwrap_or((at.as_str(), ""));
            let line = l
                .parse::<u32>()
                .map_or("null".to_string(), |l| l.to_string());
            let file = if line == "null" {
                "null".to_string()
            } else {
                js(f)
            };
            let counts: Vec<String> = by_width
                .iter()
                .map(|(w, n)| format!("\"{w}\": {n}"))
                .collect();
            format!(
                "{{\"kind\": {}, \"file\": {file}, \"line\": {line}, \"count\": {{{}}}}}",
                js(&kind),
                counts.join(", ")
            )
        })
        .collect();
    document(
        file,
        &js(toolchain),
        clean,
        "null",
        &runs_json,
        &format!("[{}]", summary.join(", ")),
    )
}

/// The schema-1 document around its parts, each already JSON.
fn document(
    file: &str,
    toolchain: &str,
    clean: bool,
    refused: &str,
    runs: &str,
    summary: &str,
) -> String {
    format!(
        "{{\"schema\": 1, \"file\": {}, \"toolchain\": {toolchain}, \"clean\": {clean}, \
         \"refused\": {refused}, \"runs\": {runs}, \"summary\": {summary}}}\n",
        js(file)
    )
}

/// The JSON document of a check that refused the file before any run (schema version 1, as
/// [`json`]): what the executor cannot model (or a kernel it cannot find), at `line` of `at`
/// (0: no one line), and no runs.
pub fn json_refused(file: &str, at: &str, line: u32, message: &str) -> String {
    let line = if line == 0 {
        "null".to_string()
    } else {
        line.to_string()
    };
    let refused = format!(
        "{{\"file\": {}, \"line\": {line}, \"message\": {}}}",
        js(at),
        js(message)
    );
    document(file, "null", false, &refused, "[]", "[]")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_first_source_site_of_a_report_is_found() {
        assert_eq!(
            first_site("shfl_down_sync at dir/warp_sum.cu:14: lanes 16-31 read lanes 32-47"),
            Some(("dir/warp_sum.cu".to_string(), 14))
        );
        assert_eq!(
            first_site("shared 's' [0x3]: written at (k.cuh:7), read at k.cu:9"),
            Some(("k.cuh".to_string(), 7))
        );
        assert_eq!(first_site("mask 0xffffffff: lanes 0:31"), None);
    }

    #[test]
    fn a_refusal_is_a_document_with_no_runs() {
        let d = json_refused("k.cu", "inc/h.cuh", 7, "`asm`: \"x\"");
        assert_eq!(
            d,
            "{\"schema\": 1, \"file\": \"k.cu\", \"toolchain\": null, \"clean\": false, \
             \"refused\": {\"file\": \"inc/h.cuh\", \"line\": 7, \"message\": \"`asm`: \\\"x\\\"\"}, \
             \"runs\": [], \"summary\": []}\n"
        );
        assert!(json_refused("k.cu", "k.cu", 0, "m").contains("\"line\": null"));
    }

    #[test]
    fn json_strings_are_escaped() {
        assert_eq!(js("a\"b\\c\nd\u{1}"), "\"a\\\"b\\\\c\\nd\\u0001\"");
    }
}

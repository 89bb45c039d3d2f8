//! The repository's documents against its tree: BENCHMARKS.md stays the current results (under
//! 600 lines; the dated narrative lives in benches/history/), and every `benches/results/...` or
//! `benches/history/...` path that BENCHMARKS.md, README.md or docs/*.md cites exists, so pruning
//! raw results cannot leave a dangling citation. A path quoted "at commit X" (or as
//! `X:benches/results/...`, the `git show` form) names a file in git history and is exempt.
//! Pure file reading: no GPU, no backend.

use std::fs;
use std::path::{Path, PathBuf};

/// The most lines BENCHMARKS.md may have (issue #81: the current results, not a lab notebook).
const MAX_BENCHMARKS_LINES: usize = 600;

/// The prefixes whose citations must resolve in the tree.
const CHECKED: [&str; 2] = ["benches/results/", "benches/history/"];

/// How far before a path "at commit" may stand and still qualify it (one sentence, across a
/// line break).
const COMMIT_WINDOW: usize = 120;

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("tests/ sits in the workspace root")
        .to_path_buf()
}

/// The documents whose citations are checked: BENCHMARKS.md, README.md and docs/*.md.
fn documents(root: &Path) -> Vec<PathBuf> {
    let mut docs = vec![root.join("BENCHMARKS.md"), root.join("README.md")];
    let mut more: Vec<PathBuf> = fs::read_dir(root.join("docs"))
        .expect("docs/ is readable")
        .map(|e| e.expect("docs/ entry").path())
        .filter(|p| p.extension().is_some_and(|x| x == "md"))
        .collect();
    more.sort();
    docs.extend(more);
    docs
}

/// Whether `c` ends a cited path (Markdown quoting, punctuation, whitespace).
fn ends_path(c: char) -> bool {
    c.is_whitespace()
        || matches!(
            c,
            '`' | '"' | '\'' | ')' | ']' | '(' | '[' | ',' | ';' | '|'
        )
}

/// The paths under `CHECKED` that `text` cites, each with its byte offset, less those it quotes
/// at a commit (git history) and placeholders such as `benches/results/<name>`.
fn cited_paths(text: &str) -> Vec<(usize, String)> {
    let mut out = Vec::new();
    for prefix in CHECKED {
        let mut from = 0;
        while let Some(i) = text[from..].find(prefix) {
            let start = from + i;
            from = start + prefix.len();
            let rest = &text[start..];
            let end = rest.find(ends_path).unwrap_or(rest.len());
            // A sentence's full stop or colon is not part of the path.
            let path = rest[..end].trim_end_matches(['.', ':']);
            if path.contains(['<', '*', '{', '$']) || in_history(text, start) {
                continue;
            }
            out.push((start, path.to_string()));
        }
    }
    out
}

/// Whether the path at `start` is quoted as it stood at a commit: `HASH:benches/...` (the
/// `git show` form) or "at commit" shortly before it.
fn in_history(text: &str, start: usize) -> bool {
    let before = &text[..start];
    if let Some(head) = before.strip_suffix(':') {
        let hash: String = head
            .chars()
            .rev()
            .take_while(|c| c.is_ascii_hexdigit())
            .collect();
        if hash.len() >= 7 {
            return true;
        }
    }
    let mut w = start.saturating_sub(COMMIT_WINDOW);
    while !text.is_char_boundary(w) {
        w += 1;
    }
    text[w..start].contains("at commit")
}

/// The citations of `text` (a document's contents, named `name` in messages) that do not
/// resolve under `root`.
fn missing(root: &Path, name: &str, text: &str) -> Vec<String> {
    cited_paths(text)
        .into_iter()
        .filter(|(_, p)| !root.join(p).exists())
        .map(|(at, p)| {
            let line = text[..at].matches('\n').count() + 1;
            format!("{name}:{line}: {p}")
        })
        .collect()
}

#[test]
fn benchmarks_md_is_the_current_results_not_a_notebook() {
    let text = fs::read_to_string(root().join("BENCHMARKS.md")).expect("BENCHMARKS.md");
    let lines = text.lines().count();
    assert!(
        lines <= MAX_BENCHMARKS_LINES,
        "BENCHMARKS.md has {lines} lines (at most {MAX_BENCHMARKS_LINES}): move dated narrative \
         to benches/history/<month>.md"
    );
}

#[test]
fn cited_result_and_history_paths_exist() {
    let root = root();
    let mut bad = Vec::new();
    let mut seen = 0;
    for doc in documents(&root) {
        let text = fs::read_to_string(&doc).expect("document is readable");
        let name = doc
            .strip_prefix(&root)
            .unwrap_or(&doc)
            .display()
            .to_string();
        seen += cited_paths(&text).len();
        bad.extend(missing(&root, &name, &text));
    }
    // BENCHMARKS.md links its history files and cites its raw results, so a checker that finds
    // nothing to check is itself broken.
    assert!(
        seen > 0,
        "no benches/results or benches/history citation found"
    );
    assert!(
        bad.is_empty(),
        "cited paths missing from the tree (quote removed files \"at commit X\"):\n{}",
        bad.join("\n")
    );
}

#[test]
fn checker_flags_a_missing_path_and_exempts_history() {
    let root = root();
    let text = "Notes in benches/history/no-such-month.md. Raw: \
                `benches/results/no-such-run-1999-01-01/x.log`. Old: at commit 1b135ea \
                `benches/results/gone-run/`; `git show 1b135ea:benches/results/gone-too/a.txt`; \
                template `benches/results/<name>`.";
    let bad = missing(&root, "synthetic", text);
    assert_eq!(
        bad,
        vec![
            "synthetic:1: benches/results/no-such-run-1999-01-01/x.log".to_string(),
            "synthetic:1: benches/history/no-such-month.md".to_string(),
        ]
    );
    // The line named is the path's own.
    assert_eq!(
        missing(&root, "m", "first\nsecond `benches/results/nope-x`\n"),
        vec!["m:2: benches/results/nope-x".to_string()]
    );
    // An existing path is not reported, with or without a trailing full stop.
    assert!(missing(&root, "synthetic", "See benches/history/README.md.").is_empty());
}

//! The repository's documents and comments against its tree.
//!
//! - BENCHMARKS.md stays the current results (under 600 lines; the dated narrative lives in
//!   benches/history/), and every `benches/results/...` or `benches/history/...` path that
//!   BENCHMARKS.md, README.md or docs/*.md cites exists, so pruning raw results cannot leave a
//!   dangling citation.
//! - Every repository path named in a comment of the Rust and C++ sources (`//`, `//!`, `///`)
//!   or in the Markdown docs (README.md, BENCHMARKS.md, docs/*.md, the packages' READMEs)
//!   exists: a path that starts with a top-level folder (`csrc/...`, `backends/...`, and `src/`
//!   or `tests/` inside a package too, resolved against the file's package first) or an
//!   all-caps Markdown file (`BENCHMARKS.md`: beside the file, at its package's root or the
//!   repository's). So moving a file cannot leave comments pointing at where it was.
//!
//! A path quoted "at commit X" (or as `X:path`, the `git show` form) names a file in git
//! history and is exempt; so are placeholders (`<name>`, `$VAR`), globs (`*`) and `{a,b}`
//! forms. Pure file reading: no GPU, no backend.

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
            '`' | '"' | '\'' | ')' | ']' | '(' | '[' | ',' | ';' | '|' | '\\'
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

// ---- paths named in comments and docs ----

/// The folders at the top of the repository whose paths a comment or doc may name.
const TOP: [&str; 11] = [
    "csrc/",
    "crates/",
    "backends/",
    "ranks/",
    "tools/",
    "tests/",
    "docs/",
    "scripts/",
    "benches/",
    "examples/",
    "src/",
];

/// Folders never walked: build output, git, the toolchain wheels, raw results and the dated
/// history (which quote what the tree held then).
const SKIPPED: [&str; 6] = [
    "target",
    ".git",
    ".venv-cuda",
    "node_modules",
    "benches/results",
    "benches/history",
];

/// The sources whose comments are checked.
const SOURCE_EXTENSIONS: [&str; 7] = ["rs", "cu", "cuh", "h", "hpp", "cpp", "def"];

/// Every file under `dir` (not under `SKIPPED`), sorted.
fn walk(root: &Path, dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = fs::read_dir(dir) else {
        return;
    };
    for e in entries.flatten() {
        let p = e.path();
        let rel = p.strip_prefix(root).unwrap_or(&p);
        if SKIPPED.iter().any(|s| rel == Path::new(s)) {
            continue;
        }
        if p.is_dir() {
            walk(root, &p, out);
        } else {
            out.push(p);
        }
    }
}

fn files(root: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    walk(root, root, &mut out);
    out.sort();
    out
}

/// The Markdown docs: the repository's README.md and BENCHMARKS.md, docs/*.md, and the README
/// of every package.
fn is_doc(root: &Path, p: &Path) -> bool {
    let rel = p.strip_prefix(root).unwrap_or(p);
    if rel.extension().is_none_or(|x| x != "md") {
        return false;
    }
    rel.parent() == Some(Path::new("docs"))
        || rel == Path::new("BENCHMARKS.md")
        || (rel.file_name() == Some("README.md".as_ref())
            && p.parent().is_some_and(|d| d.join("Cargo.toml").is_file()))
}

fn is_source(p: &Path) -> bool {
    p.extension()
        .is_some_and(|x| SOURCE_EXTENSIONS.iter().any(|e| x == *e))
}

/// The comment of a source line: what follows its first `//` outside a string literal, or
/// nothing. (A `//` after an odd number of unescaped quotes is inside a string, as in a URL
/// literal.)
fn comment(line: &str) -> Option<&str> {
    let mut from = 0;
    while let Some(i) = line[from..].find("//") {
        let at = from + i;
        let quotes = line[..at]
            .match_indices('"')
            .filter(|(q, _)| !line[..*q].ends_with('\\'));
        if quotes.count() % 2 == 0 {
            return Some(&line[at + 2..]);
        }
        from = at + 2;
    }
    None
}

/// The text a source file's comments hold, line for line (other lines empty, so offsets keep
/// their line numbers).
fn comments(text: &str) -> String {
    text.lines()
        .map(|l| comment(l).unwrap_or(""))
        .collect::<Vec<_>>()
        .join("\n")
}

/// Whether `c` can stand just before a path (a path inside a longer path or a URL cannot).
fn starts_path(before: Option<char>) -> bool {
    before.is_none_or(|c| !(c.is_ascii_alphanumeric() || matches!(c, '_' | '.' | '/' | '-' | ':')))
}

/// An all-caps Markdown file name (`README.md`, `BENCHMARKS.md`): a document a text may name
/// without its folder.
fn is_doc_name(word: &str) -> bool {
    word.strip_suffix(".md").is_some_and(|stem| {
        !stem.is_empty()
            && stem
                .chars()
                .all(|c| c.is_ascii_uppercase() || c.is_ascii_digit() || c == '_')
    })
}

/// A path segment in capitals that stands for any name (`NAME.cu`, `N`), as `<name>` does;
/// not a Markdown document (`SEMANTICS.md`), whose names are capitals too.
fn is_stand_in(segment: &str) -> bool {
    let (stem, ext) = segment.split_once('.').unwrap_or((segment, ""));
    ext != "md"
        && !stem.is_empty()
        && stem
            .chars()
            .all(|c| c.is_ascii_uppercase() || c.is_ascii_digit() || c == '_')
}

/// The repository paths `text` names, each with its byte offset: those starting with a folder
/// of `TOP` and all-caps Markdown names, less placeholders, globs, brace forms and paths
/// quoted at a commit. A line number or anchor after a path (`:12`, `#section`) is dropped.
fn named_paths(text: &str) -> Vec<(usize, String)> {
    let mut out = Vec::new();
    let mut start = 0;
    for (i, c) in text.char_indices().chain([(text.len(), ' ')]) {
        if !ends_path(c) {
            continue;
        }
        let word = &text[start..i];
        let at = start;
        start = i + c.len_utf8();
        // A sentence's full stop or colon, and a line number or anchor, are not the path's.
        let word = word.split(['#', ':']).next().unwrap_or("");
        let word = word.trim_end_matches(['.', ',']);
        let top = TOP
            .iter()
            .any(|t| word.starts_with(t) && word.len() > t.len());
        if !(top || is_doc_name(word)) || !starts_path(text[..at].chars().next_back()) {
            continue;
        }
        if word.contains(['<', '>', '*', '{', '}', '$']) || word.contains("..") {
            continue;
        }
        if top && word.split('/').any(is_stand_in) {
            continue;
        }
        if in_history(text, at) {
            continue;
        }
        out.push((at, word.to_string()));
    }
    out
}

/// The folder of the package holding `file` (the nearest with a Cargo.toml), or `root`.
fn package_of(root: &Path, file: &Path) -> PathBuf {
    let mut dir = file.parent();
    while let Some(d) = dir {
        if d.join("Cargo.toml").is_file() || d == root {
            return d.to_path_buf();
        }
        dir = d.parent();
    }
    root.to_path_buf()
}

/// Whether `path`, named in `file`, exists: from the file's package, or from the repository's
/// root; a bare Markdown name also beside the file or in docs/, where the documents live.
fn resolves(root: &Path, file: &Path, path: &str) -> bool {
    let mut bases = vec![package_of(root, file), root.to_path_buf()];
    if !path.contains('/') {
        bases.extend(file.parent().map(Path::to_path_buf));
        bases.push(root.join("docs"));
    }
    bases.iter().any(|b| b.join(path).exists())
}

/// Documents outside this repository that comments cite by name: the porting reference the
/// executor's corpus of porting bugs quotes.
const ELSEWHERE: [&str; 1] = ["REFERENCE.md"];

fn exempt(path: &str) -> bool {
    ELSEWHERE.contains(&path)
}

/// The paths `text` (the contents of `file`, under `root`) names that do not resolve, as
/// `file:line: path`.
fn dangling(root: &Path, file: &Path, text: &str) -> Vec<String> {
    let checked = if is_source(file) {
        comments(text)
    } else {
        text.to_string()
    };
    let name = file
        .strip_prefix(root)
        .unwrap_or(file)
        .display()
        .to_string();
    named_paths(&checked)
        .into_iter()
        .filter(|(_, p)| !resolves(root, file, p) && !exempt(p))
        .map(|(at, p)| {
            let line = checked[..at].matches('\n').count() + 1;
            format!("{name}:{line}: {p}")
        })
        .collect()
}

#[test]
fn paths_named_in_comments_and_docs_exist() {
    let root = root();
    let mut bad = Vec::new();
    let (mut sources, mut docs, mut named) = (0, 0, 0);
    for file in files(&root) {
        let (source, doc) = (is_source(&file), is_doc(&root, &file));
        if !(source || doc) {
            continue;
        }
        let Ok(text) = fs::read_to_string(&file) else {
            continue;
        };
        sources += usize::from(source);
        docs += usize::from(doc);
        let checked = if source {
            comments(&text)
        } else {
            text.clone()
        };
        named += named_paths(&checked).len();
        bad.extend(dangling(&root, &file, &text));
    }
    // A checker that reads nothing, or finds nothing to check, is itself broken.
    assert!(
        sources > 100 && docs > 10 && named > 500,
        "read {sources} sources and {docs} docs naming {named} paths"
    );
    assert!(
        bad.is_empty(),
        "paths named in comments or docs missing from the tree (fix the path, or quote a \
         removed file \"at commit X\"):\n{}",
        bad.join("\n")
    );
}

#[test]
fn a_moved_path_in_a_comment_or_doc_is_reported() {
    let root = root();
    let src = root.join("backends/gpu/build.rs");
    // One literal a line: the checker reads this file too, and a `//` after a quote is code.
    let text = concat!(
        "fn main() {} // launchers: see backends/dist/src/lib.rs and src/ffi.rs\n",
        "let url = \"https://example.com/csrc/nope.cu\"; // csrc/kernels/sort.cu\n",
        "/// Moved to ranks/collectives/src/lib.rs; see build/launchers.rs.\n",
        "// NOTES.md is benches/'s; SEMANTICS.md and docs/SEMANTICS.md#device_reduce:12 are docs/'s\n",
        "//! Old: at commit 1b135ea `backends/dist/src/lib.rs`; `<crate>/src/x.rs`; crates/{a,b}\n",
        "// One file a bug, csrc/simt/corpus/NAME.cu, after the porting guide's REFERENCE.md.\n",
    );
    assert_eq!(
        dangling(&root, &src, text),
        vec![
            "backends/gpu/build.rs:1: backends/dist/src/lib.rs".to_string(),
            "backends/gpu/build.rs:4: NOTES.md".to_string(),
        ],
        "build/ is no top-level folder; src/ffi.rs resolves in backends/gpu, a bare document in \
         docs/; the URL is in a string; the quoted-at-commit, placeholder, stand-in and brace \
         forms are exempt"
    );
    // In a Markdown doc the whole text counts, and a bare document name resolves beside it.
    let doc = root.join("docs/SEMANTICS.md");
    assert_eq!(
        dangling(
            &root,
            &doc,
            "See DEVICE_API.md, `tools/cli/src/gone.rs` and tests/repo_paths.rs.\n"
        ),
        vec!["docs/SEMANTICS.md:1: tools/cli/src/gone.rs".to_string()]
    );
    // Code lines of a source are not comments.
    assert!(dangling(&root, &src, "let p = \"backends/none.rs\";\n").is_empty());
}

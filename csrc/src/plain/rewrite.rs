//! The rewritten text of a plain source: the same lines, with its `__shared__` declarations
//! turned into references to the executor's raw shared memory and its host-only function
//! bodies emptied. Every change keeps the line count, so the compiler's lines (and the
//! executor's reports) are the user's.

use super::lex::{Kind, Token};
use super::scan::{Scan, SharedDecl};

/// `src` rewritten as [`Scan`] found it, the bodies `blank` (byte ranges inside their braces)
/// emptied besides the host-only ones.
pub fn rewrite(src: &str, toks: &[Token], scan: &Scan, blank: &[(usize, usize)]) -> String {
    // (start, end, replacement) edits; one inside an emptied body is dropped.
    let mut edits: Vec<(usize, usize, String)> = Vec::new();
    for &(open, close) in scan.blank.iter().chain(blank) {
        edits.push((open, close, newlines(&src[open..close])));
    }
    for &(start, end) in &scan.vendor_includes {
        let text = format!("#include <wk_vendor.h>{}", newlines(&src[start..end]));
        edits.push((start, end, text));
    }
    for d in &scan.shared {
        let (start, end) = (toks[d.first].start, toks[d.last].end);
        let text = shared(src, toks, *d) + &newlines(&src[start..end]);
        edits.push((start, end, text));
    }
    edits.sort_by_key(|e| e.0);
    let mut out = String::with_capacity(src.len() + 256);
    let mut at = 0;
    for (start, end, text) in edits {
        if start < at {
            continue;
        }
        out.push_str(&src[at..start]);
        out.push_str(&text);
        at = end;
    }
    out.push_str(&src[at..]);
    out
}

/// The line breaks of `s`, as many as it has.
fn newlines(s: &str) -> String {
    "\n".repeat(s.matches('\n').count())
}

/// Splits tokens `list` at top-level commas.
fn split_commas(src: &str, toks: &[Token], list: &[usize]) -> Vec<Vec<usize>> {
    let mut out = vec![Vec::new()];
    let mut depth = 0i32;
    for &i in list {
        match toks[i].text(src) {
            "(" | "[" | "{" | "<" => depth += 1,
            ")" | "]" | "}" | ">" => depth -= 1,
            "," if depth == 0 => {
                out.push(Vec::new());
                continue;
            }
            _ => {}
        }
        out.last_mut().expect("never empty").push(i);
    }
    out
}

/// The position in `group` of the declared name: the identifier before the first top-level
/// `[` (an array) or `=`, else the last identifier not followed by `(`.
fn name_at(src: &str, toks: &[Token], group: &[usize]) -> Option<usize> {
    let mut depth = 0i32;
    for (k, &i) in group.iter().enumerate() {
        match toks[i].text(src) {
            "[" | "=" if depth == 0 => {
                return (k > 0 && toks[group[k - 1]].kind == Kind::Ident).then(|| k - 1);
            }
            "(" | "[" | "{" => depth += 1,
            ")" | "]" | "}" => depth -= 1,
            _ => {}
        }
    }
    (0..group.len()).rev().find(|&k| {
        toks[group[k]].kind == Kind::Ident
            && group.get(k + 1).is_none_or(|&n| toks[n].text(src) != "(")
    })
}

/// The text of the tokens `list`, with token `rename` (if any) replaced by `to`.
fn join(src: &str, toks: &[Token], list: &[usize], rename: Option<usize>, to: &str) -> String {
    let mut out = String::new();
    for &i in list {
        if !out.is_empty() {
            out.push(' ');
        }
        out.push_str(if Some(i) == rename {
            to
        } else {
            toks[i].text(src)
        });
    }
    out
}

/// One line of C++ for the declaration `d`: per declarator, a typedef of its type, and the
/// name bound to the block's storage of that type.
fn shared(src: &str, toks: &[Token], d: SharedDecl) -> String {
    let line = toks[d.first].line;
    let mut is_extern = false;
    // The declaration without `;`, the storage keywords and the alignment requests a typedef
    // cannot carry (the executor aligns shared storage to 64 bytes).
    let mut list = Vec::new();
    let mut k = d.first;
    while k < d.last {
        match toks[k].text(src) {
            "__shared__" | "static" => {}
            "extern" => is_extern = true,
            "alignas" | "__declspec" => {
                // Skip the parenthesised argument too.
                let mut depth = 0;
                k += 1;
                while k < d.last {
                    match toks[k].text(src) {
                        "(" => depth += 1,
                        ")" => depth -= 1,
                        _ => {}
                    }
                    if depth == 0 {
                        break;
                    }
                    k += 1;
                }
            }
            _ => list.push(k),
        }
        k += 1;
    }
    let groups = split_commas(src, toks, &list);
    let mut out = String::new();
    let mut specs: Vec<usize> = Vec::new();
    for (g, group) in groups.iter().enumerate() {
        let Some(n) = name_at(src, toks, group) else {
            continue;
        };
        if g == 0 {
            // The specifiers: what precedes the name and its pointer and reference marks.
            let mut end = n;
            while end > 0 && matches!(toks[group[end - 1]].text(src), "*" | "&") {
                end -= 1;
            }
            specs = group[..end].to_vec();
        }
        let name = toks[group[n]].text(src);
        let alias = format!("wk_shared_{name}_{line}");
        let declarator = if g == 0 {
            join(src, toks, group, Some(group[n]), &alias)
        } else {
            format!(
                "{} {}",
                join(src, toks, &specs, None, ""),
                join(src, toks, group, Some(group[n]), &alias)
            )
        };
        out.push_str(&format!("typedef {declarator}; "));
        if is_extern {
            out.push_str(&format!(
                "{alias}& {name} = ::wk_plain::shared_extern<{alias}>(\"{name}\"); "
            ));
        } else {
            let key = format!("wk_shared_key_{name}_{line}");
            out.push_str(&format!(
                "static const char {key} = 0; {alias}& {name} = \
                 ::wk_plain::shared_var<{alias}>(&{key}, \"{name}\"); "
            ));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::super::{lex, scan};
    use super::*;

    fn run(src: &str) -> String {
        let toks = lex::tokens(src);
        let s = scan::scan(src, &toks);
        rewrite(src, &toks, &s, &[])
    }

    #[test]
    fn shared_declarations_become_references_on_their_line() {
        let src = "__global__ void k(float* a) {\n  __shared__ float s[32], t[2][4];\n  \
                   extern __shared__ double dyn[];\n  s[0] = a[0];\n}\n";
        let out = run(src);
        assert_eq!(out.lines().count(), src.lines().count());
        let l2 = out.lines().nth(1).unwrap();
        assert!(l2.contains("typedef float wk_shared_s_2 [ 32 ];"), "{l2}");
        assert!(
            l2.contains("typedef float wk_shared_t_2 [ 2 ] [ 4 ];"),
            "{l2}"
        );
        assert!(
            l2.contains("wk_shared_s_2& s = ::wk_plain::shared_var<wk_shared_s_2>(&wk_shared_key_s_2, \"s\");"),
            "{l2}"
        );
        let l3 = out.lines().nth(2).unwrap();
        assert!(l3.contains("typedef double wk_shared_dyn_3 [ ];"), "{l3}");
        assert!(
            l3.contains("::wk_plain::shared_extern<wk_shared_dyn_3>(\"dyn\")"),
            "{l3}"
        );
        assert!(out.lines().nth(3).unwrap().contains("s[0] = a[0];"));
    }

    #[test]
    fn host_bodies_are_emptied_and_device_code_kept() {
        let src = "int main() {\n  k<<<1, 2>>>(x);\n  return 0;\n}\n\
                   __device__ int f() { return 1; }\n\
                   template <class T> __host__ __device__ T g(T x) { return x; }\n\
                   struct S { int h() { return 2; } };\n";
        let out = run(src);
        assert_eq!(out.lines().count(), src.lines().count());
        assert!(!out.contains("<<<") && !out.contains("return 0"));
        assert!(out.starts_with("int main() {\n\n\n}"));
        assert!(out.contains("__device__ int f() { return 1; }"));
        assert!(out.contains("T g(T x) { return x; }"));
        assert!(out.contains("int h() { return 2; }"));
    }
}

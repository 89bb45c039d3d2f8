//! The rewritten text of a plain source: the same lines, with its `__shared__` declarations
//! turned into references to the executor's raw shared memory and its host-only function
//! bodies emptied. Every change keeps the line count, so the compiler's lines (and the
//! executor's reports) are the user's.

use super::lex::{Kind, Token};
use super::scan::{Scan, SharedDecl};

/// `src` rewritten as [`Scan`] found it, the bodies `blank` (byte ranges inside their braces)
/// emptied besides the host-only ones. `included`: the [`ns_bindings`] of the headers it
/// includes, bound in every device function of it that names them.
pub fn rewrite(
    src: &str,
    toks: &[Token],
    scan: &Scan,
    blank: &[(usize, usize)],
    included: &[(String, String)],
) -> String {
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
        let text: String = declarators(src, toks, *d)
            .iter()
            .map(|p| format!("{}{}", p.declare, p.bind))
            .collect();
        edits.push((start, end, text + &newlines(&src[start..end])));
    }
    // A namespace-scope declaration keeps its type and key where it is; each device function
    // after it that names it binds the name to the running block's storage at the top of its
    // body (a function whose parameter has the name is left alone).
    // The headers' come first: their declarations lie before anything of this file.
    let mut bindings: Vec<(usize, String, String)> = included
        .iter()
        .map(|(name, bind)| (0, name.clone(), bind.clone()))
        .collect();
    for d in &scan.ns_shared {
        let (start, end) = (toks[d.first].start, toks[d.last].end);
        let parts = declarators(src, toks, *d);
        let text: String = parts.iter().map(|p| p.declare.as_str()).collect();
        edits.push((start, end, text + &newlines(&src[start..end])));
        bindings.extend(parts.into_iter().map(|p| (end, p.name, p.bind)));
    }
    let with_bindings = scan.fns.iter().filter(|_| !bindings.is_empty());
    for f in with_bindings.filter(|f| !f.host && f.close > f.open) {
        let first = toks.partition_point(|t| t.start < f.start);
        let head: Vec<&str> = toks[first..]
            .iter()
            .take_while(|t| t.end < f.open)
            .map(|t| t.text(src))
            .collect();
        let text: String = bindings
            .iter()
            .filter(|(end, name, _)| {
                *end <= f.start
                    && f.idents.binary_search(name).is_ok()
                    && !head.contains(&name.as_str())
            })
            .map(|(_, _, bind)| bind.as_str())
            .collect();
        if !text.is_empty() {
            edits.push((f.open, f.open, text));
        }
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

/// The names the namespace-scope `__shared__` declarations of a file declare, each with the
/// C++ that binds it to the running block's storage: what [`rewrite`] gives the files that
/// include it.
pub fn ns_bindings(src: &str, toks: &[Token], scan: &Scan) -> Vec<(String, String)> {
    scan.ns_shared
        .iter()
        .flat_map(|d| declarators(src, toks, *d))
        .map(|p| (p.name, p.bind))
        .collect()
}

/// One declarator of a `__shared__` declaration, as C++ on one line: where the declaration
/// is, a typedef of its type and the key of its storage (`declare`); where the name is used,
/// the name bound to the running block's storage of that type (`bind`).
struct Declarator {
    name: String,
    declare: String,
    bind: String,
}

/// The declarators of the declaration `d`.
fn declarators(src: &str, toks: &[Token], d: SharedDecl) -> Vec<Declarator> {
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
    let mut out = Vec::new();
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
        let (declare, bind) = if is_extern {
            (
                format!("typedef {declarator}; "),
                format!("{alias}& {name} = ::wk_plain::shared_extern<{alias}>(\"{name}\"); "),
            )
        } else {
            let key = format!("wk_shared_key_{name}_{line}");
            (
                format!("typedef {declarator}; static const char {key} = 0; "),
                format!("{alias}& {name} = ::wk_plain::shared_var<{alias}>(&{key}, \"{name}\"); "),
            )
        };
        out.push(Declarator {
            name: name.to_string(),
            declare,
            bind,
        });
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
        rewrite(src, &toks, &s, &[], &[])
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
    fn namespace_scope_shared_is_bound_in_each_function_that_names_it() {
        let src = "__device__ int before(int tile) { return tile; }\n\
                   __shared__ int tile[64], total;\nextern __shared__ float dyn[];\n\
                   __device__ int sum(int n) {\n  int s = 0;\n  for (int i = 0; i < n; ++i) s += tile[i];\n  return s;\n}\n\
                   __global__ void a(int* o) { tile[threadIdx.x] = 1; o[0] = sum(4) + total; }\n\
                   __global__ void b(float* o) { o[0] = dyn[0]; }\n\
                   __device__ int shadow(int total) { return total; }\n\
                   int host() { return total; }\n";
        let out = run(src);
        assert_eq!(out.lines().count(), src.lines().count(), "{out}");
        let line = |n: usize| out.lines().nth(n - 1).unwrap().to_string();
        // Types and keys where the declarations were; no storage there.
        let l2 = line(2);
        assert!(
            l2.contains("typedef int wk_shared_tile_2 [ 64 ];")
                && l2.contains("static const char wk_shared_key_tile_2 = 0;")
                && l2.contains("typedef int wk_shared_total_2;")
                && !l2.contains("shared_var"),
            "{l2}"
        );
        assert!(
            line(3).contains("typedef float wk_shared_dyn_3 [ ];"),
            "{out}"
        );
        // A function before the declaration, or whose parameter has the name, is left alone.
        assert_eq!(line(1), "__device__ int before(int tile) { return tile; }");
        assert!(!line(11).contains("wk_shared"), "{out}");
        // Each function after it binds the names it uses, on its own line.
        let l4 = line(4);
        assert!(
            l4.starts_with("__device__ int sum(int n) {wk_shared_tile_2& tile = ::wk_plain::shared_var<wk_shared_tile_2>(&wk_shared_key_tile_2, \"tile\");")
                && !l4.contains("total"),
            "{l4}"
        );
        let l9 = line(9);
        assert!(
            l9.contains("wk_shared_tile_2& tile =") && l9.contains("wk_shared_total_2& total ="),
            "{l9}"
        );
        assert!(
            line(10).contains(
                "wk_shared_dyn_3& dyn = ::wk_plain::shared_extern<wk_shared_dyn_3>(\"dyn\");"
            ),
            "{out}"
        );
        // Host bodies are emptied, not bound.
        assert_eq!(line(12), "int host() {}");
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

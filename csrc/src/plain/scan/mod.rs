//! What the rewriter must know of a plain CUDA or HIP file, read from its tokens without a
//! C++ parser: the scopes (namespaces, classes, function bodies), its kernels with their scope
//! and template parameters, the data members of its structs, its `__shared__` declarations,
//! which function bodies are host-only (no `__device__`/`__global__`, so device code cannot
//! call them), the local headers it includes, and the constructs the executor cannot model.

mod heads;

use super::lex::{Kind, Token};
use super::unsupported;
use heads::{
    alias_keys, at_namespace_scope, has, initialises, mark_not_simple, member, namespaces,
    param_paren, shared_decl, strip_template,
};

/// A `__global__` function of the file.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct KernelDecl {
    /// Its name.
    pub name: String,
    /// The namespaces around it, outermost first (anonymous ones left out).
    pub scope: Vec<String>,
    /// Its template parameter list, `<...>` as written, if it is a template.
    pub template: Option<String>,
    /// Its parameter list as written.
    pub params: String,
    /// The line of its name.
    pub line: u32,
}

/// A struct or class defined at namespace scope.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct StructDecl {
    /// Its name.
    pub name: String,
    /// The namespaces around it.
    pub scope: Vec<String>,
    /// Its data members in order, or None where they cannot all be named from the source (a
    /// base class, a bit-field, a nested type, a template).
    pub fields: Option<Vec<String>>,
}

/// A `__shared__` declaration: tokens `first..=last` (`last` its `;`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SharedDecl {
    /// Its first token (a specifier before `__shared__`, or `__shared__`).
    pub first: usize,
    /// Its `;`.
    pub last: usize,
}

/// A construct the executor cannot model, and its line.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Unsupported {
    /// Its line.
    pub line: u32,
    /// What it is and why it cannot run, in a sentence.
    pub what: String,
    /// Its first byte: the function whose head or body holds it, if any, is what reaches it.
    pub at: usize,
    /// A name whose use reaches it from elsewhere: the macro whose body holds it, or the
    /// type alias (`typedef`, `using`) that names it.
    pub key: Option<String>,
    /// Whether it parses through the imitation headers (a type or namespace of a library,
    /// a texture type): outside every function it is left to the compiler, not refused.
    pub parses: bool,
    /// Whether a cooperative launch models it (`grid.sync()`): refused only in a program not
    /// built for one ([`Program::set_cooperative`](super::Program::set_cooperative)).
    pub cooperative: bool,
}

/// A function defined in the file (a kernel, a device or host function, a member function):
/// what a kernel's call graph is made of.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FnDef {
    /// Its name (a constructor's is its class's; `operator` for an operator).
    pub name: String,
    /// The first byte of its declaration (its `template` head included).
    pub start: usize,
    /// The byte after its closing brace.
    pub end: usize,
    /// Where its body's braces are: `open` just after `{`, `close` at `}`.
    pub open: usize,
    /// The `}` closing its body.
    pub close: usize,
    /// A host-only function (no `__device__`/`__global__`): device code cannot call it.
    pub host: bool,
    /// The identifiers of its head and body, sorted, once each: the functions it may call.
    pub idents: Vec<String>,
}

/// What [`scan`] found.
#[derive(Clone, Debug, Default)]
pub struct Scan {
    /// Kernels, in order (a declaration and its later definition once).
    pub kernels: Vec<KernelDecl>,
    /// Structs at namespace scope.
    pub structs: Vec<StructDecl>,
    /// `__shared__` declarations inside function bodies.
    pub shared: Vec<SharedDecl>,
    /// `__shared__` declarations at namespace scope: every device function after one that
    /// names it is given its own binding to the running block's storage, so that each launch
    /// (each block) has its own, as on the GPU.
    pub ns_shared: Vec<SharedDecl>,
    /// Byte ranges of host-only function bodies, inside their braces.
    pub blank: Vec<(usize, usize)>,
    /// `#include "..."` paths and their lines, at namespace or class scope: headers. (One
    /// inside a function body includes a fragment of code, compiled where it is, as it is.)
    pub includes: Vec<(String, u32)>,
    /// `#include <...>` paths and their lines, at namespace or class scope (headers a
    /// program's include folders may hold).
    pub system_includes: Vec<(String, u32)>,
    /// What cannot run, in source order.
    pub unsupported: Vec<Unsupported>,
    /// Whether it declares dynamic shared memory (`extern __shared__`, HIP_DYNAMIC_SHARED),
    /// which a launch must size.
    pub dynamic_shared: bool,
    /// Kernels an `#if` of the toolchain drops (found by a scan of every token; the program
    /// fills this in).
    pub hidden: Vec<KernelDecl>,
    /// The functions it defines, in order.
    pub fns: Vec<FnDef>,
    /// Byte ranges of the `#include` directives of libraries the executor does not model,
    /// which the rewriter points at the imitation's vendor.h.
    pub vendor_includes: Vec<(usize, usize)>,
    /// `#include "..."` of a path that names such a library's header, with its byte range:
    /// the program replaces it as a system one when no such file is there to read (a
    /// library kept as a submodule that was not checked out: `#include "cub/cub/cub.cuh"`).
    pub vendor_quoted: Vec<(String, (usize, usize))>,
    /// Whether the file uses HIP's spellings (its headers, hipThreadIdx_x, a mask-free
    /// `__shfl_down`, `__ballot`...): AMD's lockstep wave is then its natural schedule.
    pub hip: bool,
}

#[derive(Clone, Debug)]
enum Scope {
    Namespace(Option<String>),
    /// A class body; the index of its StructDecl when at namespace scope.
    Class(Option<usize>),
    /// A brace block that is not a scope of declarations: a function body (`blank` if it is
    /// host-only), an initialiser, an enum. `depth` counts the braces open inside it.
    Body {
        blank: bool,
        open: usize,
        depth: u32,
        /// The function it is the body of: its index in `fns` and its head's first token.
        func: Option<(usize, usize)>,
    },
}

/// Identifiers in a declaration head that take a parenthesised argument and are not the
/// declarator: a kernel's name is the identifier before the first other `(`.
const ATTRIBUTES: &[&str] = &[
    "__launch_bounds__",
    "__align__",
    "__attribute__",
    "alignas",
    "__declspec",
    "decltype",
    "__cluster_dims__",
    "__maxnreg__",
];

/// Scans `toks` of `src`.
pub fn scan(src: &str, toks: &[Token]) -> Scan {
    scan_active(src, toks, &vec![true; toks.len()])
}

/// Scans the tokens of `toks` that `active` marks (those the preprocessor keeps), skipping
/// the groups of a false `#if`.
pub fn scan_active(src: &str, toks: &[Token], active: &[bool]) -> Scan {
    let mut s = Scan::default();
    let mut scopes: Vec<Scope> = Vec::new();
    let mut head: Vec<usize> = Vec::new();
    // A `typedef struct { ... } Name;` whose name follows its closing brace.
    let mut typedef_name: Option<usize> = None;
    let text = |i: usize| toks[i].text(src);
    for i in 0..toks.len() {
        let t = toks[i];
        if !active[i] {
            continue;
        }
        if t.kind == Kind::Directive {
            let in_body = matches!(scopes.last(), Some(Scope::Body { .. }));
            directive(&mut s, t, src, in_body);
            continue;
        }
        let word = text(i);
        let in_body = matches!(scopes.last(), Some(Scope::Body { .. }));
        let blank = matches!(scopes.last(), Some(Scope::Body { blank: true, .. }));
        if !blank {
            if t.kind == Kind::Ident {
                let libns = unsupported::library(word).is_none()
                    || !matches!(word, "cub" | "hipcub" | "thrust" | "cute" | "cutlass")
                    || toks.get(i + 1).is_some_and(|n| n.text(src) == "::");
                let cudans = word == "cuda"
                    && toks.get(i + 1).is_some_and(|n| n.text(src) == "::")
                    && (i == 0 || toks[i - 1].text(src) != "::");
                if cudans {
                    s.unsupported.push(Unsupported {
                        line: t.line,
                        what: "`cuda::`: libcu++, a library the executor does not model"
                            .to_string(),
                        at: t.start,
                        key: None,
                        parses: true,
                        cooperative: false,
                    });
                } else if libns && let Some(what) = unsupported::ident(word, in_body) {
                    s.unsupported.push(Unsupported {
                        line: t.line,
                        what,
                        at: t.start,
                        key: None,
                        parses: unsupported::parses(word),
                        cooperative: false,
                    });
                }
                s.hip |= unsupported::is_hip(word);
            }
            if word == "<" && launch_at(src, toks, i) {
                s.unsupported.push(Unsupported {
                    line: t.line,
                    what: unsupported::DYNAMIC_PARALLELISM.to_string(),
                    at: t.start,
                    key: None,
                    parses: false,
                    cooperative: false,
                });
            }
        }
        if let Some(Scope::Body {
            blank,
            open,
            depth,
            func,
        }) = scopes.last_mut()
        {
            match word {
                "{" => *depth += 1,
                "}" if *depth > 0 => *depth -= 1,
                "}" => {
                    if *blank {
                        s.blank.push((*open, t.start));
                    }
                    if let Some((f, first)) = *func {
                        close_fn(&mut s, src, toks, f, first, i);
                    }
                    scopes.pop();
                    head.clear();
                }
                "__shared__" if !*blank => {
                    if let Some(d) = shared_decl(src, toks, i) {
                        s.dynamic_shared |=
                            (d.first..d.last).any(|k| toks[k].text(src) == "extern");
                        s.shared.push(d);
                    }
                }
                "HIP_DYNAMIC_SHARED" if !*blank => s.dynamic_shared = true,
                _ => {}
            }
            continue;
        }
        let in_class = matches!(scopes.last(), Some(Scope::Class(_)));
        match word {
            "{" => {
                let scope = open_scope(&mut s, src, toks, &head, &scopes, t.end);
                if let Scope::Class(Some(k)) = scope
                    && head.first().is_some_and(|&h| text(h) == "typedef")
                {
                    typedef_name = Some(k);
                }
                if in_class && !matches!(scope, Scope::Body { .. }) {
                    // A type nested in a class: the class's members cannot all be named.
                    mark_not_simple(&mut s, &scopes);
                }
                scopes.push(scope);
                head.clear();
            }
            ";" => {
                if in_class {
                    member(&mut s, src, toks, &head, &scopes);
                } else {
                    declaration(&mut s, src, toks, &head, &scopes);
                    alias_keys(&mut s, src, toks, &head, t.start);
                    if let Some(k) = typedef_name.take()
                        && let Some(&n) = head.iter().rev().find(|&&h| toks[h].kind == Kind::Ident)
                    {
                        s.structs[k].name = text(n).to_string();
                    }
                }
                head.clear();
            }
            "}" => {
                scopes.pop();
                head.clear();
            }
            _ => head.push(i),
        }
    }
    s
}

/// Whether the `<` at `i` starts `<<<`, the launch syntax.
fn launch_at(src: &str, toks: &[Token], i: usize) -> bool {
    i + 2 < toks.len()
        && (1..3).all(|k| toks[i + k].text(src) == "<" && toks[i + k].start == toks[i + k - 1].end)
        && !(i > 0 && toks[i - 1].text(src) == "<" && toks[i - 1].end == toks[i].start)
}

fn directive(s: &mut Scan, t: Token, src: &str, in_body: bool) {
    let (d, line) = (t.text(src), t.line);
    let body = d[1..].trim_start();
    if let Some(rest) = body.strip_prefix("include") {
        let rest = rest.trim();
        if let Some(p) = rest.strip_prefix('"').and_then(|r| r.split('"').next()) {
            if !in_body {
                s.includes.push((p.to_string(), line));
            }
            if unsupported::vendor_header(p) {
                s.vendor_quoted.push((p.to_string(), (t.start, t.end)));
            }
        } else if let Some(p) = rest.strip_prefix('<').and_then(|r| r.split('>').next()) {
            s.hip |= p.starts_with("hip/");
            if !in_body {
                s.system_includes.push((p.to_string(), line));
            }
            if unsupported::vendor_header(p) {
                s.vendor_includes.push((t.start, t.end));
            }
        }
    } else if let Some(def) = body.strip_prefix("define") {
        // A macro's body is code wherever it is used: inline assembly in one is found here,
        // and refused where code a kernel reaches names the macro.
        let toks = super::lex::tokens(def);
        let key = toks
            .first()
            .filter(|n| n.kind == Kind::Ident)
            .map(|n| n.text(def).to_string());
        for m in toks.iter().skip(1) {
            if m.kind == Kind::Ident
                && let Some(what) = unsupported::in_macro(m.text(def))
            {
                s.unsupported.push(Unsupported {
                    line,
                    what,
                    at: t.start,
                    key: key.clone(),
                    parses: false,
                    cooperative: false,
                });
            }
        }
    }
}

/// The scope a `{` after `head` opens, recording a kernel or struct it defines.
fn open_scope(
    s: &mut Scan,
    src: &str,
    toks: &[Token],
    head: &[usize],
    scopes: &[Scope],
    body_start: usize,
) -> Scope {
    let text = |h: usize| toks[h].text(src);
    let body = |blank| Scope::Body {
        blank,
        open: body_start,
        depth: 0,
        func: None,
    };
    let (rest, template) = strip_template(src, toks, head);
    let first = rest.first().map(|&h| text(h));
    let first = if first == Some("inline") {
        rest.get(1).map(|&h| text(h))
    } else {
        first
    };
    if first == Some("namespace") {
        let name: Vec<&str> = rest
            .iter()
            .map(|&h| text(h))
            .skip_while(|w| *w != "namespace")
            .skip(1)
            .filter(|w| *w != "::")
            .collect();
        return Scope::Namespace((!name.is_empty()).then(|| name.join("::")));
    }
    if first == Some("extern") && rest.len() == 2 && toks[rest[1]].kind == Kind::Str {
        return Scope::Namespace(None);
    }
    let class_kw = rest
        .iter()
        .position(|&h| matches!(text(h), "struct" | "class" | "union"))
        .filter(|&k| k == 0 || (k == 1 && text(rest[0]) == "typedef"));
    if let Some(k) = class_kw {
        if !at_namespace_scope(scopes) {
            return Scope::Class(None);
        }
        // The name: the last identifier before `:` (a base list) or the brace, past
        // attribute groups.
        let mut name = None;
        let mut depth = 0i32;
        let mut bases = false;
        for &h in &rest[k + 1..] {
            match text(h) {
                "(" => depth += 1,
                ")" => depth -= 1,
                ":" if depth == 0 => {
                    bases = true;
                    break;
                }
                w if depth == 0
                    && toks[h].kind == Kind::Ident
                    && !ATTRIBUTES.contains(&w)
                    && w != "final" =>
                {
                    name = Some(w.to_string());
                }
                _ => {}
            }
        }
        s.structs.push(StructDecl {
            name: name.unwrap_or_default(),
            scope: namespaces(scopes),
            fields: (!bases && template.is_none()).then(Vec::new),
        });
        return Scope::Class(Some(s.structs.len() - 1));
    }
    if first.is_some_and(|w| w == "enum") || initialises(src, toks, rest) {
        return body(false);
    }
    match param_paren(src, toks, rest) {
        Some(p) => {
            let kept = ["__device__", "__global__", "constexpr"]
                .iter()
                .any(|w| has(src, toks, rest, w));
            if has(src, toks, rest, "__global__") && at_namespace_scope(scopes) {
                add_kernel(s, src, toks, rest, p, template, scopes);
            }
            // Host code in a class is compiled as it is: only namespace-scope functions,
            // which device code cannot call without __device__, are emptied.
            let blank = !kept && at_namespace_scope(scopes);
            let first = head.first().copied().unwrap_or(rest[0]);
            s.fns.push(FnDef {
                name: fn_name(src, toks, rest, p),
                start: toks[first].start,
                end: 0,
                open: body_start,
                close: 0,
                host: blank,
                idents: Vec::new(),
            });
            Scope::Body {
                blank,
                open: body_start,
                depth: 0,
                func: Some((s.fns.len() - 1, first)),
            }
        }
        None => body(false),
    }
}

/// The name of the function whose parameter list opens at `rest[paren]`: the identifier
/// before it, past explicit template arguments and a `~`.
fn fn_name(src: &str, toks: &[Token], rest: &[usize], paren: usize) -> String {
    toks[rest[name_at(src, toks, rest, paren)]]
        .text(src)
        .to_string()
}

/// The index in `rest` of the name before the parameter list that opens at `rest[paren]`:
/// the token before it, or before the `<` of explicit template arguments written there.
fn name_at(src: &str, toks: &[Token], rest: &[usize], paren: usize) -> usize {
    let text = |h: usize| toks[h].text(src);
    let mut k = paren.saturating_sub(1);
    if text(rest[k]) == ">" {
        let mut depth = 0i32;
        while k > 0 {
            match text(rest[k]) {
                ">" => depth += 1,
                "<" => depth -= 1,
                _ => {}
            }
            k -= 1;
            if depth == 0 {
                break;
            }
        }
    }
    k
}

/// Completes the function `f` whose body closes at token `close` (its head from token
/// `first`): its identifiers, and the grid-wide barriers it calls.
fn close_fn(s: &mut Scan, src: &str, toks: &[Token], f: usize, first: usize, close: usize) {
    s.fns[f].close = toks[close].start;
    s.fns[f].end = toks[close].end;
    if s.fns[f].host {
        return;
    }
    let range = &toks[first..=close];
    let mut idents: Vec<String> = range
        .iter()
        .filter(|t| t.kind == Kind::Ident)
        .map(|t| t.text(src).to_string())
        .collect();
    idents.sort();
    idents.dedup();
    s.fns[f].idents = idents;
    for (line, at) in heads::grid_syncs(src, range) {
        s.unsupported.push(Unsupported {
            line,
            what: unsupported::GRID_SYNC.to_string(),
            at,
            key: None,
            parses: false,
            cooperative: true,
        });
    }
}

fn add_kernel(
    s: &mut Scan,
    src: &str,
    toks: &[Token],
    rest: &[usize],
    paren: usize,
    template: Option<String>,
    scopes: &[Scope],
) {
    let text = |h: usize| toks[h].text(src);
    // The name, before any explicit template arguments, and a qualification written on it.
    let k = name_at(src, toks, rest, paren);
    let name = text(rest[k]).to_string();
    let mut scope = namespaces(scopes);
    let mut q = Vec::new();
    let mut j = k;
    while j >= 2 && text(rest[j - 1]) == "::" && toks[rest[j - 2]].kind == Kind::Ident {
        q.push(text(rest[j - 2]).to_string());
        j -= 2;
    }
    scope.extend(q.into_iter().rev());
    let mut depth = 0i32;
    let mut close = paren;
    for (m, &h) in rest.iter().enumerate().skip(paren) {
        match text(h) {
            "(" => depth += 1,
            ")" => depth -= 1,
            _ => {}
        }
        if depth == 0 {
            close = m;
            break;
        }
    }
    let params = if close > paren + 1 {
        src[toks[rest[paren + 1]].start..toks[rest[close - 1]].end].to_string()
    } else {
        String::new()
    };
    let decl = KernelDecl {
        name,
        scope,
        template,
        params,
        line: toks[rest[k]].line,
    };
    if let Some(old) = s
        .kernels
        .iter_mut()
        .find(|o| o.name == decl.name && o.scope == decl.scope && o.template == decl.template)
    {
        *old = decl;
    } else {
        s.kernels.push(decl);
    }
}

/// A declaration ending in `;` at namespace scope: a kernel's, or a `__shared__` variable,
/// which the rewriter binds in each function that names it (see [`Scan::ns_shared`]).
fn declaration(s: &mut Scan, src: &str, toks: &[Token], head: &[usize], scopes: &[Scope]) {
    let (rest, template) = strip_template(src, toks, head);
    if has(src, toks, rest, "__global__")
        && let Some(p) = param_paren(src, toks, rest)
    {
        add_kernel(s, src, toks, rest, p, template, scopes);
    }
    if let Some(&h) = rest.iter().find(|&&h| toks[h].text(src) == "__shared__")
        && let Some(d) = shared_decl(src, toks, h)
    {
        s.dynamic_shared |= (d.first..d.last).any(|k| toks[k].text(src) == "extern");
        s.ns_shared.push(d);
    }
}

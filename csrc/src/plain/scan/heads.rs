//! Declaration heads, read token by token: template groups, the declarator's parameter
//! list, initialisers, a class's data members, a `__shared__` declaration's extent.

use super::super::lex::{Kind, Token};
use super::{ATTRIBUTES, Scan, Scope, SharedDecl};

/// The head without its leading `template <...>` groups, and the last group's text.
pub(super) fn strip_template<'h>(
    src: &str,
    toks: &[Token],
    head: &'h [usize],
) -> (&'h [usize], Option<String>) {
    let mut rest = head;
    let mut params = None;
    while rest
        .first()
        .is_some_and(|&h| toks[h].text(src) == "template")
    {
        let mut depth = 0i32;
        let mut end = 1;
        for (k, &h) in rest.iter().enumerate().skip(1) {
            match toks[h].text(src) {
                "<" => depth += 1,
                ">" => depth -= 1,
                _ => {}
            }
            if depth == 0 {
                end = k + 1;
                break;
            }
        }
        if end > 1 {
            params = Some(src[toks[rest[1]].start..toks[rest[end - 1]].end].to_string());
        }
        rest = &rest[end.min(rest.len())..];
    }
    (rest, params)
}

/// The position in `head` of the `(` opening the declarator's parameter list, if any.
pub(super) fn param_paren(src: &str, toks: &[Token], head: &[usize]) -> Option<usize> {
    let mut depth = 0i32;
    for (k, &h) in head.iter().enumerate() {
        match toks[h].text(src) {
            "(" => {
                if depth == 0 && k > 0 {
                    let before = toks[head[k - 1]];
                    let attr = ATTRIBUTES.contains(&before.text(src));
                    if (before.kind == Kind::Ident || before.text(src) == ">") && !attr {
                        return Some(k);
                    }
                }
                depth += 1;
            }
            ")" => depth -= 1,
            _ => {}
        }
    }
    None
}

/// Whether the head has `=` outside parentheses that is no `operator=`: an initialiser.
pub(super) fn initialises(src: &str, toks: &[Token], head: &[usize]) -> bool {
    let mut depth = 0i32;
    for (k, &h) in head.iter().enumerate() {
        match toks[h].text(src) {
            "(" | "[" => depth += 1,
            ")" | "]" => depth -= 1,
            "=" if depth == 0 => {
                let after_operator =
                    (1..=2).any(|b| k >= b && matches!(toks[head[k - b]].text(src), "operator"));
                if !after_operator {
                    return true;
                }
            }
            _ => {}
        }
    }
    false
}

pub(super) fn has(src: &str, toks: &[Token], head: &[usize], word: &str) -> bool {
    head.iter().any(|&h| toks[h].text(src) == word)
}

pub(super) fn namespaces(scopes: &[Scope]) -> Vec<String> {
    scopes
        .iter()
        .filter_map(|sc| match sc {
            Scope::Namespace(Some(n)) => Some(n.clone()),
            _ => None,
        })
        .collect()
}

pub(super) fn at_namespace_scope(scopes: &[Scope]) -> bool {
    scopes.iter().all(|sc| matches!(sc, Scope::Namespace(_)))
}

pub(super) fn mark_not_simple(s: &mut Scan, scopes: &[Scope]) {
    for sc in scopes {
        if let Scope::Class(Some(k)) = sc {
            s.structs[*k].fields = None;
        }
    }
}

/// A member declaration of the innermost class: the names of its data members.
pub(super) fn member(s: &mut Scan, src: &str, toks: &[Token], head: &[usize], scopes: &[Scope]) {
    let Some(Scope::Class(Some(k))) = scopes.last() else {
        return;
    };
    let text = |h: usize| toks[h].text(src);
    let mut rest = head;
    while rest.len() >= 2
        && matches!(text(rest[0]), "public" | "private" | "protected")
        && text(rest[1]) == ":"
    {
        rest = &rest[2..];
    }
    let Some(&first) = rest.first() else {
        return;
    };
    if matches!(
        text(first),
        "static" | "typedef" | "using" | "friend" | "template" | "static_assert" | "enum"
    ) || param_paren(src, toks, rest).is_some()
    {
        return;
    }
    if matches!(text(first), "struct" | "class" | "union") {
        s.structs[*k].fields = None;
        return;
    }
    let mut names = Vec::new();
    let mut depth = 0i32;
    let mut name: Option<&str> = None;
    let mut done = false;
    let mut simple = true;
    for &h in rest.iter().chain(std::iter::once(&usize::MAX)) {
        let w = if h == usize::MAX { "," } else { text(h) };
        match w {
            "(" | "[" | "{" | "<" => {
                if depth == 0 && w != "<" {
                    done = true;
                }
                depth += 1;
            }
            ")" | "]" | "}" | ">" => depth -= 1,
            "=" if depth == 0 => done = true,
            ":" if depth == 0 => {
                simple = false; // a bit-field: offsetof cannot take it
                done = true;
            }
            "," if depth == 0 => {
                match name.take() {
                    Some(n) => names.push(n.to_string()),
                    None => simple = false,
                }
                done = false;
            }
            _ if depth == 0 && !done && toks[h].kind == Kind::Ident && !ATTRIBUTES.contains(&w) => {
                name = Some(w);
            }
            _ => {}
        }
    }
    match (&mut s.structs[*k].fields, simple) {
        (Some(f), true) => f.extend(names),
        (f, _) => *f = None,
    }
}

/// The `__shared__` declaration whose `__shared__` is token `i`: from the statement's start
/// to its `;`.
pub(super) fn shared_decl(src: &str, toks: &[Token], i: usize) -> Option<SharedDecl> {
    let mut first = i;
    while first > 0 {
        let p = toks[first - 1];
        if p.kind == Kind::Directive || matches!(p.text(src), ";" | "{" | "}") {
            break;
        }
        first -= 1;
    }
    let mut depth = 0i32;
    for (k, t) in toks.iter().enumerate().skip(i) {
        match t.text(src) {
            "(" | "[" | "{" => depth += 1,
            ")" | "]" | "}" => depth -= 1,
            ";" if depth == 0 => return Some(SharedDecl { first, last: k }),
            _ => {}
        }
        if t.kind == Kind::Directive {
            return None;
        }
    }
    None
}

/// The `grid.sync()` calls of a function's tokens (head and body), each line and byte: a
/// `.sync(` on a variable declared `grid_group` or initialised from `this_grid()`, on
/// `this_grid()` itself, or `cg::sync(grid)`. Any other member of a grid group runs.
pub(super) fn grid_syncs(src: &str, toks: &[Token]) -> Vec<(u32, usize)> {
    let text = |k: usize| toks.get(k).map_or("", |t| t.text(src));
    let mut grids: Vec<&str> = Vec::new();
    for k in 0..toks.len() {
        match text(k) {
            "grid_group" => {
                // `grid_group [const] [&|*] NAME`.
                let mut j = k + 1;
                while matches!(text(j), "const" | "&" | "*") {
                    j += 1;
                }
                if toks.get(j).is_some_and(|t| t.kind == Kind::Ident) {
                    grids.push(text(j));
                }
            }
            "this_grid" => {
                // `NAME = ...this_grid()` or `NAME(...this_grid())` / `NAME{...}`.
                let mut j = k;
                while j > 0 && !matches!(text(j - 1), ";" | "{" | "}") {
                    j -= 1;
                    if matches!(text(j), "=" | "(" | "{")
                        && j > 0
                        && toks[j - 1].kind == Kind::Ident
                        && !matches!(text(j - 1), "this_grid" | "auto")
                    {
                        grids.push(text(j - 1));
                        break;
                    }
                }
            }
            _ => {}
        }
    }
    let mut out = Vec::new();
    for (k, tok) in toks.iter().enumerate() {
        let member = text(k) == "sync"
            && text(k + 1) == "("
            && k >= 2
            && matches!(text(k - 1), "." | "->")
            && (grids.contains(&text(k - 2)) || (text(k - 2) == ")" && text(k - 4) == "this_grid"));
        let free = text(k) == "sync"
            && text(k + 1) == "("
            && (grids.contains(&text(k + 2)) || text(k + 2) == "this_grid")
            && !(k >= 1 && matches!(text(k - 1), "." | "->"));
        if member || free {
            out.push((tok.line, tok.start));
        }
    }
    out
}

/// A `typedef` or `using NAME =` declaration (`head`, ending at byte `end`) that names a
/// construct the executor cannot model (`typedef __nv_bfloat16 floatX;`): the construct is
/// reached through the alias, as through a macro, wherever reached code names it.
pub(super) fn alias_keys(s: &mut Scan, src: &str, toks: &[Token], head: &[usize], end: usize) {
    let text = |k: usize| toks[head[k]].text(src);
    let alias = match head.first().map(|_| text(0)) {
        Some("typedef") => head
            .iter()
            .rev()
            .find(|&&h| toks[h].kind == Kind::Ident)
            .map(|&h| toks[h].text(src)),
        Some("using") if head.len() > 2 && text(2) == "=" => Some(text(1)),
        _ => None,
    };
    let Some(alias) = alias else { return };
    let start = toks[head[0]].start;
    for u in &mut s.unsupported {
        if u.key.is_none() && (start..end).contains(&u.at) {
            u.key = Some(alias.to_string());
        }
    }
}

//! The toolchain a plain source is compiled as (nvcc's or hipcc's predefined macros, of a
//! chosen version and target), and the preprocessor's conditionals read with them: which
//! tokens of a file `#if`, `#ifdef`, `#elif` and `#else` keep, so that the reader finds the
//! kernels the compiler will see. A condition it cannot decide (a function-like macro, the
//! width's macros, which differ between the two builds) keeps its group, and the groups after
//! it, for the compiler to decide.

use super::lex::{Kind, Token, tokens};
use std::collections::HashMap;

/// nvcc's and hipcc's versions and nvcc's target, whose predefined macros a plain source is
/// read and compiled with.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Toolchain {
    /// CUDA's version, major and minor (`__CUDACC_VER_MAJOR__`, `CUDART_VERSION`).
    pub cuda: (u32, u32),
    /// The compute capability the device pass targets, as `sm_XY` is written: 90 for sm_90
    /// (`__CUDA_ARCH__` 900).
    pub arch: u32,
    /// ROCm's HIP version, major and minor (`HIP_VERSION_MAJOR`, `HIP_VERSION`).
    pub hip: (u32, u32),
}

impl Default for Toolchain {
    /// CUDA 12.4 for sm_90, HIP 6.2.
    fn default() -> Self {
        Toolchain {
            cuda: (12, 4),
            arch: 90,
            hip: (6, 2),
        }
    }
}

/// A macro's value for the reader: its replacement text, or undecided (a function-like macro,
/// the width's macros).
pub type Value = Option<String>;

/// Macros by name with their values, as a file is read with them.
pub type Macros = Vec<(String, Value)>;

impl Toolchain {
    /// The macros the compiler predefines for the one pass the executor compiles, the device
    /// pass (`__CUDA_ARCH__`, `__HIP_DEVICE_COMPILE__` defined), with `width` the build's lane
    /// count as a C++ expression (None: undecided, for the reader).
    pub fn macros(&self, hip: bool, width: Option<&str>) -> Vec<(String, Value)> {
        let v = |n: u32| Some(n.to_string());
        let mut out: Vec<(&str, Value)> = if hip {
            let (major, minor) = self.hip;
            vec![
                ("__HIP__", v(1)),
                ("__HIPCC__", v(1)),
                ("__HIP_PLATFORM_AMD__", v(1)),
                ("__HIP_PLATFORM_HCC__", v(1)),
                ("__HIP_DEVICE_COMPILE__", v(1)),
                ("__HIP_ARCH_HAS_WARP_SHUFFLE__", v(1)),
                ("__HIP_ARCH_HAS_WARP_VOTE__", v(1)),
                ("HIP_VERSION_MAJOR", v(major)),
                ("HIP_VERSION_MINOR", v(minor)),
                ("HIP_VERSION_PATCH", v(0)),
                ("HIP_VERSION", v(major * 10_000_000 + minor * 100_000)),
                ("__AMDGCN_WAVEFRONT_SIZE", width.map(str::to_string)),
                ("__AMDGCN_WAVEFRONT_SIZE__", width.map(str::to_string)),
            ]
        } else {
            let (major, minor) = self.cuda;
            vec![
                ("__CUDACC__", v(1)),
                ("__NVCC__", v(1)),
                ("__CUDACC_VER_MAJOR__", v(major)),
                ("__CUDACC_VER_MINOR__", v(minor)),
                ("__CUDACC_VER_BUILD__", v(0)),
                ("CUDART_VERSION", v(major * 1000 + minor * 10)),
                ("CUDA_VERSION", v(major * 1000 + minor * 10)),
                ("__CUDA_API_VER_MAJOR__", v(major)),
                ("__CUDA_API_VER_MINOR__", v(minor)),
                ("__CUDA_ARCH__", v(self.arch * 10)),
            ]
        };
        out.push(("__cplusplus", v(201703)));
        out.into_iter().map(|(n, v)| (n.to_string(), v)).collect()
    }

    /// `#define` lines of [`macros`](Self::macros) at the width `WK_WARP_SIZE` names.
    pub fn defines(&self, hip: bool) -> String {
        self.macros(hip, Some("WK_WARP_SIZE"))
            .into_iter()
            .filter(|(n, _)| n != "__cplusplus")
            .map(|(n, v)| format!("#undef {n}\n#define {n} {}\n", v.unwrap_or_default()))
            .collect()
    }

    /// How messages name it: `CUDA 12.4 (sm_90)` or `HIP 6.2`.
    pub fn describe(&self, hip: bool) -> String {
        if hip {
            format!("HIP {}.{}", self.hip.0, self.hip.1)
        } else {
            format!("CUDA {}.{} (sm_{})", self.cuda.0, self.cuda.1, self.arch)
        }
    }
}

/// Which of `toks` the preprocessor keeps, with `predefined` macros (and the file's own
/// `#define`s and `#undef`s, in order): false inside a group a conditional drops.
pub fn active(src: &str, toks: &[Token], predefined: &[(String, Value)]) -> Vec<bool> {
    active_and_includes(src, toks, predefined).0
}

/// [`active`], and the macros defined at each kept `#include` directive (by its line): those
/// a header it includes is read with, as the compiler reads it (llm.c's files `#define
/// ENABLE_BF16` before including the common.h whose `#if` it selects).
pub fn active_and_includes(
    src: &str,
    toks: &[Token],
    predefined: &[(String, Value)],
) -> (Vec<bool>, Vec<(u32, Macros)>) {
    let mut at_includes = Vec::new();
    let mut macros: HashMap<String, Value> = predefined.iter().cloned().collect();
    // Per open conditional: whether its surroundings are kept, whether a group of it was
    // (surely: Some(true); perhaps: None) taken, and whether the current group is kept.
    let mut stack: Vec<(bool, Option<bool>, Option<bool>)> = Vec::new();
    let live = |stack: &[(bool, Option<bool>, Option<bool>)]| {
        stack
            .last()
            .is_none_or(|&(outer, _, cur)| outer && cur != Some(false))
    };
    let mut out = Vec::with_capacity(toks.len());
    for t in toks {
        if t.kind != Kind::Directive {
            out.push(live(&stack));
            continue;
        }
        let d = t.text(src)[1..].trim_start().replace("\\\n", " ");
        let (word, rest) = d
            .split_once(|c: char| !c.is_ascii_alphanumeric() && c != '_')
            .map_or((d.as_str(), ""), |(w, r)| (w, r));
        let rest = strip_comments(rest);
        let here = live(&stack);
        match word {
            "if" | "ifdef" | "ifndef" => {
                let v = if !here {
                    Some(false)
                } else if word == "if" {
                    truth(eval(&rest, &macros))
                } else {
                    let defined = macros.contains_key(rest.trim());
                    Some(defined == (word == "ifdef"))
                };
                stack.push((here, v, v));
            }
            "elif" | "elifdef" | "elifndef" => {
                if let Some((outer, taken, cur)) = stack.last_mut() {
                    let v = if !*outer || *taken == Some(true) {
                        Some(false)
                    } else if word == "elif" {
                        truth(eval(&rest, &macros))
                    } else {
                        Some(macros.contains_key(rest.trim()) == (word == "elifdef"))
                    };
                    *cur = match (*taken, v) {
                        (None, Some(false)) => Some(false),
                        (None, _) => None,
                        (_, v) => v,
                    };
                    *taken = or(*taken, v);
                }
            }
            "else" => {
                if let Some((_, taken, cur)) = stack.last_mut() {
                    *cur = taken.map(|t| !t);
                    *taken = Some(true);
                }
            }
            "endif" => {
                stack.pop();
            }
            "define" if here => {
                let rest = rest.trim_start();
                let name: String = rest
                    .chars()
                    .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
                    .collect();
                let after = &rest[name.len()..];
                let value = if after.starts_with('(') {
                    None
                } else {
                    Some(after.trim().to_string())
                };
                if !name.is_empty() {
                    macros.insert(name, value);
                }
            }
            "undef" if here => {
                macros.remove(rest.trim());
            }
            "include" if here => {
                let mut now: Macros = macros.iter().map(|(n, v)| (n.clone(), v.clone())).collect();
                now.sort();
                at_includes.push((t.line, now));
            }
            _ => {}
        }
        out.push(here);
    }
    (out, at_includes)
}

fn strip_comments(s: &str) -> String {
    let mut out = String::new();
    let mut rest = s;
    while let Some(k) = rest.find("/*") {
        out += &rest[..k];
        rest = rest[k + 2..]
            .find("*/")
            .map_or("", |e| &rest[k + 2 + e + 2..]);
    }
    out += rest;
    out.split("//").next().unwrap_or("").to_string()
}

fn truth(v: Option<i64>) -> Option<bool> {
    v.map(|v| v != 0)
}

fn or(a: Option<bool>, b: Option<bool>) -> Option<bool> {
    match (a, b) {
        (Some(true), _) | (_, Some(true)) => Some(true),
        (Some(false), Some(false)) => Some(false),
        _ => None,
    }
}

/// The value of a `#if` expression, None where a macro's value is undecided.
pub fn eval(expr: &str, macros: &HashMap<String, Value>) -> Option<i64> {
    let mut p = Parser {
        toks: ops(expr),
        at: 0,
        macros,
        depth: 0,
    };
    p.ternary()
}

/// The expression's tokens: identifiers, numbers, and operators (two-character ones joined).
fn ops(expr: &str) -> Vec<String> {
    let toks = tokens(expr);
    let mut out: Vec<String> = Vec::new();
    for (k, t) in toks.iter().enumerate() {
        let s = t.text(expr);
        if t.kind == Kind::Punct
            && k > 0
            && toks[k - 1].end == t.start
            && let Some(last) = out.last_mut()
            && matches!(
                format!("{last}{s}").as_str(),
                "&&" | "||" | "==" | "!=" | "<=" | ">=" | "<<" | ">>"
            )
        {
            last.push_str(s);
            continue;
        }
        out.push(s.to_string());
    }
    out
}

struct Parser<'a> {
    toks: Vec<String>,
    at: usize,
    macros: &'a HashMap<String, Value>,
    depth: u32,
}

fn number(s: &str) -> Option<i64> {
    let s = s.trim_end_matches(['u', 'U', 'l', 'L']).replace('\'', "");
    if let Some(h) = s.strip_prefix("0x").or_else(|| s.strip_prefix("0X")) {
        i64::from_str_radix(h, 16).ok()
    } else if let Some(b) = s.strip_prefix("0b").or_else(|| s.strip_prefix("0B")) {
        i64::from_str_radix(b, 2).ok()
    } else if s.len() > 1 && s.starts_with('0') {
        i64::from_str_radix(&s[1..], 8).ok()
    } else {
        s.parse().ok()
    }
}

/// Binary operators by precedence, loosest first.
const LEVELS: &[&[&str]] = &[
    &["||"],
    &["&&"],
    &["|"],
    &["^"],
    &["&"],
    &["==", "!="],
    &["<", ">", "<=", ">="],
    &["<<", ">>"],
    &["+", "-"],
    &["*", "/", "%"],
];

impl Parser<'_> {
    fn peek(&self) -> &str {
        self.toks.get(self.at).map_or("", String::as_str)
    }

    fn ternary(&mut self) -> Option<i64> {
        let c = self.binary(0);
        if self.peek() != "?" {
            return c;
        }
        self.at += 1;
        let a = self.ternary();
        if self.peek() == ":" {
            self.at += 1;
        }
        let b = self.ternary();
        match c {
            Some(0) => b,
            Some(_) => a,
            None => None,
        }
    }

    fn binary(&mut self, level: usize) -> Option<i64> {
        if level == LEVELS.len() {
            return self.unary();
        }
        let mut a = self.binary(level + 1);
        while LEVELS[level].contains(&self.peek()) {
            let op = self.peek().to_string();
            self.at += 1;
            let b = self.binary(level + 1);
            a = match (op.as_str(), a, b) {
                ("&&", Some(0), _) | ("&&", _, Some(0)) => Some(0),
                ("||", Some(x), _) | ("||", _, Some(x)) if x != 0 => Some(1),
                (_, Some(x), Some(y)) => apply(&op, x, y),
                _ => None,
            };
        }
        a
    }

    fn unary(&mut self) -> Option<i64> {
        let t = self.peek().to_string();
        self.at += 1;
        match t.as_str() {
            "!" => self.unary().map(|v| (v == 0) as i64),
            "-" => self.unary().map(i64::wrapping_neg),
            "+" => self.unary(),
            "~" => self.unary().map(|v| !v),
            "(" => {
                let v = self.ternary();
                if self.peek() == ")" {
                    self.at += 1;
                }
                v
            }
            "defined" => {
                let paren = self.peek() == "(";
                if paren {
                    self.at += 1;
                }
                let name = self.peek().to_string();
                self.at += 1;
                if paren && self.peek() == ")" {
                    self.at += 1;
                }
                Some(self.macros.contains_key(&name) as i64)
            }
            "true" => Some(1),
            "false" => Some(0),
            w if w.starts_with(|c: char| c.is_ascii_digit()) => number(w),
            w if w.starts_with(|c: char| c == '_' || c.is_ascii_alphabetic()) => {
                if self.peek() == "(" {
                    // A function-like macro's call: its value is the compiler's to find.
                    let mut depth = 0;
                    while self.at < self.toks.len() {
                        match self.peek() {
                            "(" => depth += 1,
                            ")" => depth -= 1,
                            _ => {}
                        }
                        self.at += 1;
                        if depth == 0 {
                            break;
                        }
                    }
                    return None;
                }
                match self.macros.get(w) {
                    None => Some(0),
                    Some(None) => None,
                    Some(Some(text)) if self.depth < 16 => {
                        let mut inner = Parser {
                            toks: ops(text),
                            at: 0,
                            macros: self.macros,
                            depth: self.depth + 1,
                        };
                        if inner.toks.is_empty() {
                            Some(0)
                        } else {
                            inner.ternary()
                        }
                    }
                    Some(Some(_)) => None,
                }
            }
            _ => None,
        }
    }
}

fn apply(op: &str, x: i64, y: i64) -> Option<i64> {
    Some(match op {
        "||" => (x != 0 || y != 0) as i64,
        "&&" => (x != 0 && y != 0) as i64,
        "|" => x | y,
        "^" => x ^ y,
        "&" => x & y,
        "==" => (x == y) as i64,
        "!=" => (x != y) as i64,
        "<" => (x < y) as i64,
        ">" => (x > y) as i64,
        "<=" => (x <= y) as i64,
        ">=" => (x >= y) as i64,
        "<<" => x.checked_shl(u32::try_from(y).ok()?)?,
        ">>" => x.checked_shr(u32::try_from(y).ok()?)?,
        "+" => x.wrapping_add(y),
        "-" => x.wrapping_sub(y),
        "*" => x.wrapping_mul(y),
        "/" => x.checked_div(y)?,
        "%" => x.checked_rem(y)?,
        _ => return None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn kept(src: &str, hip: bool) -> Vec<String> {
        let toks = tokens(src);
        let macros = Toolchain::default().macros(hip, None);
        let a = active(src, &toks, &macros);
        toks.iter()
            .zip(a)
            .filter(|(t, a)| *a && t.kind == Kind::Ident)
            .map(|(t, _)| t.text(src).to_string())
            .collect()
    }

    #[test]
    fn nvccs_macros_decide_the_groups() {
        let src = "#if CUDART_VERSION >= 2020\na\n#else\nb\n#endif\n\
                   #if defined(__CUDA_ARCH__) && __CUDA_ARCH__ < 700\nc\n#elif __CUDACC_VER_MAJOR__ == 12\nd\n#endif\n\
                   #ifdef __HIP_PLATFORM_AMD__\ne\n#endif\n#ifndef __CUDACC__\nf\n#endif\n";
        assert_eq!(kept(src, false), ["a", "d"]);
        assert_eq!(kept(src, true), ["b", "e", "f"]);
    }

    #[test]
    fn the_files_defines_count_and_undecided_groups_are_kept() {
        let src = "#define N 4\n#define F(x) x\n#if N * 2 == 8\na\n#endif\n#undef N\n#if N\nb\n#endif\n\
                   #if F(1)\nc\n#else\nd\n#endif\n#if __AMDGCN_WAVEFRONT_SIZE == 64\ne\n#else\nf\n#endif\n\
                   #if 0\n#if 1\ng\n#endif\n#else\nh\n#endif\n";
        assert_eq!(kept(src, true), ["a", "c", "d", "e", "f", "h"]);
    }

    #[test]
    fn the_compile_gets_the_same_macros_at_its_width() {
        let d = Toolchain::default().defines(true);
        assert!(
            d.contains("#define __AMDGCN_WAVEFRONT_SIZE WK_WARP_SIZE\n"),
            "{d}"
        );
        assert!(d.contains("#define __HIP_DEVICE_COMPILE__ 1\n"), "{d}");
        let t = Toolchain {
            cuda: (11, 8),
            arch: 80,
            hip: (6, 2),
        };
        let d = t.defines(false);
        assert!(d.contains("#define CUDART_VERSION 11080\n"), "{d}");
        assert!(d.contains("#define __CUDA_ARCH__ 800\n"), "{d}");
        assert!(!d.contains("__HIP__"), "{d}");
    }
}

//! Tokens of a C++ (CUDA, HIP) source, as much as the scanner needs: identifiers, numbers,
//! string and character literals, punctuation (one character each, but `::`), and each
//! preprocessor directive whole. Comments and whitespace are skipped; every token keeps its
//! byte span and line, so the rewriter can change the text in place, line for line.

/// What a token is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    /// An identifier or keyword.
    Ident,
    /// A number (any form: the scanner never reads its value).
    Number,
    /// A string literal, raw or not, with any prefix.
    Str,
    /// A character literal.
    Char,
    /// One punctuation character, or `::`.
    Punct,
    /// A preprocessor directive, `#` to the end of its (continued) line.
    Directive,
}

/// One token: its kind, its bytes `start..end` in the source and the line it starts on.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Token {
    /// What it is.
    pub kind: Kind,
    /// First byte.
    pub start: usize,
    /// One past its last byte.
    pub end: usize,
    /// Line of its first byte, from 1.
    pub line: u32,
}

impl Token {
    /// Its text in `src`.
    pub fn text<'a>(&self, src: &'a str) -> &'a str {
        &src[self.start..self.end]
    }
}

fn ident_start(c: u8) -> bool {
    c == b'_' || c.is_ascii_alphabetic() || c >= 0x80
}

fn ident_char(c: u8) -> bool {
    ident_start(c) || c.is_ascii_digit()
}

/// The tokens of `src`. Never fails: an unterminated literal or comment runs to the end.
pub fn tokens(src: &str) -> Vec<Token> {
    let b = src.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    let mut line = 1u32;
    // Whether only whitespace (and comments) came before, on this line: where `#` starts a
    // directive.
    let mut line_start = true;
    let count_lines = |from: usize, to: usize| b[from..to].iter().filter(|&&c| c == b'\n').count();
    while i < b.len() {
        let c = b[i];
        if c == b'\n' {
            line += 1;
            line_start = true;
            i += 1;
            continue;
        }
        if c.is_ascii_whitespace() {
            i += 1;
            continue;
        }
        if c == b'/' && b.get(i + 1) == Some(&b'/') {
            while i < b.len() && b[i] != b'\n' {
                i += 1;
            }
            continue;
        }
        if c == b'/' && b.get(i + 1) == Some(&b'*') {
            let end = src[i + 2..].find("*/").map_or(b.len(), |e| i + 2 + e + 2);
            line += count_lines(i, end) as u32;
            i = end;
            continue;
        }
        let start = i;
        let first_line = line;
        let kind = if c == b'#' && line_start {
            // To the end of the line, past backslash-newlines; a block comment inside may
            // run on.
            while i < b.len() && b[i] != b'\n' {
                if b[i] == b'\\' && b.get(i + 1) == Some(&b'\n') {
                    i += 2;
                    line += 1;
                } else if b[i] == b'/' && b.get(i + 1) == Some(&b'*') {
                    let end = src[i + 2..].find("*/").map_or(b.len(), |e| i + 2 + e + 2);
                    line += count_lines(i, end) as u32;
                    i = end;
                } else {
                    i += 1;
                }
            }
            Kind::Directive
        } else if ident_start(c) {
            while i < b.len() && ident_char(b[i]) {
                i += 1;
            }
            let word = &src[start..i];
            if b.get(i) == Some(&b'"') && matches!(word, "R" | "LR" | "uR" | "UR" | "u8R") {
                i = raw_string_end(src, i);
                line += count_lines(start, i) as u32;
                Kind::Str
            } else if b.get(i) == Some(&b'"') && matches!(word, "L" | "u" | "U" | "u8") {
                i = quoted_end(b, i, b'"');
                Kind::Str
            } else if b.get(i) == Some(&b'\'') && matches!(word, "L" | "u" | "U" | "u8") {
                i = quoted_end(b, i, b'\'');
                Kind::Char
            } else {
                Kind::Ident
            }
        } else if c.is_ascii_digit() || (c == b'.' && b.get(i + 1).is_some_and(u8::is_ascii_digit))
        {
            i += 1;
            while i < b.len() {
                let d = b[i];
                let sign =
                    (d == b'+' || d == b'-') && matches!(b[i - 1], b'e' | b'E' | b'p' | b'P');
                if ident_char(d) || d == b'.' || d == b'\'' || sign {
                    i += 1;
                } else {
                    break;
                }
            }
            Kind::Number
        } else if c == b'"' {
            i = quoted_end(b, i, b'"');
            Kind::Str
        } else if c == b'\'' {
            i = quoted_end(b, i, b'\'');
            Kind::Char
        } else {
            i += if c == b':' && b.get(i + 1) == Some(&b':') {
                2
            } else {
                // One character; a multi-byte UTF-8 one whole, so spans stay on char bounds.
                src[i..].chars().next().map_or(1, char::len_utf8)
            };
            Kind::Punct
        };
        line_start = false;
        out.push(Token {
            kind,
            start,
            end: i,
            line: first_line,
        });
    }
    out
}

/// One past the closing `quote` of the literal opening at `i`.
fn quoted_end(b: &[u8], mut i: usize, quote: u8) -> usize {
    i += 1;
    while i < b.len() && b[i] != quote && b[i] != b'\n' {
        i += if b[i] == b'\\' { 2 } else { 1 };
    }
    (i + 1).min(b.len())
}

/// One past the end of the raw string whose `"` is at `i`: `"delim( ... )delim"`.
fn raw_string_end(src: &str, i: usize) -> usize {
    let rest = &src[i + 1..];
    let Some(open) = rest.find('(') else {
        return src.len();
    };
    let close = format!("){}\"", &rest[..open]);
    rest[open..]
        .find(&close)
        .map_or(src.len(), |e| i + 1 + open + e + close.len())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn texts(src: &str) -> Vec<(Kind, &str, u32)> {
        tokens(src)
            .iter()
            .map(|t| (t.kind, t.text(src), t.line))
            .collect()
    }

    #[test]
    fn comments_go_and_lines_count() {
        let src = "a /* x\n y */ b // c\n#define X \\\n  1\nk<<<1, 2>>>(x);";
        let t = texts(src);
        assert_eq!(t[0], (Kind::Ident, "a", 1));
        assert_eq!(t[1], (Kind::Ident, "b", 2));
        assert_eq!(t[2], (Kind::Directive, "#define X \\\n  1", 3));
        assert_eq!(t[3], (Kind::Ident, "k", 5));
        assert_eq!(t[4], (Kind::Punct, "<", 5));
        assert_eq!(t.iter().filter(|x| x.1 == ">").count(), 3);
    }

    #[test]
    fn literals_hold_what_looks_like_code() {
        let src = "s = \"__shared__ // {\"; c = '}'; r = R\"x(asm(\"\"))x\"; n = 1.5e-3f; a::b";
        let t = texts(src);
        assert!(t.contains(&(Kind::Str, "\"__shared__ // {\"", 1)));
        assert!(t.contains(&(Kind::Char, "'}'", 1)));
        assert!(t.contains(&(Kind::Str, "R\"x(asm(\"\"))x\"", 1)));
        assert!(t.contains(&(Kind::Number, "1.5e-3f", 1)));
        assert!(t.contains(&(Kind::Punct, "::", 1)));
        assert!(!t.iter().any(|x| x.1 == "asm" || x.1 == "__shared__"));
    }

    #[test]
    fn a_hash_inside_a_line_is_no_directive() {
        let t = texts("x # y\n  # pragma once");
        assert_eq!(t[1], (Kind::Punct, "#", 1));
        assert_eq!(t[3], (Kind::Directive, "# pragma once", 2));
    }
}

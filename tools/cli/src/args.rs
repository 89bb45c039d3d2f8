//! Parsers for the command line's small languages: masks by name, sizes like `2^20`, lane
//! values and vote predicates. Syntax is checked while parsing (a usage error); whether a value
//! fits the warp is checked later against the backend (a `WavekitError`).

use wavekit::error::Result;
use wavekit::mask::LaneMask;
use wavekit::width::WarpWidth;

/// A member mask by name, resolved once the warp width is known.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MaskSpec {
    Full,
    Empty,
    Even,
    Odd,
    /// The lower half of the warp.
    Lower,
    /// The upper half of the warp.
    Upper,
    Lane(u32),
    Bits(u64),
}

pub const MASK_HELP: &str =
    "full, none, even, odd, lower, upper, lane:N or hex:0x... (a bare 0x... works too)";

impl MaskSpec {
    pub fn resolve(self, width: WarpWidth) -> Result<LaneMask> {
        let half = width.lanes() / 2;
        match self {
            MaskSpec::Full => Ok(LaneMask::full(width)),
            MaskSpec::Empty => Ok(LaneMask::empty(width)),
            MaskSpec::Even => Ok(LaneMask::from_fn(width, |l| l % 2 == 0)),
            MaskSpec::Odd => Ok(LaneMask::from_fn(width, |l| l % 2 == 1)),
            MaskSpec::Lower => Ok(LaneMask::from_fn(width, |l| l < half)),
            MaskSpec::Upper => Ok(LaneMask::from_fn(width, |l| l >= half)),
            MaskSpec::Lane(l) => LaneMask::single(l, width),
            MaskSpec::Bits(bits) => LaneMask::from_bits(bits, width),
        }
    }
}

pub fn parse_mask(s: &str) -> std::result::Result<MaskSpec, String> {
    let s = s.trim().to_ascii_lowercase();
    let hex = |digits: &str| {
        u64::from_str_radix(digits.trim_start_matches("0x"), 16)
            .map(MaskSpec::Bits)
            .map_err(|_| format!("`{digits}` is not a 64-bit hex mask"))
    };
    match s.as_str() {
        "full" | "all" => Ok(MaskSpec::Full),
        "none" | "empty" => Ok(MaskSpec::Empty),
        "even" => Ok(MaskSpec::Even),
        "odd" => Ok(MaskSpec::Odd),
        "lower" => Ok(MaskSpec::Lower),
        "upper" => Ok(MaskSpec::Upper),
        _ => {
            if let Some(n) = s.strip_prefix("lane:") {
                n.parse()
                    .map(MaskSpec::Lane)
                    .map_err(|_| format!("`{n}` is not a lane number"))
            } else if let Some(h) = s.strip_prefix("hex:") {
                hex(h)
            } else if s.starts_with("0x") {
                hex(&s)
            } else {
                Err(format!("unknown mask `{s}`: use {MASK_HELP}"))
            }
        }
    }
}

/// An element count: a plain number or a power of two written `2^K`.
pub fn parse_size(s: &str) -> std::result::Result<usize, String> {
    let s = s.trim();
    let n = if let Some(k) = s.strip_prefix("2^") {
        let k: u32 = k
            .parse()
            .map_err(|_| format!("`{s}`: the exponent must be a number"))?;
        1usize
            .checked_shl(k)
            .filter(|_| k < 48)
            .ok_or(format!("`{s}` is too large"))?
    } else {
        s.parse()
            .map_err(|_| format!("`{s}` is not a size: use a number or 2^K"))?
    };
    if n == 0 {
        return Err("a size must be at least 1".into());
    }
    Ok(n)
}

/// The values `show` gives its lanes, as a function of the thread index.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ValuesSpec {
    /// Each lane holds its own lane id.
    Lanes,
    /// `lane % k`: groups of equal values, as match_any likes.
    Mod(u32),
    /// `lane / k`.
    Div(u32),
    /// An explicit list, repeated if shorter than the launch.
    List(Vec<i32>),
}

pub fn parse_values(s: &str) -> std::result::Result<ValuesSpec, String> {
    let s = s.trim();
    let positive = |k: &str| match k.parse::<u32>() {
        Ok(k) if k > 0 => Ok(k),
        _ => Err(format!("`{k}` must be a positive number")),
    };
    if s == "lanes" {
        Ok(ValuesSpec::Lanes)
    } else if let Some(k) = s.strip_prefix("mod:") {
        positive(k).map(ValuesSpec::Mod)
    } else if let Some(k) = s.strip_prefix("div:") {
        positive(k).map(ValuesSpec::Div)
    } else {
        let list: std::result::Result<Vec<i32>, _> =
            s.split(',').map(|v| v.trim().parse()).collect();
        match list {
            Ok(v) if !v.is_empty() => Ok(ValuesSpec::List(v)),
            _ => Err(format!(
                "`{s}` is not lanes, mod:K, div:K or a comma list of integers"
            )),
        }
    }
}

impl ValuesSpec {
    /// The value of thread `t`, whose lane is `lane`.
    pub fn value(&self, t: usize, lane: u32) -> i32 {
        match self {
            ValuesSpec::Lanes => lane as i32,
            ValuesSpec::Mod(k) => (lane % k) as i32,
            ValuesSpec::Div(k) => (lane / k) as i32,
            ValuesSpec::List(v) => v[t % v.len()],
        }
    }
}

/// A vote predicate of a lane's value.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PredSpec {
    True,
    False,
    Odd,
    Even,
    Lt(i32),
    Ge(i32),
    Eq(i32),
}

pub fn parse_pred(s: &str) -> std::result::Result<PredSpec, String> {
    let s = s.trim();
    let num = |n: &str| {
        n.parse::<i32>()
            .map_err(|_| format!("`{n}` is not an integer"))
    };
    match s {
        "true" => Ok(PredSpec::True),
        "false" => Ok(PredSpec::False),
        "odd" => Ok(PredSpec::Odd),
        "even" => Ok(PredSpec::Even),
        _ => {
            if let Some(n) = s.strip_prefix("lt:") {
                num(n).map(PredSpec::Lt)
            } else if let Some(n) = s.strip_prefix("ge:") {
                num(n).map(PredSpec::Ge)
            } else if let Some(n) = s.strip_prefix("eq:") {
                num(n).map(PredSpec::Eq)
            } else {
                Err(format!(
                    "unknown predicate `{s}`: use true, false, odd, even, lt:N, ge:N, eq:N"
                ))
            }
        }
    }
}

impl PredSpec {
    pub fn test(self, v: i32) -> bool {
        match self {
            PredSpec::True => true,
            PredSpec::False => false,
            PredSpec::Odd => v % 2 != 0,
            PredSpec::Even => v % 2 == 0,
            PredSpec::Lt(n) => v < n,
            PredSpec::Ge(n) => v >= n,
            PredSpec::Eq(n) => v == n,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use wavekit::error::WavekitError;

    #[test]
    fn masks_by_name_resolve_per_width() {
        let w = WarpWidth::W32;
        assert_eq!(
            parse_mask("even").unwrap().resolve(w).unwrap().bits(),
            0x5555_5555
        );
        assert_eq!(
            parse_mask("odd").unwrap().resolve(w).unwrap().bits(),
            0xaaaa_aaaa
        );
        assert_eq!(
            parse_mask("lower").unwrap().resolve(w).unwrap().bits(),
            0x0000_ffff
        );
        assert_eq!(
            parse_mask("upper").unwrap().resolve(w).unwrap().bits(),
            0xffff_0000
        );
        assert_eq!(
            parse_mask("lane:5").unwrap().resolve(w).unwrap().bits(),
            0x20
        );
        assert_eq!(
            parse_mask("HEX:0xF0").unwrap().resolve(w).unwrap().bits(),
            0xf0
        );
        assert_eq!(parse_mask("0x3").unwrap().resolve(w).unwrap().bits(), 0x3);
        let w64 = WarpWidth::W64;
        assert_eq!(
            parse_mask("upper").unwrap().resolve(w64).unwrap().bits(),
            0xffff_ffff_0000_0000
        );
        assert_eq!(
            parse_mask("full").unwrap().resolve(w64).unwrap().bits(),
            u64::MAX
        );
    }

    #[test]
    fn masks_that_do_not_fit_are_errors() {
        assert!(parse_mask("sideways").is_err());
        assert!(parse_mask("lane:x").is_err());
        assert!(parse_mask("hex:0xzz").is_err());
        let w = WarpWidth::W32;
        assert_eq!(
            parse_mask("lane:32").unwrap().resolve(w),
            Err(WavekitError::LaneOutOfRange {
                lane: 32,
                width: 32
            })
        );
        assert!(matches!(
            parse_mask("hex:0x100000000").unwrap().resolve(w),
            Err(WavekitError::MaskBeyondWidth { .. })
        ));
    }

    #[test]
    fn sizes_accept_powers_and_numbers() {
        assert_eq!(parse_size("2^16"), Ok(65536));
        assert_eq!(parse_size("1000"), Ok(1000));
        assert!(parse_size("0").is_err());
        assert!(parse_size("2^x").is_err());
        assert!(parse_size("2^64").is_err());
        assert!(parse_size("-3").is_err());
    }

    #[test]
    fn values_and_predicates() {
        assert_eq!(parse_values("mod:4").unwrap().value(9, 9), 1);
        assert_eq!(parse_values("div:8").unwrap().value(17, 17), 2);
        assert_eq!(parse_values("5,-1").unwrap().value(3, 3), -1);
        assert!(parse_values("mod:0").is_err());
        assert!(parse_values("1,,2").is_err());
        assert!(parse_pred("lt:4").unwrap().test(3));
        assert!(!parse_pred("lt:4").unwrap().test(4));
        assert!(parse_pred("odd").unwrap().test(-3));
        assert!(parse_pred("maybe").is_err());
    }
}

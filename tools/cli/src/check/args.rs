//! The arguments of a checked launch: `--grid`/`--block` shapes, `--arg` values, and the
//! buffers and scalars each parameter gets when none is given (random read-only buffers,
//! zeroed written ones, scalars the element count).

use super::{Request, usage};
use crate::error::CliResult;
use wavekit::WavekitError;
use wavekit::host;
use wavekit::simt::user::{Arg, Kernel, Param, Value, Values};

/// "X", "X,Y" or "X,Y,Z" (also with x), the rest 1.
pub fn parse_dim(s: &str) -> Result<[u32; 3], String> {
    let parts: Vec<&str> = s.split([',', 'x']).map(str::trim).collect();
    if parts.is_empty() || parts.len() > 3 {
        return Err(format!("`{s}`: give X, X,Y or X,Y,Z"));
    }
    let mut d = [1u32; 3];
    for (i, p) in parts.iter().enumerate() {
        d[i] = p
            .parse()
            .ok()
            .filter(|&v| v > 0)
            .ok_or_else(|| format!("`{p}` is not a positive number"))?;
    }
    Ok(d)
}

/// `MAJOR.MINOR` (or `MAJOR`): a toolchain's version.
pub fn parse_version(s: &str) -> Result<(u32, u32), String> {
    let (major, minor) = s.trim().split_once('.').unwrap_or((s.trim(), "0"));
    match (major.parse(), minor.parse()) {
        (Ok(a), Ok(b)) if a > 0 && b < 100 => Ok((a, b)),
        _ => Err(format!("`{s}`: give MAJOR.MINOR, e.g. 12.4")),
    }
}

/// A compute capability as `sm_XY` or `XY` (e.g. 90): `__CUDA_ARCH__` is ten times it.
pub fn parse_arch(s: &str) -> Result<u32, String> {
    let n = s
        .trim()
        .trim_start_matches("sm_")
        .trim_start_matches("compute_");
    n.trim_end_matches('a')
        .parse()
        .ok()
        .filter(|&v| (10..=200).contains(&v))
        .ok_or_else(|| format!("`{s}`: give a compute capability, e.g. 90 or sm_90"))
}

/// What `--arg` gives: parameter `index` (its field `field`, for a struct) the value text.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ArgSpec {
    pub index: usize,
    pub field: Option<String>,
    pub value: String,
}

/// `I=V` or `I.FIELD=V`: parameter index I (its field FIELD) gets V (a scalar, or a comma list
/// for a buffer).
pub fn parse_arg(s: &str) -> Result<ArgSpec, String> {
    let (key, value) = s
        .split_once('=')
        .ok_or_else(|| format!("`{s}`: write INDEX=VALUE, INDEX=V1,V2,... or INDEX.FIELD=VALUE"))?;
    let (i, field) = match key.split_once('.') {
        Some((i, f)) => (i, Some(f.trim().to_string())),
        None => (key, None),
    };
    let index = i
        .trim()
        .parse()
        .map_err(|_| format!("`{i}` is not a parameter index"))?;
    Ok(ArgSpec {
        index,
        field,
        value: value.to_string(),
    })
}

/// SplitMix64 in [-1, 1): the inputs are the same for a seed on every machine.
fn unit_stream(seed: u64) -> impl FnMut() -> f64 {
    let mut x = seed;
    move || {
        x = x.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = x;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^= z >> 31;
        (z >> 11) as f64 / (1u64 << 52) as f64 - 1.0
    }
}

/// The value `--arg` gives parameter `i` (its field `field`), the last one given.
fn given<'a>(req: &'a Request, i: usize, field: Option<&str>) -> Option<&'a str> {
    req.args
        .iter()
        .rev()
        .find(|a| a.index == i && a.field.as_deref() == field)
        .map(|a| a.value.as_str())
}

/// Elements of a buffer argument of `len` items of `parts` elements each: the product
/// checked, within what one host allocation may hold, and that much memory there now (asked
/// for and given back), so that making the buffer does not abort the process.
fn buffer_len(what: &str, len: usize, parts: usize) -> CliResult<usize> {
    let too_large = || {
        usage(format!(
            "{what}: a buffer of {len} x {parts} elements is larger than one host allocation \
             may be ({} GiB); give a smaller --len or --grid/--block",
            host::HOST_ALLOC_LIMIT >> 30
        ))
    };
    let n = len.checked_mul(parts).ok_or_else(too_large)?;
    // Every element type is at most 8 bytes.
    host::check::<u64>(n).map_err(|_| too_large())?;
    drop(host::with_capacity::<u64>(n)?);
    Ok(n)
}

/// `show(0), .., show(n - 1)`, comma separated, grown fallibly (`n` is the user's --len).
fn repeated(n: usize, show: impl Fn(usize) -> String) -> CliResult<String> {
    let mut text = String::new();
    for j in 0..n {
        let s = show(j);
        text.try_reserve(s.len() + 1)
            .map_err(|_| WavekitError::OutOfMemory {
                bytes: (text.len() + s.len() + 1) as u64,
            })?;
        if j > 0 {
            text.push(',');
        }
        text.push_str(&s);
    }
    Ok(text)
}

/// The argument for a scalar or pointer parameter `p` (`what` names it in errors): given, or a
/// scalar of `len`, a random read-only buffer, a zeroed written one.
fn argument(
    p: &Param,
    what: &str,
    given: Option<&str>,
    len: usize,
    next: &mut dyn FnMut() -> f64,
) -> CliResult<Arg> {
    let bad = |v: &str| usage(format!("--arg {what}={v}: not a {p}"));
    let elems = |parts: usize| buffer_len(what, len, parts);
    Ok(match (p, given) {
        (Param::Scalar(e), Some(v)) => Arg::Scalar(Value::parse(*e, v).ok_or_else(|| bad(v))?),
        // A scalar not given is the element count, the usual `n`.
        (Param::Scalar(e), None) => {
            Arg::Scalar(Value::parse(*e, &len.to_string()).ok_or_else(|| bad(&len.to_string()))?)
        }
        (Param::Pointer { elem, parts, .. }, Some(v)) => {
            let len = elems(*parts)?;
            let mut vals = Values::parse(*elem, v).ok_or_else(|| bad(v))?;
            if vals.len() < len {
                // Repeated to fill the buffer.
                let text = repeated(len, |j| vals.show(j % vals.len()))?;
                vals = Values::parse(*elem, &text).ok_or_else(|| bad(v))?;
            }
            Arg::Buffer(vals)
        }
        (
            Param::Pointer {
                elem,
                read_only,
                parts,
            },
            None,
        ) => {
            let n = elems(*parts)?;
            if *read_only {
                Arg::Buffer(Values::random(*elem, n, next))
            } else {
                Arg::Buffer(Values::zeros(*elem, n))
            }
        }
        (Param::Struct(_), _) => return Err(usage(format!("{what}: a struct inside a struct"))),
    })
}

/// Every argument of a launch of `k`, from `--arg` and the defaults; buffers of `len`.
pub fn arguments(k: &Kernel, req: &Request, len: usize) -> CliResult<Vec<Arg>> {
    for a in &req.args {
        let Some(p) = k.params().get(a.index) else {
            return Err(usage(format!(
                "--arg {}=..: `{}` has {} parameters",
                a.index,
                k.name(),
                k.params().len()
            )));
        };
        let field_ok = match (p, &a.field) {
            (Param::Struct(s), Some(f)) => s.fields.iter().any(|x| &x.name == f),
            (Param::Struct(_), None) => false,
            (_, f) => f.is_none(),
        };
        if !field_ok {
            let key = match &a.field {
                Some(f) => format!("{}.{f}", a.index),
                None => a.index.to_string(),
            };
            return Err(usage(format!(
                "--arg {key}=..: parameter {} is {p}",
                a.index
            )));
        }
    }
    let mut next = unit_stream(req.seed);
    k.params()
        .iter()
        .enumerate()
        .map(|(i, p)| match p {
            Param::Struct(s) => Ok(Arg::Struct(
                s.fields
                    .iter()
                    .map(|f| {
                        argument(
                            &f.param,
                            &format!("{i}.{}", f.name),
                            given(req, i, Some(&f.name)),
                            len,
                            &mut next,
                        )
                    })
                    .collect::<CliResult<_>>()?,
            )),
            p => argument(p, &i.to_string(), given(req, i, None), len, &mut next),
        })
        .collect()
}

/// The buffers a launch of `k` may write, labelled `I` or `I.FIELD`.
pub fn written<'a>(k: &'a Kernel, args: &'a [Arg]) -> Vec<(String, &'a Values)> {
    let mut out = Vec::new();
    for (i, (p, a)) in k.params().iter().zip(args).enumerate() {
        match (p, a) {
            (
                Param::Pointer {
                    read_only: false, ..
                },
                Arg::Buffer(v),
            ) => out.push((i.to_string(), v)),
            (Param::Struct(s), Arg::Struct(fs)) => {
                for (f, a) in s.fields.iter().zip(fs) {
                    if let (
                        Param::Pointer {
                            read_only: false, ..
                        },
                        Arg::Buffer(v),
                    ) = (&f.param, a)
                    {
                        out.push((format!("{i}.{}", f.name), v));
                    }
                }
            }
            _ => {}
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::{buffer_len, repeated};

    #[test]
    fn buffer_sizes_are_checked_not_multiplied_blindly() {
        assert_eq!(buffer_len("0", 1000, 4).unwrap(), 4000);
        // The product overflows usize: a usage error, not a wrapped size or a panic.
        let e = buffer_len("0", usize::MAX / 2, 3).unwrap_err().to_string();
        assert!(e.contains("larger than one host allocation"), "{e}");
        // Past the host allocation limit: refused before anything is allocated.
        let e = buffer_len("1", 1 << 40, 1).unwrap_err().to_string();
        assert!(e.contains("--len"), "{e}");
        assert_eq!(repeated(3, |j| j.to_string()).unwrap(), "0,1,2");
    }
}

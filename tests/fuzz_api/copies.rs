//! The checked device copies of fuzz_api.rs (issue #80): `GpuBackend::copy` and `fill_zero`
//! on the executor at 32 and 64 lanes, over whole buffers and views at random offsets, lengths
//! that agree or not, and buffers of the other width's executor (another device). The
//! property: `ForeignBuffer` exactly when a buffer is the other device's, else `LengthMismatch`
//! exactly when the lengths differ, and then the destination holds what it held; otherwise the
//! destination's range holds the source's (or zeros) and nothing outside it moved. The CPU
//! backend has no device copies: its targets make no calls.

use proptest::prelude::*;
#[cfg(feature = "simt")]
use proptest::test_runner::TestCaseError;
use wavekit_tests::fuzz::*;

/// Elements `start..end` of a buffer of `len`, or the whole buffer (`None`).
#[derive(Clone, Debug)]
struct Part {
    len: usize,
    range: Option<(usize, usize)>,
}

#[cfg_attr(not(feature = "simt"), allow(dead_code))]
impl Part {
    fn bounds(&self) -> (usize, usize) {
        self.range.unwrap_or((0, self.len))
    }
    fn count(&self) -> usize {
        let (a, b) = self.bounds();
        b - a
    }
}

fn part() -> impl Strategy<Value = Part> {
    (0usize..160, any::<bool>()).prop_flat_map(|(len, whole)| {
        (0..=len).prop_flat_map(move |a| {
            (a..=len).prop_map(move |b| Part {
                len,
                range: (!whole).then_some((a, b)),
            })
        })
    })
}

/// A copy's source and destination (the destination's range shortened to the source's length
/// in most cases, so that most copies are valid), which of them lives on the other device, and
/// the part `fill_zero` clears afterwards.
#[derive(Clone, Debug)]
struct Case {
    src: Part,
    dst: Part,
    foreign_src: bool,
    foreign_dst: bool,
    zero: Part,
    foreign_zero: bool,
    seed: u64,
}

fn case() -> impl Strategy<Value = Case> {
    let foreign = prop_oneof![7 => Just(false), 1 => Just(true)];
    (
        part(),
        part(),
        any::<bool>(),
        (foreign.clone(), foreign.clone(), foreign),
        part(),
        any::<u64>(),
    )
        .prop_map(
            |(src, mut dst, agree, (foreign_src, foreign_dst, foreign_zero), zero, seed)| {
                if agree && dst.count() != src.count() {
                    let (a, _) = dst.bounds();
                    if a + src.count() <= dst.len {
                        dst.range = Some((a, a + src.count()));
                    }
                }
                Case {
                    src,
                    dst,
                    foreign_src,
                    foreign_dst,
                    zero,
                    foreign_zero,
                    seed,
                }
            },
        )
}

#[cfg(feature = "simt")]
mod simt_side {
    use super::*;
    use std::sync::OnceLock;
    use wavekit::simt::SimtBackend;
    use wavekit::{Backend, WarpWidth, WavekitError};
    use wavekit_conformance::inputs::values;

    /// The executor of the other width: memory of another device.
    pub(super) fn other(b: &SimtBackend) -> &'static SimtBackend {
        static OTHERS: OnceLock<[SimtBackend; 2]> = OnceLock::new();
        let others = OTHERS.get_or_init(|| WarpWidth::ALL.map(|w| wavekit::simt::open(w).unwrap()));
        let lanes = b.warp_width().lanes();
        others
            .iter()
            .find(|o| o.warp_width().lanes() != lanes)
            .unwrap()
    }

    /// The error the rules give, if any: the other device first, then the lengths.
    fn rule(foreign: bool, lengths: Option<(usize, usize)>) -> Option<&'static str> {
        if foreign {
            Some("ForeignBuffer")
        } else if lengths.is_some_and(|(a, b)| a != b) {
            Some("LengthMismatch")
        } else {
            None
        }
    }

    fn judge(
        call: &str,
        want: Option<&'static str>,
        r: wavekit::Result<()>,
    ) -> Result<Tally, TestCaseError> {
        match (want, r) {
            (None, Ok(())) => Ok(Tally::MATCHED),
            (Some("ForeignBuffer"), Err(WavekitError::ForeignBuffer))
            | (Some("LengthMismatch"), Err(WavekitError::LengthMismatch { .. })) => {
                Ok(Tally::REFUSED)
            }
            (want, r) => Err(TestCaseError::fail(format!(
                "{call}: the rules say {want:?}, the call gave {r:?}"
            ))),
        }
    }

    pub(super) fn run(b: &SimtBackend, c: &Case) -> Result<Tally, TestCaseError> {
        let src_vals: Vec<u32> = values(c.src.len, c.seed);
        let dst_vals: Vec<u32> = values(c.dst.len, !c.seed);
        let src_home = if c.foreign_src { other(b) } else { b };
        let dst_home = if c.foreign_dst { other(b) } else { b };
        let src = a_unwrap(src_home.upload(&src_vals))?;
        let mut dst = a_unwrap(dst_home.upload(&dst_vals))?;
        let r = {
            let whole_src;
            let view_src;
            let s = match c.src.range {
                None => {
                    whole_src = &src;
                    whole_src
                }
                Some((x, y)) => {
                    view_src = a_unwrap(src_home.slice(&src, x..y))?;
                    &*view_src
                }
            };
            match c.dst.range {
                None => b.copy(s, &mut dst),
                Some((x, y)) => {
                    let mut v = a_unwrap(dst_home.slice_mut(&mut dst, x..y))?;
                    b.copy(s, &mut v)
                }
            }
        };
        let want = rule(
            c.foreign_src || c.foreign_dst,
            Some((c.src.count(), c.dst.count())),
        );
        let mut tally = judge("copy", want, r)?;
        let mut expect = dst_vals.clone();
        if want.is_none() {
            let ((sa, sb), (da, _)) = (c.src.bounds(), c.dst.bounds());
            expect[da..da + (sb - sa)].copy_from_slice(&src_vals[sa..sb]);
        }
        same(&expect, &a_unwrap(dst_home.download(&dst))?)?;

        // fill_zero on a part of a buffer of this device or the other.
        let home = if c.foreign_zero { other(b) } else { b };
        let vals: Vec<u32> = values(c.zero.len, c.seed ^ 0x5A5A);
        let mut buf = a_unwrap(home.upload(&vals))?;
        let r = match c.zero.range {
            None => b.fill_zero(&mut buf),
            Some((x, y)) => {
                let mut v = a_unwrap(home.slice_mut(&mut buf, x..y))?;
                b.fill_zero(&mut v)
            }
        };
        let want = rule(c.foreign_zero, None);
        tally += judge("fill_zero", want, r)?;
        let mut expect = vals;
        if want.is_none() {
            let (a, z) = c.zero.bounds();
            expect[a..z].fill(0);
        }
        same(&expect, &a_unwrap(home.download(&buf))?)?;
        Ok(tally)
    }
}

#[test]
fn fuzz_checked_device_copies() {
    fuzz("copy/fill_zero", case(), |t, c| {
        t.with(&mut |any| match any {
            Any::Cpu(_) => Ok(Tally::default()),
            #[cfg(feature = "simt")]
            Any::Simt(b) => simt_side::run(b, &c),
        })
    });
}

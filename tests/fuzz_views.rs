//! Fuzz of views through every collective (issue 28), on the CPU backend and the SIMT executor
//! at 32 and 64 lanes. Inputs and outputs are chains of up to three views taken one inside
//! the other (`slice` of `slice_mut` of ...) of random ranges of random buffers, mostly inside
//! and sometimes not; an output view is mostly the length the call needs and sometimes not;
//! sometimes the buffer inside an output's `ViewMut` is moved out (`std::mem::swap`) and used,
//! then put back or left out.
//!
//! The property: a range outside its buffer is the `InvalidRange` of that slice; a moved-out
//! buffer is refused wherever it goes; otherwise a typed error exactly when the documented
//! rules say so, else the reference result (`wavekit_conformance::reference` on the host copy
//! of the viewed range). The whole base buffer of every output is read back after each call:
//! inside the view, the result (or, on any error, what was there before); outside it, always
//! what was there before. Never a panic, an abort or a hang (tests/support/fuzz).

use proptest::prelude::*;
use proptest::test_runner::TestCaseError;
use wavekit::{
    Collectives, Csr, DeviceBuffer, Element, Predicate, ReduceOp, ScanKind, Segments, VectorSize,
    WavekitError,
};
use wavekit_conformance::{inputs, reference};
use wavekit_tests::fuzz::*;
use wavekit_tests::on;

/// One call of one collective through views.
#[derive(Clone, Debug)]
struct Case {
    len: usize,
    input: ChainArg,
    /// Levels of the input chain made with `slice_mut` before the `slice`s.
    muts: usize,
    out: ChainArg,
    out2: ChainArg,
    /// Elements of an output's base buffer past what the call needs.
    extra: usize,
    /// The output view's length less what the call needs (mostly 0).
    delta: i64,
    /// 0: no theft; 1: the output's buffer is moved out, used, and put back; 2: left out.
    steal: u8,
    op: ReduceOp,
    flag: bool,
    pred: Predicate<f32>,
    size: u32,
    vector: VectorSize,
    seed: u64,
}

fn case() -> impl Strategy<Value = Case> {
    let delta = prop_oneof![8 => Just(0i64), 1 => -2i64..3];
    let steal = prop_oneof![6 => Just(0u8), 2 => Just(1u8), 1 => Just(2u8)];
    let size = prop_oneof![3 => 1u32..70, 1 => (1u32..33).prop_map(|k| k * 32), 1 => small_u32()];
    let views = (
        chain_arg(),
        0usize..4,
        chain_arg(),
        chain_arg(),
        0usize..40,
        delta,
        steal,
    );
    let args = (
        op(),
        any::<bool>(),
        predicate(),
        size,
        vector(),
        any::<u64>(),
    );
    (len(), views, args).prop_map(
        |(
            len,
            (input, muts, out, out2, extra, delta, steal),
            (op, flag, pred, size, vector, seed),
        )| {
            Case {
                len,
                input,
                muts,
                out,
                out2,
                extra,
                delta,
                steal,
                op,
                flag,
                pred,
                size,
                vector,
                seed,
            }
        },
    )
}

fn fail(e: WavekitError) -> TestCaseError {
    TestCaseError::fail(e.to_string())
}

/// `r` is the `InvalidRange` of the first window that does not fit, if one does not; else
/// `judged`.
fn verdict<R>(
    what: &str,
    windows: &[&Window],
    valid: bool,
    r: Result<R, WavekitError>,
    check: impl FnOnce(R) -> Result<(), TestCaseError>,
) -> Result<Tally, TestCaseError> {
    match (windows.iter().find_map(|w| w.as_ref().err()), r) {
        (Some(want), Err(got)) if *want == got => Ok(Tally::REFUSED),
        (Some(want), got) => Err(TestCaseError::fail(format!(
            "{what}: expected {want:?}, got {:?}",
            got.err()
        ))),
        (None, r) => judged(what, valid, r, check),
    }
}

/// A base buffer's contents after a call: `want` inside the window when the call succeeded,
/// what it held before everywhere else.
fn check_base<T: Element>(
    what: &str,
    before: &[T],
    after: &[T],
    w: &Window,
    want: Option<&[T]>,
) -> Result<(), TestCaseError> {
    let mut expected = before.to_vec();
    if let (Ok(w), Some(want)) = (w, want) {
        expected[w.clone()].copy_from_slice(want);
    }
    same(&expected, after).map_err(|e| TestCaseError::fail(format!("{what} base buffer: {e}")))
}

/// What no call writes: distinct values, so that a stray write shows.
fn sentinel<T: Element>(n: usize, seed: u64) -> Vec<T> {
    inputs::values(n, seed ^ 0x5e47)
}

/// The output length a view asks for: the call's, moved by the case's `delta`.
fn asked(need: usize, delta: i64) -> usize {
    (need as i64 + delta).max(0) as usize
}

/// The length of an output's base buffer: what the view asks for plus `extra` when `chain`
/// takes a view of it, exactly that when the base itself is the output.
fn base_len(chain: &ChainArg, need: usize, c: &Case) -> usize {
    match chain.depth() {
        0 => asked(need, c.delta),
        _ => need + c.extra,
    }
}

/// The common shape: `input` (host values) through the input chain, one output of `need(n)`
/// elements through the output chain, `call` through both, the whole output base checked
/// against `want` (of the viewed input) when `valid(n, out_len)`. Also the theft of the
/// output's buffer, when the case asks for it.
#[allow(clippy::too_many_arguments)]
fn one_output<B: Collectives, T: Element, U: Element>(
    b: &B,
    c: &Case,
    what: &str,
    input: &[T],
    need: impl Fn(usize) -> usize,
    valid: impl Fn(usize, usize) -> bool,
    call: impl Fn(&B::Buffer<T>, &mut B::Buffer<U>) -> Result<(), WavekitError>,
    want: impl Fn(&[T]) -> Vec<U>,
) -> Result<Tally, TestCaseError> {
    let mut inb = b.upload(input).map_err(fail)?;
    let in_r = c.input.ranges(input.len());
    let in_w = window(&in_r, input.len());
    let n = in_w.as_ref().map_or(0, |w| w.len());
    let before: Vec<U> = sentinel(base_len(&c.out, need(n), c), c.seed);
    let mut outb = b.upload(&before).map_err(fail)?;
    let out_r = c.out.ranges_to(before.len(), asked(need(n), c.delta));
    let out_w = window(&out_r, before.len());
    let out_len = out_w.as_ref().map_or(0, |w| w.len());
    let mut tally = Tally::default();
    let stealing = c.steal > 0 && !out_r.is_empty();
    let r = through_input(b, &mut inb, &in_r, c.muts, |x| {
        through_mut(b, &mut outb, &out_r, |y| {
            if stealing {
                tally += steal(b, c.steal == 1, y, |y| call(x, y))?;
                if c.steal == 2 {
                    return Ok(None);
                }
            }
            call(x, y).map(Some)
        })
    })
    .and_then(|r| r)
    .and_then(|r| r);
    let ran = matches!(r, Ok(Some(())));
    let host_in = in_w.as_ref().map_or(&[][..], |w| &input[w.clone()]);
    let ok = valid(n, out_len);
    tally += match r {
        Ok(None) => Tally::default(),
        r => verdict(what, &[&in_w, &out_w], ok, r.map(drop), |()| Ok(()))?,
    };
    let after = b.download(&outb).map_err(fail)?;
    let written = (ran && ok).then(|| want(host_in));
    check_base(what, &before, &after, &out_w, written.as_deref())?;
    Ok(tally)
}

/// Moves the buffer out of the output view `y` and uses it: every call that touches it is
/// refused (`ForeignBuffer`, or a length error checked first); then puts it back if `back`.
fn steal<B: Collectives, U: Element>(
    b: &B,
    back: bool,
    y: &mut B::Buffer<U>,
    call: impl Fn(&mut B::Buffer<U>) -> Result<(), WavekitError>,
) -> Result<Tally, WavekitError> {
    let mut stolen = b.alloc::<U>(0)?;
    std::mem::swap(&mut stolen, y);
    // A call with nothing to write (an empty output) may return before it looks at it.
    let empty = stolen.is_empty();
    let refused = [
        call(&mut stolen).err(),
        b.download(&stolen).err(),
        b.slice(&stolen, 0..0).err(),
        b.count_if(&stolen, Predicate::Ne(U::default())).err(),
    ];
    for (i, e) in refused.iter().enumerate() {
        let typed = match (i, e) {
            (0, Some(e)) => !matches!(e, WavekitError::Device { .. }),
            (0, None) => empty,
            (_, Some(e)) => *e == WavekitError::ForeignBuffer,
            (_, None) => false,
        };
        if !typed {
            panic!("a buffer moved out of its view was not refused (use {i}): {e:?}");
        }
    }
    if back {
        std::mem::swap(&mut stolen, y);
    }
    Ok(Tally {
        calls: refused.len() as u64,
        errors: refused.iter().flatten().count() as u64,
        deferred: 0,
    })
}

fn floats(c: &Case) -> Vec<f32> {
    inputs::values_with_specials(c.len, c.seed)
}

fn reduce_into<B: Collectives>(b: &B, c: &Case) -> Result<Tally, TestCaseError> {
    let vals = floats(c);
    let ok = |n: usize, out: usize| n > 0 && out == 1 && op_ok::<f32>(c.op);
    one_output(
        b,
        c,
        "reduce_into",
        &vals,
        |_| 1,
        ok,
        |x, y| b.reduce_into(x, c.op, y),
        |v: &[f32]| match v.is_empty() {
            true => vec![],
            false => vec![reference::device_reduce(v, c.op)],
        },
    )
}

fn scan<B: Collectives>(b: &B, c: &Case) -> Result<Tally, TestCaseError> {
    let vals: Vec<i32> = inputs::values_with_specials(c.len, c.seed);
    let kind = if c.flag {
        ScanKind::Exclusive
    } else {
        ScanKind::Inclusive
    };
    let ok = |n: usize, out: usize| n == out && op_ok::<i32>(c.op);
    one_output(
        b,
        c,
        "scan",
        &vals,
        |n| n,
        ok,
        |x, y| b.scan(x, y, c.op, kind),
        |v: &[i32]| reference::device_scan(v, c.op, kind),
    )
}

fn count_if_into<B: Collectives>(b: &B, c: &Case) -> Result<Tally, TestCaseError> {
    let vals = floats(c);
    one_output(
        b,
        c,
        "count_if_into",
        &vals,
        |_| 1,
        |_, out| out == 1,
        |x, y| b.count_if_into(x, c.pred, y),
        |v: &[f32]| vec![reference::count_if(v, &c.pred)],
    )
}

fn segmented_fixed<B: Collectives>(b: &B, c: &Case) -> Result<Tally, TestCaseError> {
    let vals = floats(c);
    let seg = c.size as usize;
    let ok =
        |n: usize, out: usize| out == n.div_ceil(seg) && vector_ok(c.vector) && op_ok::<f32>(c.op);
    let segs = Segments::fixed(seg, c.vector);
    prop_assert_eq!(segs.is_ok(), seg > 0 && vector_ok(c.vector));
    let Ok(segs) = segs else {
        return Ok(Tally::REFUSED);
    };
    one_output(
        b,
        c,
        "segmented_reduce_into (fixed)",
        &vals,
        |n| n.div_ceil(seg),
        ok,
        |x, y| b.segmented_reduce_into(x, &segs, c.op, y),
        |v: &[f32]| {
            let lanes = reference::resolve_vector(c.vector, seg.min(v.len()), 1);
            reference::segmented_reduce_fixed(v, seg, lanes, c.op)
        },
    )
}

/// Offsets are made for the viewed input's length, so the input chain is resolved first.
fn segmented_offsets<B: Collectives>(b: &B, c: &Case) -> Result<Tally, TestCaseError> {
    let vals = floats(c);
    let n = window(&c.input.ranges(vals.len()), vals.len()).map_or(0, |w| w.len());
    // Random cuts of the viewed length: empty segments and a single one occur.
    let count = (c.size as usize % 40).max(1);
    let mut offsets: Vec<u32> = (1..count as u64)
        .map(|i| (wavekit::element::splitmix(c.seed ^ i) % (n as u64 + 1)) as u32)
        .chain([0, n as u32])
        .collect();
    offsets.sort_unstable();
    let segs = Segments::from_offsets(b, &offsets, n, c.vector);
    prop_assert_eq!(segs.is_ok(), vector_ok(c.vector), "{:?}", segs.err());
    let Ok(segs) = segs else {
        return Ok(Tally::REFUSED);
    };
    let ok = |m: usize, out: usize| m == n && out == count && op_ok::<f32>(c.op);
    one_output(
        b,
        c,
        "segmented_reduce_into (offsets)",
        &vals,
        |_| count,
        ok,
        |x, y| b.segmented_reduce_into(x, &segs, c.op, y),
        |v: &[f32]| {
            let lanes = reference::resolve_vector(c.vector, v.len(), count);
            reference::segmented_reduce_offsets(v, &offsets, lanes, c.op)
        },
    )
}

fn block_reduce_into<B: Collectives>(b: &B, c: &Case) -> Result<Tally, TestCaseError> {
    let vals: Vec<f64> = inputs::values_with_specials(c.len, c.seed);
    // Mostly a valid block size, sometimes any.
    let block = match c.flag && c.size.is_multiple_of(3) {
        true => c.size,
        false => (c.size % 32 + 1) * 32,
    };
    let block_ok = block % 32 == 0 && (32..=1024).contains(&block);
    let per = if block_ok { block as usize } else { 32 };
    let ok = |n: usize, out: usize| block_ok && out == n.div_ceil(per) && op_ok::<f64>(c.op);
    one_output(
        b,
        c,
        "block_reduce_into",
        &vals,
        |n| n.div_ceil(per),
        ok,
        |x, y| b.block_reduce_into(x, block, c.op, y),
        |v: &[f64]| match block_ok {
            true => reference::block_reduce(v, block, c.op),
            false => vec![],
        },
    )
}

fn histogram_into<B: Collectives>(b: &B, c: &Case) -> Result<Tally, TestCaseError> {
    let bins = c.size % 300;
    let keys: Vec<u32> = (0..c.len as u64)
        .map(|i| (wavekit::element::splitmix(c.seed ^ i) % (u64::from(bins) + 5)) as u32)
        .collect();
    let ok = |_: usize, out: usize| bins > 0 && out == bins as usize + 1;
    one_output(
        b,
        c,
        "histogram_into",
        &keys,
        |_| bins as usize + 1,
        ok,
        |x, y| b.histogram_into(x, bins, y),
        |v: &[u32]| {
            let (mut counts, outside) = reference::histogram(v, bins.max(1));
            counts.push(outside);
            counts
        },
    )
}

/// y = A x through views of x and of y; the matrix has as many columns as the viewed x.
fn spmv<B: Collectives>(b: &B, c: &Case) -> Result<Tally, TestCaseError> {
    let x: Vec<f32> = inputs::values(c.len.min(400), c.seed);
    let cols = window(&c.input.ranges(x.len()), x.len()).map_or(0, |w| w.len());
    let rows = c.size as usize % 50;
    let mut offsets = inputs::random_offsets(rows, c.seed, c.flag);
    if cols == 0 {
        offsets.iter_mut().for_each(|o| *o = 0);
    }
    let nnz = *offsets.last().unwrap() as usize;
    let col_idx: Vec<u32> = (0..nnz as u64)
        .map(|k| (wavekit::element::splitmix(c.seed ^ k) % cols.max(1) as u64) as u32)
        .collect();
    let vals: Vec<f32> = inputs::values(nnz, c.seed + 1);
    let a = Csr::new(b, rows, cols, &offsets, &col_idx, &vals).map_err(fail)?;
    let ok = |m: usize, out: usize| m == cols && out == rows && vector_ok(c.vector);
    one_output(
        b,
        c,
        "spmv",
        &x,
        |_| rows,
        ok,
        |x, y| b.spmv(&a, x, y, c.vector),
        |xv: &[f32]| {
            let lanes = reference::resolve_vector(c.vector, nnz, rows);
            match xv.len() == cols {
                true => reference::spmv(&offsets, &col_idx, &vals, xv, lanes),
                false => vec![],
            }
        },
    )
}

/// `write_from` into a view, and `download` of the view it wrote.
fn write<B: Collectives>(b: &B, c: &Case) -> Result<Tally, TestCaseError> {
    let src: Vec<i64> = inputs::values(c.len, c.seed);
    one_output(
        b,
        c,
        "write_from",
        &src,
        |n| n,
        |n, out| n == out,
        |x, y| {
            let host = b.download(x)?;
            b.write_from(y, &host)?;
            let back = b.download(y)?;
            assert_eq!(host, back, "download of the view just written");
            Ok(())
        },
        |v: &[i64]| v.to_vec(),
    )
}

#[path = "fuzz_views/more.rs"]
mod more;

#[test]
fn fuzz_views() {
    fuzz_cases("views", 512, (0u8..13, case()), |t, (which, c)| {
        on!(t, |b| match which {
            0 => reduce_into(b, &c),
            1 => scan(b, &c),
            2 => count_if_into(b, &c),
            3 => segmented_fixed(b, &c),
            4 => segmented_offsets(b, &c),
            5 => block_reduce_into(b, &c),
            6 => histogram_into(b, &c),
            7 => spmv(b, &c),
            8 => write(b, &c),
            9 => more::compact_into(b, &c),
            10 => more::atomic_agg_inc_into(b, &c),
            11 => more::conveniences(b, &c),
            _ => more::nested_reads(b, &c),
        })
    });
}

//! One rank's call of fuzz_dist.rs: its effective arguments (the case's, or the faulty ones on
//! the faulty rank), its data, and the call itself, with the results as bits.

use super::model::{Effective, data, effective, equal_len, keys};
use super::{Case, Coll};
use wavekit::dist::{Buf, Comm, Layout, Mode, ThreadRank};
use wavekit::{Backend, DeviceBuffer, Element, Predicate, ScanKind, SortOrder, WavekitError, bf16};
use wavekit_conformance::inputs;

/// What a call returned, as bits (floats compare bit for bit).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Value {
    Bits(Vec<u64>),
    Maybe(Option<u64>),
    Count(u64),
    Compact {
        offset: u64,
        total: u64,
        bits: Vec<u64>,
    },
    Hist(Vec<u64>, u64),
}

/// Element types a case's data comes in, and how its `f32` predicate reads in them.
pub trait Num: Element {
    fn of(x: f32) -> Self;
}

macro_rules! num {
    ($($t:ty),*) => {$(impl Num for $t { fn of(x: f32) -> Self { x as $t } })*};
}
num!(f32, f64, i32, i64);
impl Num for bf16 {
    fn of(x: f32) -> Self {
        bf16::from_f32(x)
    }
}

pub fn pred<T: Num>(p: Predicate<f32>) -> Predicate<T> {
    match p {
        Predicate::Lt(v) => Predicate::Lt(T::of(v)),
        Predicate::Le(v) => Predicate::Le(T::of(v)),
        Predicate::Gt(v) => Predicate::Gt(T::of(v)),
        Predicate::Ge(v) => Predicate::Ge(T::of(v)),
        Predicate::Eq(v) => Predicate::Eq(T::of(v)),
        Predicate::Ne(v) => Predicate::Ne(T::of(v)),
        Predicate::InRange(a, b) => Predicate::InRange(T::of(a), T::of(b)),
    }
}

/// A sort's order: its direction, and (a rank's own wrong argument) a bit range past the key.
pub fn sort_order<T: Element>(descending: bool, bad_bits: bool) -> SortOrder {
    let dir = [SortOrder::ASCENDING, SortOrder::DESCENDING][descending as usize];
    match bad_bits {
        true => dir.bits(0, T::KIND.size() as u32 * 8 + 1),
        false => dir,
    }
}

/// The values' bits, every NaN as one (NaN payloads are not compared: docs/SEMANTICS.md).
pub fn bits<T: Element>(v: &[T]) -> Vec<u64> {
    v.iter().map(|&x| one_bits(x)).collect()
}

/// `x`'s bits, or `u64::MAX` for any NaN.
pub fn one_bits<T: Element>(x: T) -> u64 {
    #[allow(clippy::eq_op)] // a NaN is the one value unequal to itself
    match x != x {
        true => u64::MAX,
        false => x.to_bits(),
    }
}

type Outcome = Result<Value, (WavekitError, bool)>;

/// Rank `comm.rank()`'s call `k` of the case.
pub fn exec(comm: &Comm<ThreadRank>, c: &Case, k: usize, layout: &Layout) -> Outcome {
    let e = effective(c, k, comm.rank());
    match (e.call.int, e.wide) {
        (false, false) if e.call.half => typed::<bf16>(comm, c, &e, layout),
        (false, false) => typed::<f32>(comm, c, &e, layout),
        (false, true) => typed::<f64>(comm, c, &e, layout),
        (true, false) => typed::<i32>(comm, c, &e, layout),
        (true, true) => typed::<i64>(comm, c, &e, layout),
    }
}

/// `out`, prefilled, is read back after the call: on an error it must hold what it held.
fn with_out<T: Num>(
    comm: &Comm<ThreadRank>,
    len: usize,
    call: impl FnOnce(&mut <wavekit::cpu::CpuBackend as Backend>::Buffer<T>) -> wavekit::Result<()>,
) -> Outcome {
    let b = comm.backend();
    let before: Vec<T> = inputs::values(len, 0x5e47 + len as u64);
    let mut out = b.upload(&before).map_err(|e| (e, true))?;
    let r = call(&mut out);
    let after = b.download(&out).map_err(|e| (e, false))?;
    match r {
        Ok(()) => Ok(Value::Bits(bits(&after))),
        Err(e) => Err((e, bits(&after) == bits(&before))),
    }
}

fn typed<T: Num>(comm: &Comm<ThreadRank>, c: &Case, e: &Effective, layout: &Layout) -> Outcome {
    let b = comm.backend();
    let r = comm.rank();
    let call = &e.call;
    let mode = if call.fast {
        Mode::Fast
    } else {
        Mode::Reproducible
    };
    let lost = |e| (e, true);
    // This rank's data: its shard of the whole array, or its equal-length buffer.
    let shard = || -> Vec<T> { data::<T>(c, call.coll, r, layout, e.send_extra) };
    match call.coll {
        Coll::AllReduceValue | Coll::CountIf | Coll::Histogram if call.planned => {
            planned::<T>(comm, c, e, layout, mode)
        }
        Coll::AllReduceValue => {
            let s = b.upload(&shard()).map_err(lost)?;
            let v = comm.all_reduce_value(&s, call.op, mode).map_err(lost)?;
            Ok(Value::Bits(vec![one_bits(v)]))
        }
        Coll::ReduceValue => {
            let s = b.upload(&shard()).map_err(lost)?;
            let v = comm
                .reduce_value(&s, call.op, mode, call.root)
                .map_err(lost)?;
            Ok(Value::Maybe(v.map(one_bits)))
        }
        Coll::Scan => {
            let s = b.upload(&shard()).map_err(lost)?;
            let kind = match call.exclusive {
                true => ScanKind::Exclusive,
                false => ScanKind::Inclusive,
            };
            with_out::<T>(comm, s.len() + e.out_extra, |out| {
                comm.scan(&s, out, call.op, kind)
            })
        }
        Coll::AllReduce | Coll::ReduceScatter | Coll::AllGather => {
            let send = b.upload(&shard()).map_err(lost)?;
            let m = equal_len(c, call.coll, e.send_extra);
            let out = match call.coll {
                Coll::AllReduce => m,
                Coll::ReduceScatter => m / c.world,
                _ => m * c.world,
            } + e.out_extra;
            with_out::<T>(comm, out, |recv| match call.coll {
                Coll::AllReduce => comm.all_reduce(&send, recv, call.op, mode),
                Coll::ReduceScatter => comm.reduce_scatter(&send, recv, call.op, mode),
                _ => comm.all_gather(&send, recv),
            })
        }
        Coll::CountIf => {
            let s = b.upload(&shard()).map_err(lost)?;
            let n = comm.count_if(&s, pred::<T>(call.pred)).map_err(lost)?;
            Ok(Value::Count(n))
        }
        Coll::Compact => {
            let s = b.upload(&shard()).map_err(lost)?;
            let got = comm.compact(&s, pred::<T>(call.pred)).map_err(lost)?;
            let data = b.download(&got.data).map_err(lost)?;
            Ok(Value::Compact {
                offset: got.offset,
                total: got.total,
                bits: bits(&data[..got.len]),
            })
        }
        Coll::Sort => {
            let s = b.upload(&shard()).map_err(lost)?;
            let order = sort_order::<T>(call.exclusive, e.out_extra > 0);
            let got = comm.sort_keys(&s, order).map_err(lost)?;
            let data = b.download(&got.keys).map_err(lost)?;
            Ok(Value::Compact {
                offset: got.offset,
                total: got.total,
                bits: bits(&data),
            })
        }
        Coll::Histogram => {
            let all = keys(c, call.bins);
            let s = b.upload(&all[layout.range(r)]).map_err(lost)?;
            let h = comm.histogram(&s, e.bins).map_err(lost)?;
            Ok(Value::Hist(h.counts, h.outside))
        }
    }
}

/// A planned reduce to every rank, count_if or histogram: the plan, a run with a shard one
/// element longer than planned (refused on every rank before anything moves), then two runs
/// into one output that must agree.
fn planned<T: Num>(
    comm: &Comm<ThreadRank>,
    c: &Case,
    e: &Effective,
    layout: &Layout,
    mode: Mode,
) -> Outcome {
    let (r, call) = (comm.rank(), &e.call);
    let lost = |e| (e, true);
    let mut shard: Vec<T> = match call.coll {
        Coll::Histogram => Vec::new(),
        _ => data::<T>(c, call.coll, r, layout, e.send_extra),
    };
    let mut keys = keys(c, call.bins)[layout.range(r)].to_vec();
    // Runs `run` on the right shard twice (after one refused run on a longer one) and reads
    // `out` back after each.
    fn twice<V: Element, U: Element>(
        comm: &Comm<ThreadRank>,
        input: &mut Vec<V>,
        out_len: usize,
        mut run: impl FnMut(&Buf<ThreadRank, V>, &mut Buf<ThreadRank, U>) -> wavekit::Result<()>,
    ) -> Result<Vec<U>, (WavekitError, bool)> {
        let b = comm.backend();
        let mut out = b.alloc::<U>(out_len).map_err(|e| (e, true))?;
        input.push(V::default());
        let longer = b.upload(input).map_err(|e| (e, true))?;
        input.pop();
        let refused = run(&longer, &mut out);
        assert!(
            matches!(refused, Err(WavekitError::LengthMismatch { .. })),
            "a planned run on a shard longer than planned: {refused:?}"
        );
        let s = b.upload(input).map_err(|e| (e, true))?;
        let mut runs = Vec::new();
        for _ in 0..2 {
            run(&s, &mut out).map_err(|e| (e, true))?;
            comm.synchronize().map_err(|e| (e, true))?;
            runs.push(bits(&b.download(&out).map_err(|e| (e, true))?));
        }
        assert_eq!(runs[0], runs[1], "a plan run twice");
        b.download(&out).map_err(|e| (e, true))
    }
    match call.coll {
        Coll::AllReduceValue => {
            let mut plan = comm
                .plan_reduce::<T>(shard.len(), call.op, mode)
                .map_err(lost)?;
            let v = twice::<T, T>(comm, &mut shard, 1, |s, out| {
                comm.reduce_into(&mut plan, s, out)
            })?;
            Ok(Value::Bits(bits(&v)))
        }
        Coll::CountIf => {
            let mut plan = comm
                .plan_count_if(shard.len(), pred::<T>(call.pred))
                .map_err(lost)?;
            let v = twice::<T, u64>(comm, &mut shard, 1, |s, out| {
                comm.count_if_into(&mut plan, s, out)
            })?;
            Ok(Value::Count(v[0]))
        }
        _ => {
            let mut plan = comm.plan_histogram(keys.len(), e.bins).map_err(lost)?;
            let slots = e.bins as usize + 1;
            let mut v = twice::<u32, u64>(comm, &mut keys, slots, |k, out| {
                comm.histogram_into(&mut plan, k, out)
            })?;
            let outside = v.pop().expect("bins + 1 counts");
            Ok(Value::Hist(v, outside))
        }
    }
}

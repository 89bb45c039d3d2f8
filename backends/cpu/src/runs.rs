//! Runs of equal keys (docs/SEMANTICS.md "runs"): the first key, the value at the first
//! position and the length of each run. Two passes over parallel chunks: the first counts each
//! chunk's run heads and finds its first head, the second writes each chunk's heads to its own
//! range of the outputs (the heads before it), so every write is to a slice the chunk owns.

use super::{CpuBackend, CpuBuffer};
use crate::par;
use wavekit_core::api::check_len;
use wavekit_core::element::Element;
use wavekit_core::error::{Result, WavekitError};
use wavekit_core::host;
use wavekit_core::{DeviceBuffer, RunsOut};

/// Keys per chunk: 64 K, enough work per rayon task, few enough that a 2^20 input still spreads
/// over 16 workers.
const CHUNK: usize = 1 << 16;

/// The outputs, each at least as long as the number of runs.
pub(crate) struct Out<'a, K, V> {
    pub(crate) keys: Option<&'a mut [K]>,
    pub(crate) values: Option<&'a mut [V]>,
    pub(crate) lengths: Option<&'a mut [u32]>,
}

/// Whether position `i` starts a run.
#[inline]
fn head<K: Element>(keys: &[K], i: usize) -> bool {
    i == 0 || keys[i] != keys[i - 1]
}

/// Splits an optional slice at `at`.
type Halves<'a, T> = (Option<&'a mut [T]>, Option<&'a mut [T]>);

fn split<T>(s: Option<&mut [T]>, at: usize) -> Halves<'_, T> {
    match s {
        Some(s) => {
            let (a, b) = s.split_at_mut(at);
            (Some(a), Some(b))
        }
        None => (None, None),
    }
}

/// Writes the runs of `keys` (with `values` beside them when given) into `out`; returns how
/// many there are.
pub(crate) fn runs<K: Element, V: Element>(
    keys: &[K],
    values: Option<&[V]>,
    out: Out<'_, K, V>,
) -> Result<usize> {
    let n = keys.len();
    if n == 0 {
        return Ok(0);
    }
    let chunks = n.div_ceil(CHUNK);
    let range = |c: usize| c * CHUNK..n.min((c + 1) * CHUNK);
    // Pass 1: heads per chunk and the first head's position (n when it has none).
    let stats: Vec<(usize, usize)> = par::map(chunks, 1, |c| {
        let mut count = 0;
        let mut first = n;
        for i in range(c) {
            if head(keys, i) {
                first = first.min(i);
                count += 1;
            }
        }
        (count, first)
    })?;
    // The next head after each chunk's last: the first head of a later chunk, or the end.
    let mut next_after = host::filled(chunks, n)?;
    for c in (0..chunks.saturating_sub(1)).rev() {
        next_after[c] = if stats[c + 1].1 < n {
            stats[c + 1].1
        } else {
            next_after[c + 1]
        };
    }
    let total: usize = stats.iter().map(|s| s.0).sum();
    // Each chunk's own part of every output, in chunk order.
    let mut parts = host::with_capacity(chunks)?;
    let (mut k, mut v, mut l) = (
        out.keys.map(|s| &mut s[..total]),
        out.values.map(|s| &mut s[..total]),
        out.lengths.map(|s| &mut s[..total]),
    );
    for &(count, _) in &stats {
        let (k0, k1) = split(k, count);
        let (v0, v1) = split(v, count);
        let (l0, l1) = split(l, count);
        parts.push((k0, v0, l0));
        (k, v, l) = (k1, v1, l1);
    }
    par::chunks_mut(&mut parts, 1, 1, |c, part| {
        let (k, v, l) = &mut part[0];
        let mut r = 0;
        let mut prev: Option<usize> = None;
        for i in range(c) {
            if !head(keys, i) {
                continue;
            }
            if let Some(k) = k.as_deref_mut() {
                k[r] = keys[i];
            }
            if let (Some(v), Some(vals)) = (v.as_deref_mut(), values) {
                v[r] = vals[i];
            }
            if let (Some(l), Some(p)) = (l.as_deref_mut(), prev) {
                l[r - 1] = (i - p) as u32;
            }
            prev = Some(i);
            r += 1;
        }
        if let (Some(l), Some(p)) = (l.as_deref_mut(), prev) {
            l[r - 1] = (next_after[c] - p) as u32;
        }
    });
    Ok(total)
}

/// `RawBackend::raw_runs` on the CPU: every length checked again (the outputs are written by
/// slice), then [`runs`].
pub(crate) fn raw<K: Element, V: Element>(
    keys: &CpuBuffer<K>,
    values: Option<&CpuBuffer<V>>,
    out: RunsOut<'_, CpuBackend, K, V>,
) -> Result<usize> {
    let n = keys.len();
    if let Some(v) = values {
        check_len("values (one per key)", n, v.len())?;
    }
    let outputs = [
        out.keys.as_ref().map(|b| b.len()),
        out.values.as_ref().map(|b| b.len()),
        out.lengths.as_ref().map(|b| b.len()),
    ];
    for len in outputs.into_iter().flatten() {
        check_len("runs output (the keys' length)", n, len)?;
    }
    if out.values.is_some() != values.is_some() {
        return Err(WavekitError::EmptyInput {
            what: "runs values or their output",
        });
    }
    let values = values.map(CpuBuffer::data).transpose()?;
    let out = Out {
        keys: out.keys.map(CpuBuffer::data_mut).transpose()?,
        values: out.values.map(CpuBuffer::data_mut).transpose()?,
        lengths: out.lengths.map(CpuBuffer::data_mut).transpose()?,
    };
    runs(keys.data()?, values, out)
}

//! Top-k (docs/SEMANTICS.md "top_k"): the k first elements of the stable sort, found by
//! selecting on (rank, index), a total order whose first k are exactly those, then sorting only
//! them.

use super::sort::rank;
use crate::par;
use rayon::slice::ParallelSliceMut;
use wavekit_core::element::Element;
use wavekit_core::error::Result;
use wavekit_core::host;
use wavekit_core::raw::SortSpec;

/// Elements ranked by one task.
const RANKS_PER_TASK: usize = 1 << 14;

/// The first `k` (1 <= k <= n) of the stable sort of `input` into `values`, and their
/// indices into `indices` when given.
pub(crate) fn top_k<T: Element>(
    input: &[T],
    k: usize,
    spec: SortSpec,
    values: &mut [T],
    indices: Option<&mut [u32]>,
) -> Result<()> {
    let mut order = host::with_capacity::<(u64, u32)>(input.len())?;
    par::map_into(&mut order, input.len(), RANKS_PER_TASK, |i| {
        (rank(input[i], &spec), i as u32)
    });
    if k < order.len() {
        order.select_nth_unstable(k - 1);
    }
    let first = &mut order[..k];
    first.par_sort_unstable();
    for (o, &(_, i)) in values.iter_mut().zip(first.iter()) {
        *o = input[i as usize];
    }
    if let Some(indices) = indices {
        for (o, &(_, i)) in indices.iter_mut().zip(first.iter()) {
            *o = i;
        }
    }
    Ok(())
}

//! count_if (docs/SEMANTICS.md, "count_if").

use rayon::prelude::*;
use wavekit_core::Predicate;
use wavekit_core::element::Element;

/// Elements per rayon task.
const CHUNK: usize = 1 << 14;

/// How many elements of `input` satisfy `pred`.
pub(crate) fn count_if<T: Element>(input: &[T], pred: Predicate<T>) -> u64 {
    input
        .par_chunks(CHUNK)
        .map(|c| c.iter().filter(|&&x| pred.test(x)).count() as u64)
        .sum()
}

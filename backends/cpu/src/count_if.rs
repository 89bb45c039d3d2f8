//! count_if (docs/SEMANTICS.md, "count_if").

use crate::memory;
use crate::par;
use wavekit_core::Predicate;
use wavekit_core::element::Element;

/// Elements per rayon task.
const CHUNK: usize = 1 << 14;

/// How many elements of `input` satisfy `pred`.
pub(crate) fn count_if<T: Element>(input: &[T], pred: Predicate<T>) -> u64 {
    par::fold_chunks(
        input,
        CHUNK,
        1,
        0,
        |c| {
            let mut n = 0;
            memory::read_ahead(c, |c| {
                n += c.iter().filter(|&&x| pred.test(x)).count() as u64
            });
            n
        },
        |a, b| a + b,
    )
}

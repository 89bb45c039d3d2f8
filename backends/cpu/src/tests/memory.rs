//! `memory::read_ahead`: every element handed over once, in order, in pieces no larger than
//! the prefetch piece, for element sizes that do and do not divide it.

use crate::memory::read_ahead;

fn pieces<T: Copy + PartialEq + std::fmt::Debug>(s: &[T]) {
    let mut seen = Vec::with_capacity(s.len());
    let mut largest = 0;
    read_ahead(s, |p| {
        assert!(!p.is_empty(), "an empty piece");
        largest = largest.max(size_of_val(p));
        seen.extend_from_slice(p);
    });
    assert_eq!(seen, s, "the pieces put together are not the input");
    assert!(largest <= 1 << 10, "a piece of {largest} bytes");
}

#[test]
fn read_ahead_hands_every_element_once_in_order() {
    for n in [0, 1, 255, 256, 257, 1023, 1024, 1025, 5000, 65_537] {
        pieces(&(0..n as u32).collect::<Vec<_>>());
        pieces(&(0..n as u64).map(|x| x * 3).collect::<Vec<_>>());
        pieces(&(0..n).map(|x| x as u16).collect::<Vec<_>>());
        pieces(&(0..n).map(|x| [x as u8; 3]).collect::<Vec<_>>());
    }
}

//! Sequential definition of docs/SEMANTICS.md "runs": maximal stretches of consecutive keys
//! that compare equal with `==`.

/// Each run as (first position, length), in order.
pub fn runs<K: PartialEq + Copy>(keys: &[K]) -> Vec<(usize, usize)> {
    let mut out: Vec<(usize, usize)> = Vec::new();
    for (i, &k) in keys.iter().enumerate() {
        match out.last_mut() {
            Some((start, len)) if keys[*start + *len - 1] == k => *len += 1,
            _ => out.push((i, 1)),
        }
    }
    out
}

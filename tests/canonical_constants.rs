//! The canonical order's constants are spelled twice, in crates/core/src/canonical.rs for the
//! CPU oracle and in csrc/wavekit/canonical.h for every kernel; a drift would break
//! bit-exactness quietly.

use std::collections::HashMap;
use wavekit::canonical::*;
use wavekit::width::LOGICAL_GROUP;

/// Evaluates the header's `#define NAME expr` lines, where expr is a number, a name defined
/// earlier, or `(A * B)` / `(A / B)`.
fn header_defines() -> HashMap<String, u64> {
    let text = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../csrc/wavekit/canonical.h"
    ))
    .expect("csrc/wavekit/canonical.h is readable");
    let mut defs: HashMap<String, u64> = HashMap::new();
    defs.insert("WK_LOGICAL_GROUP".into(), LOGICAL_GROUP as u64);
    for line in text.lines() {
        let Some(rest) = line.strip_prefix("#define ") else {
            continue;
        };
        let (name, expr) = rest.split_once(' ').expect("a #define with a value");
        let expr = expr.trim().trim_start_matches('(').trim_end_matches(')');
        let value = |tok: &str| -> u64 {
            tok.trim().parse().unwrap_or_else(|_| {
                *defs
                    .get(tok.trim())
                    .unwrap_or_else(|| panic!("{name}: unknown token {tok}"))
            })
        };
        let v = if let Some((a, b)) = expr.split_once('*') {
            value(a) * value(b)
        } else if let Some((a, b)) = expr.split_once('/') {
            value(a) / value(b)
        } else {
            value(expr)
        };
        defs.insert(name.to_string(), v);
    }
    defs
}

#[test]
fn header_and_rust_constants_agree() {
    let d = header_defines();
    let pairs: [(&str, u64); 10] = [
        ("WK_REDUCE_TILE_LANES", REDUCE_TILE_LANES as u64),
        ("WK_REDUCE_ITEMS_PER_LANE", REDUCE_ITEMS_PER_LANE as u64),
        ("WK_REDUCE_TILE", REDUCE_TILE as u64),
        ("WK_SCAN_TILE_THREADS", SCAN_TILE_THREADS as u64),
        ("WK_SCAN_ITEMS_PER_THREAD", SCAN_ITEMS_PER_THREAD as u64),
        ("WK_SCAN_TILE", SCAN_TILE as u64),
        ("WK_SCAN_HALF_GROUP", SCAN_HALF_GROUP as u64),
        ("WK_MAX_BLOCK", MAX_BLOCK as u64),
        ("WK_MAX_GROUPS", MAX_GROUPS as u64),
        ("WK_MAX_VECTOR", MAX_VECTOR as u64),
    ];
    for (name, rust) in pairs {
        assert_eq!(
            d.get(name).copied(),
            Some(rust),
            "{name}: header vs crates/core/src/canonical.rs"
        );
    }
    assert_eq!(
        d["WK_REDUCE_VECTOR_BYTES"],
        (reduce_vector_items::<f32>() * 4) as u64
    );
    assert_eq!(
        d["WK_REDUCE_VECTOR_BYTES"],
        (reduce_vector_items::<f64>() * 8) as u64
    );
}

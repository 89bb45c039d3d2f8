#![cfg(feature = "hip")]
//! The scan's look-back on an AMD GPU, against a plain fold (tests/support/lookback.rs): the
//! split flag and value arrays of 8-byte values and the packed words of 4-byte values.

use wavekit_tests::lookback;

#[test]
#[ignore = "needs an AMD GPU"]
fn look_back_matches_a_plain_fold() {
    lookback::matches_a_plain_fold(&wavekit::hip::open(0).expect("HIP device 0"));
}

#[test]
#[ignore = "needs an AMD GPU"]
fn look_back_refuses_bad_statuses() {
    lookback::refuses_bad_statuses(&wavekit::hip::open(0).expect("HIP device 0"));
}

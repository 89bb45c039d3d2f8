#![cfg(feature = "cuda")]
//! The scan's look-back on a CUDA device, against a plain fold (tests/support/lookback.rs): the
//! 16-byte status words of 8-byte values and the packed ones of 4-byte values.

use wavekit_tests::lookback;

#[test]
#[ignore = "needs a CUDA device"]
fn look_back_matches_a_plain_fold() {
    lookback::matches_a_plain_fold(&wavekit::cuda::open(0).expect("CUDA device 0"));
}

#[test]
#[ignore = "needs a CUDA device"]
fn look_back_refuses_bad_statuses() {
    lookback::refuses_bad_statuses(&wavekit::cuda::open(0).expect("CUDA device 0"));
}

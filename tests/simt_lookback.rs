//! The scan's look-back on the executor at both widths, against a plain fold
//! (tests/support/lookback.rs).

#![cfg(feature = "simt")]

use wavekit_tests::lookback;

use wavekit::WarpWidth;

#[test]
fn look_back_matches_a_plain_fold_at_32_lanes() {
    lookback::matches_a_plain_fold(&wavekit::simt::open(WarpWidth::W32).unwrap());
}

#[test]
fn look_back_matches_a_plain_fold_at_64_lanes() {
    lookback::matches_a_plain_fold(&wavekit::simt::open(WarpWidth::W64).unwrap());
}

#[test]
fn look_back_refuses_bad_statuses() {
    lookback::refuses_bad_statuses(&wavekit::simt::open(WarpWidth::W32).unwrap());
}

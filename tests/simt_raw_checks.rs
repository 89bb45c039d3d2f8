//! The defence-in-depth probes (support/raw_probes.rs) on the executor at 32 and 64 lanes:
//! inconsistent raw calls refused with typed errors, no kernel past an allocation.

#![cfg(feature = "simt")]

mod w32 {
    wavekit_tests::raw_probes!(wavekit::simt::open(wavekit::WarpWidth::W32).unwrap());
}

mod w64 {
    wavekit_tests::raw_probes!(wavekit::simt::open(wavekit::WarpWidth::W64).unwrap());
}

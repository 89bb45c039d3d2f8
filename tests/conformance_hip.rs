#![cfg(feature = "hip")]
//! The conformance suite on HIP device 0: wave64 on CDNA (gfx90a, gfx940, gfx942), wave32 on RDNA
//! (gfx1030), the width read from the device. uni, match, syncwarp and activemask are the
//! software emulations on AMD (csrc/wavekit/emulated.h); there is no native variant to select.

wavekit_conformance::instantiate!(
    hip,
    wavekit::hip::open(0).expect("HIP device 0"),
    ignore = "needs an AMD GPU"
);

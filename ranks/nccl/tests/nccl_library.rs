//! The NCCL library is found and loaded at run time, with no symlink: the wheel ships only
//! `libnccl.so.2`, which cudarc's loader would not find.

use wavekit_nccl::{Vendor, library_version, unique_id};

#[test]
#[ignore = "needs scripts/setup-cuda.sh (the pinned NCCL wheel)"]
fn the_pinned_wheel_loads() {
    let v = library_version(Vendor::Nccl).expect("libnccl.so.2 from .venv-cuda");
    assert!(v.starts_with("2.27.7 from "), "{v}");
    assert!(v.contains("libnccl.so.2"), "{v}");
}

/// A unique id needs no GPU (it is a bootstrap address); two are different.
#[test]
#[ignore = "needs scripts/setup-cuda.sh (the pinned NCCL wheel)"]
fn unique_ids_come_from_the_library() {
    let (a, b) = (
        unique_id(Vendor::Nccl).unwrap(),
        unique_id(Vendor::Nccl).unwrap(),
    );
    assert_ne!(a, b);
}

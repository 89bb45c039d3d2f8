//! The vocabulary types moved into `vocab/` (issue #84) keep every path users wrote before:
//! each old path must still name the very same type. A path that goes away stops this file
//! compiling; one that names another type fails `same`.

use std::any::TypeId;

fn same<A: 'static, B: 'static>() -> bool {
    TypeId::of::<A>() == TypeId::of::<B>()
}

#[test]
fn old_paths_name_the_vocabulary_types() {
    use wavekit_core::vocab;
    assert!(same::<wavekit_core::op::ReduceOp, vocab::ReduceOp>());
    assert!(same::<wavekit_core::ReduceOp, vocab::ReduceOp>());
    assert!(same::<wavekit_core::arg_op::ArgOp, vocab::ArgOp>());
    assert!(same::<wavekit_core::api::ArgOp, vocab::ArgOp>());
    assert!(same::<wavekit_core::ArgOp, vocab::ArgOp>());
    assert!(same::<wavekit_core::api::SortOrder, vocab::SortOrder>());
    assert!(same::<wavekit_core::SortOrder, vocab::SortOrder>());
    assert!(same::<wavekit_core::raw::SortSpec, vocab::SortSpec>());
    assert!(same::<wavekit_core::SortSpec, vocab::SortSpec>());
    assert!(same::<wavekit_core::backend::Vote, vocab::Vote>());
    assert!(same::<wavekit_core::backend::Shfl, vocab::Shfl>());
    assert!(same::<wavekit_core::backend::Match, vocab::Match>());
    assert!(same::<wavekit_core::backend::ScanKind, vocab::ScanKind>());
    assert!(same::<
        wavekit_core::backend::HistogramResult,
        vocab::HistogramResult,
    >());
    assert!(same::<wavekit_core::Vote, vocab::Vote>());
    assert!(same::<wavekit_core::Shfl, vocab::Shfl>());
    assert!(same::<wavekit_core::Match, vocab::Match>());
    assert!(same::<wavekit_core::ScanKind, vocab::ScanKind>());
    assert!(same::<wavekit_core::HistogramResult, vocab::HistogramResult>());
}

#[test]
fn the_facade_paths_name_them_too() {
    use wavekit_core::vocab;
    assert!(same::<wavekit::SortOrder, vocab::SortOrder>());
    assert!(same::<wavekit::prelude::SortOrder, vocab::SortOrder>());
    assert!(same::<wavekit::api::SortOrder, vocab::SortOrder>());
    assert!(same::<wavekit::ReduceOp, vocab::ReduceOp>());
    assert!(same::<wavekit::op::ReduceOp, vocab::ReduceOp>());
    assert!(same::<wavekit::ArgOp, vocab::ArgOp>());
    assert!(same::<wavekit::ScanKind, vocab::ScanKind>());
    assert!(same::<wavekit::backend::ScanKind, vocab::ScanKind>());
    assert!(same::<wavekit::Vote, vocab::Vote>());
    assert!(same::<wavekit::Shfl, vocab::Shfl>());
    assert!(same::<wavekit::Match, vocab::Match>());
    assert!(same::<wavekit::HistogramResult, vocab::HistogramResult>());
    assert!(same::<wavekit::raw::SortSpec, vocab::SortSpec>());
    assert!(same::<wavekit::vocab::SortOrder, vocab::SortOrder>());
}

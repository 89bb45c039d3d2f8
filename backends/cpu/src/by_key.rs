//! reduce_by_key and scan_by_key on the CPU (docs/SEMANTICS.md "by_key"). Placeholder on the
//! bykey branch: replaced by the implementation before it merges.

use super::CpuBackend;
use super::buffer::CpuBuffer;
use wavekit_core::element::Element;
use wavekit_core::error::Result;
use wavekit_core::{ByKeyOut, ReduceOp};

pub(crate) fn raw<K: Element, V: Element>(
    _keys: &CpuBuffer<K>,
    _values: &CpuBuffer<V>,
    _op: ReduceOp,
    _out: ByKeyOut<'_, CpuBackend, K, V>,
) -> Result<()> {
    unimplemented!("by_key on the CPU")
}

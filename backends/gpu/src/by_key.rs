//! reduce_by_key and scan_by_key on a GPU (`RawBackend::raw_by_key`).

use super::backend::GpuBackend;
use super::buffer::GpuBuffer;
use super::runtime::GpuRuntime;
use wavekit_core::ByKeyOut;
use wavekit_core::ReduceOp;
use wavekit_core::element::Element;
use wavekit_core::error::Result;

impl<R: GpuRuntime> GpuBackend<R> {
    /// Placeholder.
    pub(crate) fn by_key_enqueue<K: Element, V: Element>(
        &self,
        _keys: &GpuBuffer<K, R>,
        _values: &GpuBuffer<V, R>,
        _op: ReduceOp,
        _out: ByKeyOut<'_, Self, K, V>,
    ) -> Result<()> {
        unimplemented!()
    }
}
